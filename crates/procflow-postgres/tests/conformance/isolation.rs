//! Tenant isolation: every read and write with another team's id finds nothing and changes
//! nothing.

use procflow_domain::error::{DomainError, Resource};
use procflow_domain::run::RunFilter;
use procflow_domain::service::UpdateTask;
use procflow_domain::sharing::Invitation;
use procflow_domain::template::TemplateDocument;
use procflow_domain::values::PageRequest;

use super::env::{Env, conformance_test};
use super::support::{Started, document, start, started};

conformance_test!(another_team_finds_nothing_and_changes_nothing);
async fn another_team_finds_nothing_and_changes_nothing(env: Env) {
    let Started { template, run, .. } = started(&env).await;
    env.procflow
        .invite_guest(&env.team, run.id, Invitation::default())
        .await
        .unwrap();
    let tasks = env
        .store
        .list_tasks(env.team.id, run.id, PageRequest::default())
        .await
        .unwrap()
        .items;
    env.events().await;
    let (them, page) = (&env.other, PageRequest::default());
    let no_template = DomainError::NotFound(Resource::Template);
    let no_run = DomainError::NotFound(Resource::Run);

    assert!(
        env.store
            .list_templates(them.id, page)
            .await
            .unwrap()
            .items
            .is_empty()
    );
    assert!(
        env.store
            .list_runs(them.id, RunFilter::default(), page)
            .await
            .unwrap()
            .items
            .is_empty()
    );
    assert_eq!(
        env.procflow
            .get_template(them, template.id)
            .await
            .unwrap_err(),
        no_template
    );
    assert_eq!(
        env.procflow
            .list_template_tasks(them, template.id, page)
            .await
            .unwrap_err(),
        no_template
    );
    assert_eq!(
        env.procflow
            .publish_template(them, template.id, false)
            .await
            .unwrap_err(),
        no_template
    );
    let doc = TemplateDocument::from_json(document()).unwrap();
    assert_eq!(
        env.procflow
            .replace_template(them, template.id, doc)
            .await
            .unwrap_err(),
        no_template
    );
    assert_eq!(
        env.procflow
            .archive_template(them, template.id)
            .await
            .unwrap_err(),
        no_template
    );
    assert_eq!(
        env.procflow
            .create_run(them, start(&template))
            .await
            .unwrap_err(),
        no_template
    );
    assert_eq!(
        env.procflow.get_run(them, run.id).await.unwrap_err(),
        no_run
    );
    assert_eq!(
        env.procflow
            .list_tasks(them, run.id, page)
            .await
            .unwrap_err(),
        no_run
    );
    assert_eq!(
        env.procflow
            .get_task(them, run.id, tasks[0].id)
            .await
            .unwrap_err(),
        no_run
    );
    let complete = UpdateTask {
        completed: Some(true),
        ..UpdateTask::default()
    };
    assert_eq!(
        env.procflow
            .update_task(them, run.id, tasks[0].id, complete)
            .await
            .unwrap_err(),
        no_run
    );
    assert_eq!(
        env.store.get_share(them.id, run.id).await.unwrap_err(),
        no_run
    );
    assert_eq!(
        env.procflow
            .invite_guest(them, run.id, Invitation::default())
            .await
            .unwrap_err(),
        no_run
    );
    assert_eq!(
        env.procflow.stop_sharing(them, run.id).await.unwrap_err(),
        no_run
    );

    // Nothing of the first team moved.
    assert_eq!(
        env.store
            .get_template(env.team.id, template.id)
            .await
            .unwrap(),
        template
    );
    let after = env.store.get_run(env.team.id, run.id).await.unwrap();
    assert!(after.is_shared);
    assert_eq!(after.open_tasks(), 3);
    assert_eq!(
        env.store
            .list_tasks(env.team.id, run.id, page)
            .await
            .unwrap()
            .items,
        tasks
    );
    assert!(env.events().await.is_empty());
}
