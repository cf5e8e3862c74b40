// The README tour's calls through openapi-fetch on the types openapi-typescript generates from
// docs/openapi.json: `make clients-check` compiles it with `tsc --strict` (nothing runs). Each
// call is typed: a path, body or query the document does not describe fails to compile.
import createClient from "openapi-fetch";
import type { paths } from "./schema";

export async function tour(baseUrl: string, key: string): Promise<string> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });

  // 1. The team's templates; the tasks of one.
  const templates = await client.GET("/api/v1/process-templates", { params: { query: { limit: 20 } } });
  if (!templates.data) throw new Error(templates.error?.error.message);
  const template: string = templates.data.data[0].id;
  await client.GET("/api/v1/process-templates/{id}/tasks", {
    params: { path: { id: template }, query: { limit: 2 } },
  });

  // 2. Start a run attributed to the member (a date is a due date too).
  const run = await client.POST("/api/v1/process-runs", {
    body: {
      template_id: template,
      name: "Onboarding: Ada",
      actor_email: "member@demo.example",
      due_date: "2026-12-31",
    },
  });
  if (!run.data) throw new Error(run.error?.error.code);
  const runId: string = run.data.data.id;

  // 3. Its tasks; complete the first and fill in a field in the same request.
  const tasks = await client.GET("/api/v1/process-runs/{id}/tasks", { params: { path: { id: runId } } });
  if (!tasks.data) throw new Error(tasks.error?.error.message);
  const task = tasks.data.data[0];
  const field = task.custom_elements.find((element) => element.label === "Full name");
  await client.PATCH("/api/v1/process-runs/{id}/tasks/{task_id}", {
    params: { path: { id: runId, task_id: task.id } },
    body: {
      completed: true,
      actor_email: "member@demo.example",
      custom_elements: field ? [{ id: field.id, value: "Ada Lovelace" }] : [],
    },
  });

  // 4. Change it only if nobody did since it was read: its ETag in If-Match.
  const read = await client.GET("/api/v1/process-runs/{id}/tasks/{task_id}", {
    params: { path: { id: runId, task_id: task.id } },
  });
  const tag = read.response.headers.get("etag") ?? "*";
  await client.PATCH("/api/v1/process-runs/{id}/tasks/{task_id}", {
    params: { path: { id: runId, task_id: task.id }, header: { "If-Match": tag } },
    body: { assignee: "member@demo.example" },
  });

  // 5. Several tasks in one request.
  await client.PATCH("/api/v1/process-runs/{id}/tasks", {
    params: { path: { id: runId } },
    body: { tasks: tasks.data.data.slice(1, 3).map((item) => ({ id: item.id, completed: true })) },
  });

  // 6. A rule: the answer to "I will work remotely" (an element named by its ref) shows the
  // task "Ship the equipment home"; every task says whether it is hidden or blocked.
  const remote = task.custom_elements.find((element) => element.ref === "remote");
  await client.PATCH("/api/v1/process-runs/{id}/tasks/{task_id}", {
    params: { path: { id: runId, task_id: task.id } },
    body: { custom_elements: remote ? [{ id: remote.id, value: true }] : [] },
  });
  const after = await client.GET("/api/v1/process-runs/{id}/tasks", { params: { path: { id: runId } } });
  const shipped = after.data?.data.find((item) => item.title === "Ship the equipment home");
  if (!shipped || shipped.hidden || shipped.blocked) throw new Error("the rule did not show the task");

  // 7. Share the run with a guest.
  const shared = await client.POST("/api/v1/process-runs/{id}/invite", {
    params: { path: { id: runId } },
    body: { email: "ada@example.org" },
  });
  if (!shared.data) throw new Error(shared.error?.error.message);
  return shared.data.data.share_url;
}
