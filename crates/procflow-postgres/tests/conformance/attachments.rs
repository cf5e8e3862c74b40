//! `AttachmentStore` and the attachment use cases (API contract 14.2): bytes first then the row
//! and its event, a failing source leaving neither, listing in order, team scope, hidden tasks,
//! deletion of row and bytes, comments showing a task's attachments, and the sweep.

use async_trait::async_trait;
use procflow_domain::actor::Actor;
use procflow_domain::error::{DomainError, Resource};
use procflow_domain::event::EventPayload;
use procflow_domain::ids::AttachmentId;
use procflow_domain::ports::FileStore;
use procflow_domain::ports::files::{ByteSource, SourceError, StorageKey};
use procflow_domain::service::{AddComment, SWEEP_GRACE, Upload};
use procflow_domain::values::{Cursor, Limit, PageRequest};
use uuid::Uuid;

use super::env::{Env, conformance_test};
use super::logic::onboarding;
use super::support::{Started, published, start, started};

/// `chunks` in turn, then the end, or `fail` after them.
struct Chunks {
    chunks: Vec<Vec<u8>>,
    fail: bool,
}

#[async_trait]
impl ByteSource for Chunks {
    async fn next_chunk(&mut self) -> Result<Option<bytes::Bytes>, SourceError> {
        if self.chunks.is_empty() {
            return if self.fail {
                Err(SourceError("the client went away".into()))
            } else {
                Ok(None)
            };
        }
        Ok(Some(self.chunks.remove(0).into()))
    }
}

fn body(bytes: &[u8]) -> Chunks {
    Chunks {
        chunks: bytes.chunks(3).map(<[u8]>::to_vec).collect(),
        fail: false,
    }
}

fn upload(name: &str) -> Upload {
    Upload {
        filename: Some(name.to_owned()),
        content_type: Some("application/pdf".to_owned()),
        uploaded_by: Actor::Api,
        uploader_email: None,
    }
}

fn page(limit: i64, cursor: Option<Uuid>) -> PageRequest {
    PageRequest {
        limit: Limit::new(limit).unwrap(),
        cursor: cursor.map(Cursor::after),
    }
}

async fn read_all(env: &Env, key: &StorageKey) -> Vec<u8> {
    let mut source = env.files.get(key).await.unwrap();
    let mut out = Vec::new();
    while let Some(chunk) = source.next_chunk().await.unwrap() {
        out.extend(chunk);
    }
    out
}

conformance_test!(an_upload_stores_bytes_then_the_row_and_its_event);
async fn an_upload_stores_bytes_then_the_row_and_its_event(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let task = tasks[0].id;
    let first = env
        .attachments
        .upload(
            &env.team,
            run.id,
            task,
            upload("../x/contract.pdf"),
            &mut body(b"%PDF-1.7 hello"),
        )
        .await
        .unwrap();
    assert_eq!(first.filename, "contract.pdf");
    assert_eq!(first.content_type, "application/pdf");
    assert_eq!(first.size, 14);
    // sha256sum of the same bytes.
    assert_eq!(
        first.sha256_hex(),
        "2a916d83fa20d97c7c3c04cf07b2d3f8d18ea47f59c841a221dd3a81f15fc347"
    );
    assert_eq!(read_all(&env, &first.key()).await, b"%PDF-1.7 hello");
    let second = env
        .attachments
        .upload(&env.team, run.id, task, upload("b.pdf"), &mut body(b""))
        .await
        .unwrap();
    assert_eq!(second.size, 0);

    let listed = env
        .attachments
        .list(&env.team, run.id, task, page(1, None))
        .await
        .unwrap();
    assert_eq!(listed.items, std::slice::from_ref(&first));
    assert!(listed.has_more);
    let rest = env
        .attachments
        .list(&env.team, run.id, task, page(5, Some(first.id.as_uuid())))
        .await
        .unwrap();
    assert_eq!(rest.items, std::slice::from_ref(&second));
    let unknown = env
        .attachments
        .list(&env.team, run.id, task, page(5, Some(Uuid::from_u128(5))))
        .await;
    assert!(
        matches!(unknown, Err(DomainError::Validation(_))),
        "{unknown:?}"
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
    assert_eq!(added, [first.snapshot(), second.snapshot()]);
}

conformance_test!(a_failing_source_stores_nothing_and_writes_no_row);
async fn a_failing_source_stores_nothing_and_writes_no_row(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let task = tasks[0].id;
    let mut cut = Chunks {
        chunks: vec![b"part".to_vec()],
        fail: true,
    };
    let refused = env
        .attachments
        .upload(&env.team, run.id, task, upload("a.pdf"), &mut cut)
        .await;
    assert!(
        matches!(refused, Err(DomainError::Validation(_))),
        "{refused:?}"
    );
    assert!(env.files.list("teams").await.unwrap().is_empty());
    let listed = env
        .attachments
        .list(&env.team, run.id, task, page(5, None))
        .await
        .unwrap();
    assert!(listed.items.is_empty());
    assert!(
        env.event_names()
            .await
            .iter()
            .all(|n| *n != "task.attachment_added")
    );
}

conformance_test!(another_teams_attachment_is_not_found_and_delete_removes_row_and_bytes);
async fn another_teams_attachment_is_not_found_and_delete_removes_row_and_bytes(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let kept = env
        .attachments
        .upload(
            &env.team,
            run.id,
            tasks[0].id,
            upload("a.pdf"),
            &mut body(b"abc"),
        )
        .await
        .unwrap();
    let not_found = Err(DomainError::NotFound(Resource::Attachment));
    assert_eq!(env.attachments.get(env.other.id, kept.id).await, not_found);
    assert_eq!(
        env.attachments.delete(env.other.id, kept.id).await,
        Err(DomainError::NotFound(Resource::Attachment))
    );
    let missing = AttachmentId::from_uuid(Uuid::from_u128(9));
    assert_eq!(env.attachments.get(env.team.id, missing).await, not_found);
    let wrong_run = env
        .attachments
        .upload(
            &env.other,
            run.id,
            tasks[0].id,
            upload("a.pdf"),
            &mut body(b"abc"),
        )
        .await;
    assert_eq!(wrong_run.unwrap_err(), DomainError::NotFound(Resource::Run));

    let (found, _) = env.attachments.content(env.team.id, kept.id).await.unwrap();
    assert_eq!(found, kept);
    env.attachments.delete(env.team.id, kept.id).await.unwrap();
    assert_eq!(env.attachments.get(env.team.id, kept.id).await, not_found);
    assert!(env.files.list("teams").await.unwrap().is_empty());
    assert_eq!(
        env.attachments.delete(env.team.id, kept.id).await,
        Err(DomainError::NotFound(Resource::Attachment))
    );
}

conformance_test!(a_hidden_task_refuses_uploads_before_storing_a_byte);
async fn a_hidden_task_refuses_uploads_before_storing_a_byte(env: Env) {
    let template = published(&env, &env.team, onboarding()).await;
    let run = env
        .procflow
        .create_run(&env.team, start(&template))
        .await
        .unwrap();
    let tasks = env
        .store
        .list_tasks(env.team.id, run.id, page(100, None))
        .await
        .unwrap()
        .items;
    let hidden = tasks.iter().find(|t| t.hidden).unwrap().id;
    let refused = env
        .attachments
        .upload(
            &env.team,
            run.id,
            hidden,
            upload("a.pdf"),
            &mut body(b"abc"),
        )
        .await;
    assert!(
        matches!(refused, Err(DomainError::TaskHidden { .. })),
        "{refused:?}"
    );
    assert!(env.files.list("teams").await.unwrap().is_empty());
}

conformance_test!(a_comment_shows_its_tasks_attachments_until_they_are_deleted);
async fn a_comment_shows_its_tasks_attachments_until_they_are_deleted(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let (task, other_task) = (tasks[0].id, tasks[1].id);
    let attachment = env
        .attachments
        .upload(&env.team, run.id, task, upload("a.pdf"), &mut body(b"abc"))
        .await
        .unwrap();
    let elsewhere = env
        .attachments
        .upload(
            &env.team,
            run.id,
            other_task,
            upload("b.pdf"),
            &mut body(b"def"),
        )
        .await
        .unwrap();
    let said = |ids: Vec<AttachmentId>| AddComment {
        text: "see attached".to_owned(),
        actor_email: None,
        attachment_ids: ids,
    };
    let refused = env
        .comments
        .add(
            &env.team,
            run.id,
            task,
            said(vec![attachment.id, elsewhere.id]),
        )
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("attachment_ids[1]"),
        "{refused}"
    );
    let comment = env
        .comments
        .add(
            &env.team,
            run.id,
            task,
            said(vec![attachment.id, attachment.id]),
        )
        .await
        .unwrap();
    assert_eq!(comment.attachments, std::slice::from_ref(&attachment));
    let read = env
        .store
        .get_comment(env.team.id, comment.id)
        .await
        .unwrap();
    assert_eq!(read, comment);
    env.attachments
        .delete(env.team.id, attachment.id)
        .await
        .unwrap();
    let read = env
        .store
        .get_comment(env.team.id, comment.id)
        .await
        .unwrap();
    assert!(read.attachments.is_empty());
    let thread = env
        .comments
        .list(&env.team, run.id, task, page(10, None))
        .await
        .unwrap();
    assert!(thread.items[0].attachments.is_empty());
}

conformance_test!(the_sweep_removes_old_bytes_no_row_names_and_keeps_the_rest);
async fn the_sweep_removes_old_bytes_no_row_names_and_keeps_the_rest(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let kept = env
        .attachments
        .upload(
            &env.team,
            run.id,
            tasks[0].id,
            upload("a.pdf"),
            &mut body(b"abc"),
        )
        .await
        .unwrap();
    // Bytes whose row never committed, as a process that died between the two leaves them.
    let orphan = StorageKey::of_file(env.team.id, Uuid::now_v7());
    env.files.put(&orphan, &mut body(b"lost")).await.unwrap();
    let foreign = StorageKey::parse("teams/notes/readme").unwrap();
    env.files.put(&foreign, &mut body(b"kept")).await.unwrap();

    // The file store stamps objects with the wall clock; the service's clock is moved to it.
    env.clock
        .advance(time::OffsetDateTime::now_utc() - env.clock_now());
    let early = env.attachments.sweep().await.unwrap();
    assert_eq!(early.seen, 3);
    assert!(early.removed.is_empty(), "{early:?}");

    env.clock.advance(SWEEP_GRACE + time::Duration::minutes(1));
    let swept = env.attachments.sweep().await.unwrap();
    assert_eq!(swept.removed, std::slice::from_ref(&orphan));
    assert_eq!(read_all(&env, &kept.key()).await, b"abc");
    assert_eq!(read_all(&env, &foreign).await, b"kept");
    assert!(env.files.get(&orphan).await.is_err());
}
