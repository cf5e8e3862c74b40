//! `procflow-client` against the real app: it has a method for every operation of the served
//! document (same operation id, method and path), the README tour runs through it, and its
//! errors, ETags and streams are the API's.

use futures_util::TryStreamExt;
use procflow_client::wire::bodies::{
    CreateRunBody, ElementWriteBody, InviteBody, TaskUpdateBody, UpdateTaskBody, UpdateTasksBody,
};
use procflow_client::{Client, Error, OPERATIONS, PageRequest, WriteOptions, items};
use procflow_tests::{TestApp, unknown_id};
use serde_json::json;

fn client(app: &TestApp) -> Client {
    Client::new(app.base(), app.key.clone()).expect("a client")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_has_a_method_for_every_operation_of_the_served_document() {
    let app = TestApp::spawn().await;
    let document = client(&app).get_openapi().await.expect("the document");
    let mut served = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        // The guest pages are HTML for a browser, opened with a share token: no client
        // operations (procflow-client's README).
        if path.starts_with("/instance/") {
            continue;
        }
        for (method, operation) in item.as_object().expect("a path item") {
            let id = operation["operationId"].as_str().expect("an operation id");
            served.push((id.to_owned(), method.to_uppercase(), path.clone()));
        }
    }
    served.sort();
    let mut client: Vec<_> = OPERATIONS
        .iter()
        .map(|operation| {
            let method = operation.method.as_str().to_owned();
            (operation.id.to_owned(), method, operation.path.to_owned())
        })
        .collect();
    client.sort();
    assert_eq!(client, served);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_tour_runs_through_the_client() {
    let app = TestApp::spawn().await;
    let client = client(&app);
    let member = app.member.email.as_str().to_owned();

    // 1. The team's templates; the tasks of one.
    let templates = client.list_templates(PageRequest::default()).await.unwrap();
    let template = templates.data[0].id.to_string();
    assert_eq!(template, app.template.id);
    let tasks = client
        .list_template_tasks(&template, PageRequest::first(2))
        .await
        .unwrap();
    assert_eq!(tasks.data.len(), 2);
    assert!(tasks.pagination.has_more);

    // 2. Start a run attributed to the member.
    let run = client
        .create_run(
            &CreateRunBody {
                template_id: template.clone(),
                name: Some("Onboarding: Ada".into()),
                actor_email: Some(member.clone()),
                ..CreateRunBody::default()
            },
            &WriteOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(run.title, "Onboarding: Ada");
    let run = run.id.to_string();

    // The inbox finds the run's open tasks across runs, each with its run.
    let inbox = client
        .list_tasks(&procflow_client::wire::params::InboxQuery {
            limit: Some("100".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(inbox.data.iter().any(|item| item.run.id.to_string() == run));
    assert!(
        inbox
            .data
            .iter()
            .filter(|item| item.run.id.to_string() == run)
            .all(|item| item.run.title == "Onboarding: Ada")
    );

    // 3. Its tasks; complete the first and fill in its "Full name" in the same request.
    let tasks = client
        .list_run_tasks(&run, PageRequest::default())
        .await
        .unwrap();
    let first = &tasks.data[0];
    let name = first
        .custom_elements
        .views()
        .expect("a client reads views")
        .iter()
        .find(|element| element.label == "Full name")
        .expect("a Full name field")
        .id
        .to_string();
    let task = first.id.to_string();
    let done = client
        .update_run_task(
            &run,
            &task,
            &UpdateTaskBody {
                completed: Some(true),
                actor_email: Some(member.clone()),
                custom_elements: vec![ElementWriteBody {
                    id: name,
                    value: json!("Ada Lovelace"),
                }],
                ..UpdateTaskBody::default()
            },
            &WriteOptions::default(),
        )
        .await
        .unwrap();
    assert!(done.base.completed);

    // 4. Change it only if nobody did since it was read: its ETag in If-Match, and a stale one
    // refused with 412. (The run's runner, the member, has the task already: assign it to
    // someone outside the team, so that it changes.)
    let read = client.get_run_task(&run, &task).await.unwrap();
    let tag = read.etag.clone().expect("an ETag");
    let assign = UpdateTaskBody {
        assignee: Some(Some("ada@example.org".into())),
        ..UpdateTaskBody::default()
    };
    let assigned = client
        .update_run_task(
            &run,
            &task,
            &assign,
            &WriteOptions::default().if_match(&tag),
        )
        .await
        .unwrap();
    assert!(assigned.base.assignee.is_some());
    assert_ne!(assigned.etag.as_deref(), Some(tag.as_str()));
    let stale = client
        .update_run_task(
            &run,
            &task,
            &assign,
            &WriteOptions::default().if_match(&tag),
        )
        .await
        .unwrap_err();
    assert_eq!(stale.code(), Some("precondition_failed"), "{stale}");

    // 5. Several tasks in one request, with an Idempotency-Key that replays the answer.
    let batch = UpdateTasksBody {
        tasks: tasks.data[1..3]
            .iter()
            .map(|task| TaskUpdateBody {
                id: task.id.to_string(),
                completed: Some(true),
                ..TaskUpdateBody::default()
            })
            .collect(),
        actor_email: None,
    };
    let keyed = WriteOptions::default().idempotency_key("tour-batch");
    let updated = client.update_run_tasks(&run, &batch, &keyed).await.unwrap();
    assert_eq!(updated.len(), 2);
    assert!(updated.iter().all(|task| task.base.completed));
    let replayed = client.update_run_tasks(&run, &batch, &keyed).await.unwrap();
    assert_eq!(replayed, updated);

    // 6. Share the run with a guest.
    let shared = client
        .invite_guest(
            &run,
            &InviteBody {
                email: Some("ada@example.org".into()),
                ..InviteBody::default()
            },
            &WriteOptions::default(),
        )
        .await
        .unwrap();
    assert!(shared.is_shared);
    assert!(
        shared
            .share_url
            .contains(&format!("/instance/{run}?token="))
    );
    assert_eq!(shared.invited_email.as_deref(), Some("ada@example.org"));

    // 10. Attach a file to a task, list it, download it back, delete it.
    let bytes = b"%PDF-1.7 signed \"contract\"\r\n--boundary?".to_vec();
    let none = WriteOptions::default();
    let attached = client
        .upload_task_attachment(
            &run,
            &task,
            "contract.pdf",
            "application/pdf",
            &bytes,
            &none,
        )
        .await
        .unwrap();
    assert_eq!(attached.filename, "contract.pdf");
    assert_eq!(attached.size, bytes.len() as u64);
    let listed = client
        .list_task_attachments(&run, &task, PageRequest::default())
        .await
        .unwrap();
    assert_eq!(listed.data, std::slice::from_ref(&attached));
    let id = attached.id.to_string();
    assert_eq!(client.download_attachment(&id).await.unwrap(), bytes);
    client.delete_attachment(&id, &none).await.unwrap();
    assert!(client.download_attachment(&id).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_is_the_typed_error_with_the_api_code_and_request_id() {
    let app = TestApp::spawn().await;
    let error = client(&app).get_run(&unknown_id()).await.unwrap_err();
    match &error {
        Error::Api {
            status,
            code,
            message,
            request_id,
            ..
        } => {
            assert_eq!(status.as_u16(), 404);
            assert_eq!(code, "not_found");
            assert!(message.contains("run"), "{message}");
            assert!(request_id.as_deref().is_some_and(|id| !id.is_empty()));
        }
        other => panic!("not the API's error: {other:?}"),
    }
    let unauthorized = Client::new(app.base(), "pf_live_nonsense")
        .unwrap()
        .list_templates(PageRequest::default())
        .await
        .unwrap_err();
    assert_eq!(unauthorized.code(), Some("unauthorized"));
    // The key never shows in the client's Debug.
    assert!(!format!("{:?}", client(&app)).contains(&app.key));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_streams_every_item_page_by_page() {
    let app = TestApp::spawn().await;
    let client = client(&app);
    let template = app.template.id.clone();
    let all: Vec<_> = items(PageRequest::first(1), |page| {
        client.list_template_tasks(&template, page)
    })
    .try_collect()
    .await
    .unwrap();
    let titles: Vec<_> = all.iter().map(|task| task.title.to_string()).collect();
    assert_eq!(
        titles,
        [
            "Collect documents",
            "Manager approval",
            "Say hello",
            "Team lunch"
        ]
    );
}
