//! The inbox's page stays flat as a team's runs grow (API contract 15.1), on PostgreSQL: the
//! plan of an assignee's page walks `run_tasks_inbox_by_assignee` in order and stops after the
//! page (no sort, no sequential scan), and the buffers it touches do not grow from 200 runs to
//! 10,000. The query below is the one `store/inbox.rs` builds for an assignee's open tasks of
//! active runs, written out (diesel has no EXPLAIN).

use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use procflow_domain::actor::Assignee;
use procflow_domain::service::CreateRun;
use procflow_domain::values::PageRequest;
use serde_json::json;
use uuid::Uuid;

use super::env::Env;
use super::support::{explained, published};

/// Adds `copies` runs like `run` (each with its sections and tasks, due dates spread over
/// weeks).
async fn copy_run(conn: &mut AsyncPgConnection, run: Uuid, copies: u32) {
    diesel::sql_query(format!(
        "WITH seed AS (SELECT * FROM runs WHERE id = '{run}'), \
         new_runs AS (INSERT INTO runs SELECT (jsonb_populate_record(NULL::runs, \
             to_jsonb(s) || jsonb_build_object('id', gen_random_uuid()))).* \
           FROM seed s, generate_series(1, {copies}) RETURNING id), \
         new_sections AS (INSERT INTO run_sections SELECT (jsonb_populate_record( \
             NULL::run_sections, to_jsonb(x) || jsonb_build_object('run_id', n.id))).* \
           FROM run_sections x, new_runs n WHERE x.run_id = '{run}') \
         INSERT INTO run_tasks SELECT (jsonb_populate_record(NULL::run_tasks, to_jsonb(t) || \
             jsonb_build_object('id', gen_random_uuid(), 'run_id', n.id, 'due_date', \
               t.due_date + (random() * 2000)::int * interval '1 hour'))).* \
           FROM run_tasks t, new_runs n WHERE t.run_id = '{run}'"
    ))
    .execute(conn)
    .await
    .expect("copies");
    diesel::sql_query("ANALYZE runs, run_tasks")
        .execute(conn)
        .await
        .expect("analyze");
}

/// The plan of one page, and the shared buffers it touched.
async fn explain(conn: &mut AsyncPgConnection, team: Uuid, assignee: &str) -> (String, u64) {
    let plan = explained(
        conn,
        &format!(
            "SELECT run_tasks.*, runs.title FROM run_tasks INNER JOIN runs \
           ON runs.team_id = run_tasks.team_id AND runs.id = run_tasks.run_id \
         WHERE run_tasks.team_id = '{team}' AND runs.team_id = '{team}' \
           AND run_tasks.hidden = false AND run_tasks.state = 'open' \
           AND runs.status = 'active' AND run_tasks.assignee = '{assignee}' \
         ORDER BY COALESCE(run_tasks.due_date, 'infinity'::timestamptz), run_tasks.id \
         LIMIT 21"
        ),
    )
    .await;
    let buffers = plan
        .iter()
        .find_map(|l| l.trim().strip_prefix("Buffers: shared "))
        .map_or(0, |counts| {
            counts
                .split(' ')
                .filter_map(|c| c.split_once('=').and_then(|(_, n)| n.parse::<u64>().ok()))
                .sum()
        });
    (plan.join("\n"), buffers)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_assignees_page_reads_the_same_at_200_and_at_10000_runs() {
    let env = Env::postgres().await;
    let document = json!({"title": "Five", "sections": [{"title": "All", "tasks": [
        {"title": "A", "assignee": "member@a.example",
         "due_date": {"type": "relative", "from": "run_start", "offset": "P1D"}},
        {"title": "B", "assignee": "member@a.example"},
        {"title": "C", "due_date": {"type": "relative", "from": "run_start", "offset": "P2D"}},
        {"title": "D", "assignee": "admin@a.example"},
        {"title": "E", "assignee": "member@a.example",
         "due_date": {"type": "relative", "from": "run_start", "offset": "P3D"}}]}]});
    let template = published(&env, &env.team, document).await;
    let run = env
        .procflow
        .create_run(&env.team, CreateRun::of(template.id))
        .await
        .unwrap();
    let tasks = env
        .store
        .list_tasks(env.team.id, run.id, PageRequest::default())
        .await
        .unwrap()
        .items;
    let Some(Assignee::User(member)) = tasks[0].assignee.clone() else {
        panic!("a member's task is assigned by user id");
    };
    let mut conn = AsyncPgConnection::establish(env.pg().db.url())
        .await
        .unwrap();
    let team = env.team.id.as_uuid();
    copy_run(&mut conn, run.id.as_uuid(), 199).await;
    let (small_plan, small) = explain(&mut conn, team, &member.to_string()).await;
    copy_run(&mut conn, run.id.as_uuid(), 9_800).await;
    let (large_plan, large) = explain(&mut conn, team, &member.to_string()).await;
    for plan in [&small_plan, &large_plan] {
        assert!(
            plan.contains("run_tasks_inbox_by_assignee"),
            "the page walks the inbox index:\n{plan}"
        );
        assert!(!plan.contains("Sort"), "no sort of the tasks:\n{plan}");
        assert!(!plan.contains("Seq Scan"), "no sequential scan:\n{plan}");
    }
    assert!(
        large <= small * 2 + 16,
        "buffers of a page: {small} at 200 runs, {large} at 10,000\n{large_plan}"
    );
    eprintln!("inbox page buffers: {small} at 200 runs, {large} at 10,000 runs\n{large_plan}");
}
