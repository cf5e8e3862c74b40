//! Tenant isolation: every read and write with another team's id finds nothing and changes
//! nothing, and two teams' records with the same id are two records.

use std::sync::Mutex;

use procflow_domain::error::{DomainError, Resource};
use procflow_domain::ports::IdGenerator;
use procflow_domain::run::{Run, RunFilter, StartRun};
use procflow_domain::service::UpdateTask;
use procflow_domain::sharing::Invitation;
use procflow_domain::template::{Template, TemplateDocument};
use procflow_domain::values::{PageRequest, ShareToken};
use uuid::Uuid;

use super::env::{Env, conformance_test};
use super::support::{Started, V7Ids, document, published, start, started};

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
            .replace_template(them, template.id, doc, None)
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

conformance_test!(records_of_two_teams_with_the_same_ids_stay_apart);
async fn records_of_two_teams_with_the_same_ids_stay_apart(env: Env) {
    // Ids are unique in practice, but a record is its team's: another team's template or run
    // with the same id is neither in the way nor touched, nor found through the other team.
    let theirs = published(&env, &env.other, document()).await;
    let their_run = env
        .procflow
        .create_run(&env.other, start(&theirs))
        .await
        .unwrap();
    let their_tasks = env
        .store
        .list_tasks(env.other.id, their_run.id, PageRequest::default())
        .await
        .unwrap()
        .items;

    let ours = Template {
        team_id: env.team.id,
        ..theirs.clone()
    };
    env.store.insert_template(&ours).await.unwrap();
    let ids = ReusedId(Mutex::new(Some(their_run.id.as_uuid())));
    let start_ours = StartRun {
        template: &ours,
        title: None,
        due_date: None,
        runner: None,
        members: &[],
        timezone: "UTC".into(),
        prefill: Vec::new(),
    };
    let new_run = Run::start(start_ours, &ids, env.clock_now()).unwrap();
    assert_eq!(
        new_run.run.id, their_run.id,
        "the same run id in both teams"
    );
    env.store.create_run(&new_run).await.unwrap();
    let run = new_run.run.id;

    // Change everything of ours.
    let complete = UpdateTask {
        completed: Some(true),
        ..UpdateTask::default()
    };
    env.procflow
        .update_task(&env.team, run, new_run.tasks[0].id, complete)
        .await
        .unwrap();
    let shared = env
        .procflow
        .invite_guest(&env.team, run, Invitation::default())
        .await
        .unwrap();
    let (opened, share) = env.store.find_shared_run(run, &shared.token).await.unwrap();
    assert_eq!(opened.team_id, env.team.id);
    assert_eq!(share, shared.share);
    let (_, _, shared_tasks) = env.store.read_shared_run(run, &shared.token).await.unwrap();
    assert_eq!(
        shared_tasks.iter().map(|t| t.id).collect::<Vec<_>>(),
        new_run.tasks.iter().map(|t| t.id).collect::<Vec<_>>(),
        "the link reads our tasks only, under an id their run has too"
    );
    env.procflow
        .publish_template(&env.team, ours.id, false)
        .await
        .unwrap();
    env.procflow
        .archive_template(&env.team, ours.id)
        .await
        .unwrap();

    // Theirs is as it was.
    assert_eq!(
        env.store
            .get_template(env.other.id, theirs.id)
            .await
            .unwrap(),
        theirs
    );
    assert_eq!(
        env.store.get_run(env.other.id, run).await.unwrap(),
        their_run
    );
    assert_eq!(
        env.store
            .list_tasks(env.other.id, run, PageRequest::default())
            .await
            .unwrap()
            .items,
        their_tasks
    );
    assert_eq!(env.store.get_share(env.other.id, run).await.unwrap(), None);
    let ours_now = env.store.get_run(env.team.id, run).await.unwrap();
    assert_eq!((ours_now.open_tasks(), ours_now.is_shared), (2, true));
}

/// Hands out a given id first, then UUIDv7s: to start a run whose id another team's run has.
struct ReusedId(Mutex<Option<Uuid>>);

impl IdGenerator for ReusedId {
    fn new_id(&self) -> Uuid {
        let reused = self.0.lock().unwrap().take();
        reused.unwrap_or_else(|| V7Ids.new_id())
    }

    fn share_token(&self) -> ShareToken {
        V7Ids.share_token()
    }
}
