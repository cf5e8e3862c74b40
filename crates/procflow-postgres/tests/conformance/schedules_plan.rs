//! The scheduler's due read (API contract 13.1) on PostgreSQL: it walks `schedules_due` in the
//! order it pages in, whatever the planner's statistics say. The bench found a sequential scan
//! and a sort of 10,000 schedules (8 to 15 ms a tick) right after they had all run: the
//! statistics, taken while they were due, still said they were, and an index on `next_run_at`
//! alone could not give the `(next_run_at, id)` order. The statement below is the one
//! `store/schedules.rs` builds, written out (diesel has no EXPLAIN).

use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use procflow_domain::ids::ScheduleId;
use uuid::Uuid;

use super::env::Env;
use super::support::{daily_schedule, document, explained, published};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_due_read_walks_its_index_even_when_the_statistics_say_everything_is_due() {
    let env = Env::postgres().await;
    let template = published(&env, &env.team, document()).await;
    let now = env.clock_now();
    // Due an hour ago.
    let id = ScheduleId::from_uuid(Uuid::now_v7());
    let mut model = daily_schedule(&env, template.id, id, now);
    model.next_run_at = Some(now - time::Duration::hours(1));
    env.store.insert_schedule(&model).await.unwrap();
    let mut conn = AsyncPgConnection::establish(env.pg().db.url())
        .await
        .unwrap();
    let model_id = model.id.as_uuid();
    for statement in [
        // 10,000 schedules, every one due, and the statistics taken so.
        format!(
            "INSERT INTO schedules SELECT (jsonb_populate_record(NULL::schedules, \
               to_jsonb(s) || jsonb_build_object('id', gen_random_uuid()))).* \
             FROM schedules s, generate_series(1, 9999) WHERE s.id = '{model_id}'"
        ),
        "ANALYZE schedules".to_owned(),
        // Then all of them run, and none is due before tomorrow: the statistics are stale.
        "UPDATE schedules SET next_run_at = next_run_at + interval '1 day'".to_owned(),
    ] {
        diesel::sql_query(statement)
            .execute(&mut conn)
            .await
            .expect("the schedules are set up");
    }
    let at = (now + time::Duration::minutes(1)).unix_timestamp();
    let plan = explained(
        &mut conn,
        &format!(
            "SELECT * FROM schedules \
             WHERE enabled = true AND next_run_at IS NOT NULL \
               AND next_run_at <= to_timestamp({at}) \
             ORDER BY next_run_at, id LIMIT 100"
        ),
    )
    .await
    .join("\n");
    assert!(
        plan.contains("schedules_due"),
        "the due read walks schedules_due:\n{plan}"
    );
    assert!(!plan.contains("Seq Scan"), "no sequential scan:\n{plan}");
    assert!(!plan.contains("Sort"), "no sort:\n{plan}");
    assert!(
        plan.starts_with("Limit (actual rows=0 "),
        "nothing is due:\n{plan}"
    );
}
