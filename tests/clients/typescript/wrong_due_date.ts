// Must NOT compile (`make clients-check` fails if it does): a number is no due date. Before
// issue 28 `due_date` was `unknown` in the generated types and this compiled.
import createClient from "openapi-fetch";
import type { paths } from "./schema";

export async function wrong(client: ReturnType<typeof createClient<paths>>, template: string) {
  await client.POST("/api/v1/process-runs", { body: { template_id: template, due_date: 42 } }); // error expected here
}
