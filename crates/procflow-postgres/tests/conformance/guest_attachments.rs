//! The guest's files (API contract 14.2, 7.1): uploaded through the share link as the guest,
//! with the API's event, only on the tasks the guest may act on of an active run; listed as
//! the guest page shows them (hidden tasks' files left out, uploaders named); served only
//! when they belong to a visible task of the shared run.

use async_trait::async_trait;
use procflow_domain::actor::{Actor, Assignee};
use procflow_domain::error::{DomainError, Resource};
use procflow_domain::event::EventPayload;
use procflow_domain::ports::FileStore as _;
use procflow_domain::ports::files::{ByteSource, SourceError};
use procflow_domain::service::{GuestUpload, UpdateTask, Upload};
use procflow_domain::sharing::Invitation;
use procflow_domain::values::ShareToken;

use super::env::{Env, conformance_test};
use super::support::{Started, invite_outsider, started};

struct Bytes(Option<Vec<u8>>);

#[async_trait]
impl ByteSource for Bytes {
    async fn next_chunk(&mut self) -> Result<Option<bytes::Bytes>, SourceError> {
        Ok(self.0.take().map(Into::into))
    }
}

fn named(name: &str) -> GuestUpload {
    GuestUpload {
        filename: Some(name.to_owned()),
        content_type: Some("text/plain".to_owned()),
    }
}

async fn stored_objects(env: &Env) -> usize {
    env.files.list("teams/").await.unwrap().len()
}

conformance_test!(the_guest_uploads_through_the_link_only_where_they_may_act);
async fn the_guest_uploads_through_the_link_only_where_they_may_act(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let shared = invite_outsider(&env, run.id).await;
    let token = &shared.token;
    let (mine, theirs) = (tasks[0].id, tasks[1].id);
    env.procflow
        .update_task(
            &env.team,
            run.id,
            theirs,
            UpdateTask {
                assignee: Some(Some(Assignee::Email("out@side.example".parse().unwrap()))),
                ..UpdateTask::default()
            },
        )
        .await
        .unwrap();
    let wrong = ShareToken::from_link("not-the-token").unwrap();
    let refused = env
        .attachments
        .upload_as_guest(
            run.id,
            &wrong,
            mine,
            named("a.txt"),
            &mut Bytes(Some(b"x".to_vec())),
        )
        .await;
    assert_eq!(refused.unwrap_err(), DomainError::NotFound(Resource::Run));
    let refused = env
        .attachments
        .upload_as_guest(
            run.id,
            token,
            theirs,
            named("a.txt"),
            &mut Bytes(Some(b"x".to_vec())),
        )
        .await;
    assert_eq!(refused.unwrap_err(), DomainError::NotGuestsTask);
    assert_eq!(stored_objects(&env).await, 0, "refused before a byte");
    env.events().await;

    let stored = env
        .attachments
        .upload_as_guest(
            run.id,
            token,
            mine,
            named("../scan.txt"),
            &mut Bytes(Some(b"hello".to_vec())),
        )
        .await
        .unwrap();
    assert_eq!(stored.filename, "scan.txt");
    assert_eq!(stored.uploaded_by, Actor::Guest);
    assert_eq!(
        stored.uploader_email,
        Some("guest@outside.example".parse().unwrap())
    );
    let added: Vec<_> = env
        .events()
        .await
        .into_iter()
        .filter_map(|e| match e.payload {
            EventPayload::AttachmentAdded { attachment } => Some(attachment),
            _ => None,
        })
        .collect();
    assert_eq!(added, [stored.snapshot()]);

    // A member's file on the other task: both listed, oldest first, named.
    let by_api = env
        .attachments
        .upload(
            &env.team,
            run.id,
            theirs,
            Upload {
                filename: Some("plan.txt".to_owned()),
                content_type: None,
                uploaded_by: Actor::Api,
                uploader_email: None,
            },
            &mut Bytes(Some(b"plan".to_vec())),
        )
        .await
        .unwrap();
    let page = env.procflow.open_shared_run(run.id, token).await.unwrap();
    let files = env.attachments.guest_files(&page).await.unwrap();
    let shown: Vec<_> = files
        .attachments
        .iter()
        .map(|f| (f.attachment.id, f.uploader.as_str()))
        .collect();
    assert_eq!(shown, [(stored.id, "Guest"), (by_api.id, "API")]);
    assert_eq!(files.of_task(mine).count(), 1);
    assert!(!files.truncated);
    let latest = env
        .store
        .latest_run_attachments(env.team.id, run.id, 1)
        .await
        .unwrap();
    assert_eq!(latest, std::slice::from_ref(&by_api));
    assert!(
        env.store
            .latest_run_attachments(env.other.id, run.id, 10)
            .await
            .unwrap()
            .is_empty(),
        "another team's run has none"
    );

    // Served through the link, not through a wrong one, nor another run's.
    let (served, _) = env
        .attachments
        .guest_content(run.id, token, by_api.id)
        .await
        .unwrap();
    assert_eq!(served, by_api);
    assert_eq!(
        env.attachments
            .guest_content(run.id, &wrong, by_api.id)
            .await
            .err(),
        Some(DomainError::NotFound(Resource::Run))
    );
    let Started { run: other, .. } = started(&env).await;
    let elsewhere = env
        .procflow
        .invite_guest(&env.team, other.id, Invitation::default())
        .await
        .unwrap();
    assert_eq!(
        env.attachments
            .guest_content(other.id, &elsewhere.token, by_api.id)
            .await
            .err(),
        Some(DomainError::NotFound(Resource::Attachment))
    );
}
