"""Must NOT pass `mypy --strict` (`make clients-check` fails if it does): a number is neither a
due date nor an assignee. Before issue 28 both fields were `Any` and this passed."""

from uuid import UUID

from procflow_client.models import CreateRun, UpdateTask

CreateRun(template_id=UUID(int=1), due_date=42)  # error expected here
UpdateTask(assignee=42)  # error expected here
