// Must NOT compile (`make clients-check` fails if it does): a number is no assignee. Before
// issue 28 `assignee` was `unknown` in the generated types and this compiled.
import createClient from "openapi-fetch";
import type { paths } from "./schema";

export async function wrong(client: ReturnType<typeof createClient<paths>>, run: string, task: string) {
  await client.PATCH("/api/v1/process-runs/{id}/tasks/{task_id}", {
    params: { path: { id: run, task_id: task } },
    body: { assignee: 42 }, // error expected here
  });
}
