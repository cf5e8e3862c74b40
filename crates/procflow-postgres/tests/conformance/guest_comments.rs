//! The guest's comments (API contract 14.1, 7.1): written through the share link as the guest,
//! with the API's events, on any visible task of the run, theirs or not; read back as the
//! guest page shows them, hidden tasks' threads left out.

use procflow_domain::actor::{Actor, Assignee};
use procflow_domain::error::{DomainError, Resource};
use procflow_domain::event::EventPayload;
use procflow_domain::service::{AddComment, UpdateTask};
use procflow_domain::sharing::Invitation;
use procflow_domain::values::{Limit, PageRequest, ShareToken};

use super::env::{Env, conformance_test};
use super::logic::onboarding;
use super::support::{Started, invite_outsider, published, start, started};

conformance_test!(the_guest_comments_through_the_link_with_the_apis_events);
async fn the_guest_comments_through_the_link_with_the_apis_events(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let shared = invite_outsider(&env, run.id).await;
    // Someone else's task: the guest may not act on it, but may talk about it.
    let task = tasks[1].id;
    env.procflow
        .update_task(
            &env.team,
            run.id,
            task,
            UpdateTask {
                assignee: Some(Some(Assignee::Email("out@side.example".parse().unwrap()))),
                ..UpdateTask::default()
            },
        )
        .await
        .unwrap();
    let wrong = ShareToken::from_link("not-the-token").unwrap();
    assert_eq!(
        env.comments
            .add_as_guest(run.id, &wrong, task, "hello")
            .await
            .unwrap_err(),
        DomainError::NotFound(Resource::Run)
    );
    let blank = env
        .comments
        .add_as_guest(run.id, &shared.token, task, " \r\n ")
        .await;
    assert!(
        matches!(blank, Err(DomainError::Validation(_))),
        "{blank:?}"
    );
    let comment = env
        .comments
        .add_as_guest(
            run.id,
            &shared.token,
            task,
            "Signed <b>copy</b>\r\nattached, @member@a.example",
        )
        .await
        .unwrap();
    assert_eq!(comment.author, Actor::Guest);
    assert_eq!(
        comment.author_email.as_ref().map(|e| e.as_str()),
        Some("guest@outside.example")
    );
    assert_eq!(
        comment.text,
        "Signed <b>copy</b>\nattached, @member@a.example"
    );
    assert_eq!(comment.mentions.len(), 1);

    let events = env.events().await;
    let created: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::CommentCreated { comment } => Some(comment),
            _ => None,
        })
        .collect();
    assert_eq!(created.len(), 1);
    assert_eq!(created[0].author, Actor::Guest);
    assert_eq!(created[0].id, comment.id);
    let notices: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::CommentNotice { email, .. } => Some(email.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(notices, ["member@a.example", "out@side.example"]);

    // Another task of another run is not found through this link.
    let other = started(&env).await;
    assert_eq!(
        env.comments
            .add_as_guest(run.id, &shared.token, other.tasks[0].id, "hi")
            .await
            .unwrap_err(),
        DomainError::NotFound(Resource::Task)
    );
    // Unshared, the link writes nothing.
    env.procflow.stop_sharing(&env.team, run.id).await.unwrap();
    assert_eq!(
        env.comments
            .add_as_guest(run.id, &shared.token, task, "still there?")
            .await
            .unwrap_err(),
        DomainError::NotFound(Resource::Run)
    );
}

conformance_test!(the_guest_page_shows_visible_threads_with_their_authors_named);
async fn the_guest_page_shows_visible_threads_with_their_authors_named(env: Env) {
    let template = published(&env, &env.team, onboarding()).await;
    let run = env
        .procflow
        .create_run(&env.team, start(&template))
        .await
        .unwrap();
    let shared = env
        .procflow
        .invite_guest(&env.team, run.id, Invitation::default())
        .await
        .unwrap();
    let page = env
        .procflow
        .open_shared_run(run.id, &shared.token)
        .await
        .unwrap();
    let hidden = page.tasks.iter().find(|t| t.hidden).unwrap().id;
    let (first, second) = (page.tasks[0].id, page.tasks[2].id);
    let said = |text: &str, by: Option<&str>| AddComment {
        text: text.to_owned(),
        actor_email: by.map(|e| e.parse().unwrap()),
        attachment_ids: Vec::new(),
    };
    let by_member = env
        .comments
        .add(
            &env.team,
            run.id,
            second,
            said("from the team", Some("member@a.example")),
        )
        .await
        .unwrap();
    let by_api = env
        .comments
        .add(&env.team, run.id, first, said("from a script", None))
        .await
        .unwrap();
    let by_guest = env
        .comments
        .add_as_guest(run.id, &shared.token, first, "from the guest")
        .await
        .unwrap();
    let refused = env
        .comments
        .add_as_guest(run.id, &shared.token, hidden, "on a hidden task")
        .await;
    assert!(
        matches!(refused, Err(DomainError::TaskHidden { .. })),
        "{refused:?}"
    );
    let deleted = env.comments.delete(&env.team, by_api.id).await.unwrap();

    let threads = env.comments.guest_threads(&page).await.unwrap();
    assert!(!threads.truncated);
    let shown: Vec<(&str, &str)> = threads
        .comments
        .iter()
        .map(|c| (c.author.as_str(), c.comment.text.as_str()))
        .collect();
    assert_eq!(
        shown,
        [
            ("member@a.example", "from the team"),
            ("API", ""),
            ("Guest", "from the guest"),
        ],
        "oldest first, the deleted one without its text"
    );
    let first_thread: Vec<_> = threads.of_task(first).map(|c| c.comment.id).collect();
    assert_eq!(first_thread, [deleted.id, by_guest.id]);
    assert_eq!(threads.of_task(second).count(), 1);
    assert_eq!(threads.comments[0].comment, by_member);
    assert_eq!(threads.of_task(hidden).count(), 0);
}

conformance_test!(the_latest_comments_of_a_run_come_oldest_first);
async fn the_latest_comments_of_a_run_come_oldest_first(env: Env) {
    let Started { run, tasks, .. } = started(&env).await;
    let mut written = Vec::new();
    for (n, task) in [0, 1, 0, 2].into_iter().enumerate() {
        let comment = env
            .comments
            .add(
                &env.team,
                run.id,
                tasks[task].id,
                AddComment {
                    text: format!("comment {n}"),
                    ..AddComment::default()
                },
            )
            .await
            .unwrap();
        written.push(comment);
    }
    let latest = env
        .store
        .latest_run_comments(env.team.id, run.id, 3)
        .await
        .unwrap();
    assert_eq!(latest, written[1..]);
    let all = env
        .store
        .latest_run_comments(env.team.id, run.id, 10)
        .await
        .unwrap();
    assert_eq!(all, written);
    assert!(
        env.store
            .latest_run_comments(env.other.id, run.id, 10)
            .await
            .unwrap()
            .is_empty(),
        "another team's run has none"
    );
    let page = PageRequest {
        limit: Limit::new(10).unwrap(),
        cursor: None,
    };
    let thread = env
        .comments
        .list(&env.team, run.id, tasks[0].id, page)
        .await
        .unwrap();
    assert_eq!(thread.items, [written[0].clone(), written[2].clone()]);
}
