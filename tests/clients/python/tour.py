"""The README tour's calls through the client openapi-python-client generates from
docs/openapi.json: `make clients-check` runs `mypy --strict` on it (nothing runs, no network).
Each call is typed: an argument or a field the document does not describe fails the check."""

import datetime
from uuid import UUID

from procflow_client import AuthenticatedClient
from procflow_client.api.runs import create_run
from procflow_client.api.sharing import invite_guest
from procflow_client.api.tasks import (
    get_run_task,
    list_run_tasks,
    update_run_task,
    update_run_tasks,
)
from procflow_client.api.templates import list_template_tasks, list_templates
from procflow_client.models import (
    CreateRun,
    CreatedRunData,
    ElementWrite,
    ErrorResponse,
    Invite,
    RunTaskList,
    ShareResultData,
    TaskUpdate,
    TemplateList,
    UpdateTask,
    UpdateTasks,
)


def tour(base_url: str, key: str) -> str:
    client = AuthenticatedClient(base_url=base_url, token=key)

    # 1. The team's templates; the tasks of one.
    templates = list_templates.sync(client=client, limit=20)
    if not isinstance(templates, TemplateList):
        raise RuntimeError(templates.error.message if isinstance(templates, ErrorResponse) else "no answer")
    template: UUID = templates.data[0].id
    list_template_tasks.sync(template, client=client, limit=2)

    # 2. Start a run attributed to the member (a date is a due date too).
    run = create_run.sync(
        client=client,
        body=CreateRun(
            template_id=template,
            name="Onboarding: Ada",
            actor_email="member@demo.example",
            due_date=datetime.date(2026, 12, 31),
        ),
    )
    if not isinstance(run, CreatedRunData):
        raise RuntimeError("the run did not start")
    run_id: UUID = run.data.id

    # 3. Its tasks; complete the first and fill in a field in the same request.
    tasks = list_run_tasks.sync(run_id, client=client)
    if not isinstance(tasks, RunTaskList):
        raise RuntimeError("no tasks")
    task = tasks.data[0]
    name = next(element.id for element in task.custom_elements if element.label == "Full name")
    update_run_task.sync(
        run_id,
        task.id,
        client=client,
        body=UpdateTask(
            completed=True,
            actor_email="member@demo.example",
            custom_elements=[ElementWrite(id=name, value="Ada Lovelace")],
        ),
    )

    # 4. Change it only if nobody did since it was read: its ETag in If-Match.
    read = get_run_task.sync_detailed(run_id, task.id, client=client)
    tag: str = read.headers.get("etag", "*")
    update_run_task.sync(
        run_id,
        task.id,
        client=client,
        body=UpdateTask(assignee="member@demo.example"),
        if_match=tag,
    )

    # 5. Several tasks in one request.
    update_run_tasks.sync(
        run_id,
        client=client,
        body=UpdateTasks(tasks=[TaskUpdate(id=item.id, completed=True) for item in tasks.data[1:3]]),
    )

    # 6. A rule: the answer to "I will work remotely" (an element named by its ref) shows the
    # task "Ship the equipment home"; every task says whether it is hidden or blocked.
    remote = next(element.id for element in task.custom_elements if element.ref == "remote")
    update_run_task.sync(
        run_id,
        task.id,
        client=client,
        body=UpdateTask(custom_elements=[ElementWrite(id=remote, value=True)]),
    )
    after = list_run_tasks.sync(run_id, client=client)
    if not isinstance(after, RunTaskList):
        raise RuntimeError("no tasks")
    hidden: dict[str, bool] = {item.title: item.hidden for item in after.data}
    blocked: list[str] = [item.title for item in after.data if item.blocked]
    if hidden.get("Ship the equipment home") or blocked:
        raise RuntimeError("the rule did not show the task, or a task still waits")

    # 7. Share the run with a guest.
    shared = invite_guest.sync(run_id, client=client, body=Invite(email="ada@example.org"))
    if not isinstance(shared, ShareResultData):
        raise RuntimeError("not shared")
    return shared.data.share_url
