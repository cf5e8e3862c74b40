//! A listing's elements as PostgreSQL gives them back: in spec 2.7's form for tasks written
//! now, in the earlier form for tasks written before, both parsing to the elements stored.
//! PostgreSQL only: the earlier form is written here by hand, as an older release wrote it.

use diesel::sql_types::{Jsonb, Uuid as SqlUuid};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use procflow_domain::service::UpdateTask;
use serde_json::{Value, json};

use super::env::Env;
use super::support::{listed, started};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_gives_the_elements_stored_in_either_form() {
    let env = Env::postgres().await;
    let s = started(&env).await;
    let first = &s.tasks[0];
    // The earlier form: `ref` left out when none, `options` and `file_url` on every element,
    // no `display_only`.
    let earlier: Vec<Value> = first
        .custom_elements
        .iter()
        .map(|e| {
            json!({
                "id": e.id, "type": e.element_type, "label": e.label, "value": e.value,
                "options": e.options, "file_url": e.file_url, "required": e.required,
            })
        })
        .collect();
    let mut conn = AsyncPgConnection::establish(env.pg().db.url())
        .await
        .unwrap();
    diesel::sql_query("UPDATE run_tasks SET custom_elements = $1 WHERE id = $2")
        .bind::<Jsonb, _>(Value::from(earlier))
        .bind::<SqlUuid, _>(first.id.as_uuid())
        .execute(&mut conn)
        .await
        .unwrap();

    let tasks = listed(&env, s.run.id).await;
    assert!(!tasks[0].custom_elements.in_api_form());
    assert!(tasks[2].custom_elements.in_api_form());
    for (listed, task) in tasks.into_iter().zip(&s.tasks) {
        assert_eq!(listed.parsed().unwrap(), *task);
    }

    // Written again, the task's elements take the current form.
    env.procflow
        .update_task(
            &env.team,
            s.run.id,
            first.id,
            UpdateTask {
                completed: Some(true),
                ..UpdateTask::default()
            },
        )
        .await
        .unwrap();
    let tasks = listed(&env, s.run.id).await;
    assert!(tasks[0].custom_elements.in_api_form());
    assert_eq!(
        tasks[0].custom_elements.parse().unwrap(),
        first.custom_elements
    );
}
