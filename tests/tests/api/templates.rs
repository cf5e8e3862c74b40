//! Templates: the list and single shapes (spec 2.2, 2.3), template tasks (2.4), authoring,
//! publishing and versions (API contract 5).

use procflow_tests::{
    RUN_FIELDS, TEMPLATE_FIELDS, TEMPLATE_LIST_FIELDS, TEMPLATE_SECTION_FIELDS,
    TEMPLATE_TASK_FIELDS, TestApp, assert_keys, element_fields, sized_document, timestamp,
};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listing_templates_shows_each_in_the_list_shape() {
    let app = TestApp::spawn().await;
    let (items, next_cursor, has_more) = app.get("/api/v1/process-templates").await.list();
    assert_eq!(items.len(), 1);
    assert!(!has_more);
    let item = &items[0];
    assert_keys(item, TEMPLATE_LIST_FIELDS);
    assert_eq!(next_cursor.as_deref(), item["id"].as_str());
    assert_eq!(item["id"], app.template.id.as_str());
    assert_eq!(item["title"], "Employee onboarding");
    assert_eq!(item["description"], "First days of a new colleague");
    assert_eq!(item["cover_image"], "https://example.com/cover.png");
    assert_eq!(item["icon"], "🚀");
    assert_eq!(item["icon_type"], "emoji");
    assert_eq!(item["visibility"], "team");
    assert_eq!(item["is_published"], true);
    assert_eq!(item["version"], 1);
    timestamp(&item["created_at"]);
    timestamp(&item["updated_at"]);
    let sections = item["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 2);
    for (i, section) in sections.iter().enumerate() {
        assert_keys(section, TEMPLATE_SECTION_FIELDS);
        assert_eq!(section["order"], i);
    }
    assert_eq!(sections[0]["title"], "Before day one");
    assert_eq!(sections[0]["description"], "Paperwork");
    assert_eq!(sections[0]["color"], "#EC4899");
    assert_eq!(sections[1]["description"], serde_json::Value::Null);
    assert_eq!(sections[1]["color"], serde_json::Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn getting_a_template_shows_only_the_fields_of_get_a_template() {
    let app = TestApp::spawn().await;
    let template = app
        .get(&format!("/api/v1/process-templates/{}", app.template.id))
        .await
        .data(200);
    assert_keys(&template, TEMPLATE_FIELDS);
    assert_eq!(template["id"], app.template.id.as_str());
    assert_eq!(template["title"], "Employee onboarding");
    assert_eq!(template["is_published"], true);
    assert_eq!(template["version"], 1);
    let sections = template["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 2);
    for section in sections {
        assert_keys(section, TEMPLATE_SECTION_FIELDS);
    }
    assert!(timestamp(&template["updated_at"]) >= timestamp(&template["created_at"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn template_tasks_have_the_fields_of_spec_2_4_in_order_with_their_elements() {
    let app = TestApp::spawn().await;
    let (tasks, _, has_more) = app
        .get(&format!(
            "/api/v1/process-templates/{}/tasks",
            app.template.id
        ))
        .await
        .list();
    assert!(!has_more);
    let titles: Vec<_> = tasks.iter().map(|t| t["title"].clone()).collect();
    assert_eq!(
        titles,
        [
            "Collect documents",
            "Manager approval",
            "Say hello",
            "Team lunch"
        ]
    );
    let template = app
        .get(&format!("/api/v1/process-templates/{}", app.template.id))
        .await
        .data(200);
    let sections = &template["sections"];
    for (i, task) in tasks.iter().enumerate() {
        assert_keys(task, TEMPLATE_TASK_FIELDS);
        assert_eq!(task["order"], i);
        assert_eq!(task["completed"], false);
        timestamp(&task["created_at"]);
        let section = if i < 2 { &sections[0] } else { &sections[1] };
        assert_eq!(task["section_id"], section["id"]);
        for element in task["custom_elements"].as_array().unwrap() {
            let element_type = element["type"].as_str().unwrap();
            assert_keys(element, &element_fields(element_type));
        }
    }
    let collect = &tasks[0];
    assert_eq!(collect["is_essential"], true);
    assert_eq!(collect["type"], "task");
    assert_eq!(collect["assignee"], "runner");
    assert_eq!(collect["webhook_enabled"], true);
    assert_eq!(
        collect["due_date"],
        json!({"type": "relative", "from": "run_start", "offset": "P3D"})
    );
    let elements = collect["custom_elements"].as_array().unwrap();
    assert_eq!(elements.len(), 4);
    assert_eq!(elements[0]["type"], "shortText");
    assert_eq!(elements[0]["label"], "Full name");
    assert_eq!(elements[0]["required"], true);
    assert_eq!(elements[0]["display_only"], false);
    assert_eq!(elements[0]["value"], serde_json::Value::Null);
    assert_eq!(elements[1]["options"], json!(["Eng", "Sales"]));
    assert_eq!(elements[2]["display_only"], true);
    assert_eq!(elements[2]["value"], "<p>Hello</p>");
    assert_eq!(elements[3]["file_url"], "https://example.com/h.pdf");
    assert_eq!(elements[3]["display_only"], true);

    let approval = &tasks[1];
    assert_eq!(approval["type"], "approval");
    assert_eq!(approval["is_essential"], false);
    assert_eq!(approval["assignee"], serde_json::Value::Null);
    assert_eq!(approval["due_date"], serde_json::Value::Null);
    assert_eq!(approval["webhook_enabled"], false);
    assert_eq!(approval["custom_elements"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creating_a_template_answers_201_with_an_unpublished_draft_of_version_0() {
    let app = TestApp::spawn().await;
    let reply = app
        .post("/api/v1/process-templates", &sized_document("Draft", 2))
        .await;
    let created = reply.data(201);
    assert_keys(&created, TEMPLATE_FIELDS);
    assert_eq!(created["title"], "Draft");
    assert_eq!(created["description"], serde_json::Value::Null);
    assert_eq!(created["is_published"], false);
    assert_eq!(created["version"], 0);
    procflow_tests::uuid(&created["id"]);
    let listed = app.all("/api/v1/process-templates").await;
    assert!(listed.iter().any(|t| t["id"] == created["id"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publishing_adds_one_to_the_version_and_publishing_again_does_not() {
    let app = TestApp::spawn().await;
    let created = app.create_template(&sized_document("Versions", 1)).await;
    let id = created["id"].as_str().unwrap();
    let path = format!("/api/v1/process-templates/{id}/publish");

    let published = app.post(&path, &json!({"published": true})).await.data(200);
    assert_keys(&published, TEMPLATE_FIELDS);
    assert_eq!(published["is_published"], true);
    assert_eq!(published["version"], 1);

    let again = app.post(&path, &json!({"published": true})).await.data(200);
    assert_eq!(again["is_published"], true);
    assert_eq!(
        again["version"], 1,
        "publishing a published template is a no-op"
    );

    let unpublished = app
        .post(&path, &json!({"published": false}))
        .await
        .data(200);
    assert_eq!(unpublished["is_published"], false);
    assert_eq!(unpublished["version"], 1);

    let republished = app.post(&path, &json!({"published": true})).await.data(200);
    assert_eq!(republished["version"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publishing_a_template_without_tasks_is_refused() {
    let app = TestApp::spawn().await;
    let created = app
        .create_template(&json!({"title": "Empty", "sections": [{"title": "Nothing yet"}]}))
        .await;
    let id = created["id"].as_str().unwrap();
    app.post(
        &format!("/api/v1/process-templates/{id}/publish"),
        &json!({"published": true}),
    )
    .await
    .error(409, "template_has_no_task");
    let template = app
        .get(&format!("/api/v1/process-templates/{id}"))
        .await
        .data(200);
    assert_eq!(template["is_published"], false);
    assert_eq!(template["version"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_published_template_cannot_be_replaced_until_it_is_unpublished() {
    let app = TestApp::spawn().await;
    let path = format!("/api/v1/process-templates/{}", app.template.id);
    let message = app
        .put(&path, &sized_document("Edited", 1))
        .await
        .error(409, "template_published");
    assert!(message.contains("unpublish"), "{message}");
    let unchanged = app.get(&path).await.data(200);
    assert_eq!(unchanged["title"], "Employee onboarding");

    app.post(&format!("{path}/publish"), &json!({"published": false}))
        .await
        .data(200);
    let replaced = app.put(&path, &sized_document("Edited", 1)).await.data(200);
    assert_keys(&replaced, TEMPLATE_FIELDS);
    assert_eq!(replaced["id"], app.template.id.as_str());
    assert_eq!(replaced["title"], "Edited");
    assert_eq!(replaced["version"], 1);
    let (tasks, _, _) = app.get(&format!("{path}/tasks")).await.list();
    assert_eq!(tasks.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replacing_a_draft_keeps_the_ids_given_in_the_document() {
    let app = TestApp::spawn().await;
    let path = format!("/api/v1/process-templates/{}", app.template.id);
    app.post(&format!("{path}/publish"), &json!({"published": false}))
        .await
        .data(200);
    let task_id = app.template.task_id("Say hello");
    let element_id = app.template.element_id("Say hello", "Done");
    let document = json!({"title": "Kept ids", "sections": [{"title": "Only", "tasks": [
        {"id": task_id, "title": "Say hello again", "custom_elements": [
            {"id": element_id, "type": "checkbox", "label": "Done again"}]}]}]});
    app.put(&path, &document).await.data(200);
    let (tasks, _, _) = app.get(&format!("{path}/tasks")).await.list();
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0]["id"], task_id.as_str());
    assert_eq!(tasks[0]["title"], "Say hello again");
    assert_eq!(tasks[0]["custom_elements"][0]["id"], element_id.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_template_answers_204_and_removes_it_but_not_its_runs() {
    let app = TestApp::spawn().await;
    let run_id = app.start_demo_run().await;
    let path = format!("/api/v1/process-templates/{}", app.template.id);
    let reply = app.delete(&path).await;
    reply.assert_status(204);
    reply.assert_request_id();
    assert!(reply.text.is_empty(), "204 has no body: {:?}", reply.text);

    app.get(&path).await.error(404, "not_found");
    app.get(&format!("{path}/tasks"))
        .await
        .error(404, "not_found");
    app.delete(&path).await.error(404, "not_found");
    let (templates, _, _) = app.get("/api/v1/process-templates").await.list();
    assert!(templates.is_empty(), "{templates:?}");
    app.post(
        "/api/v1/process-runs",
        &json!({"template_id": app.template.id}),
    )
    .await
    .error(404, "not_found");

    let run = app.run(&run_id).await;
    assert_keys(&run, RUN_FIELDS);
    assert_eq!(run["template_id"], app.template.id.as_str());
    assert_eq!(app.run_tasks(&run_id).await.len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_authoring_document_is_refused_naming_the_field() {
    let app = TestApp::spawn().await;
    let cases = [
        (json!({"sections": []}), "title"),
        (
            json!({"title": "T", "sections": [{"title": "S", "tasks": [{"title": "X", "type": "chore"}]}]}),
            "sections[0].tasks[0].type",
        ),
        (
            json!({"title": "T", "sections": [{"title": "S", "colour": "#FFFFFF"}]}),
            "sections[0]",
        ),
        (
            json!({"title": "T", "sections": [{"title": "S", "tasks": [{"title": "X",
                "custom_elements": [{"type": "dropdown", "label": "D", "options": "Eng"}]}]}]}),
            "sections[0].tasks[0].custom_elements[0].options",
        ),
    ];
    for (document, field) in cases {
        let message = app
            .post("/api/v1/process-templates", &document)
            .await
            .error(400, "validation_error");
        assert!(message.contains(field), "{field} not named in {message:?}");
    }
    let (templates, _, _) = app.get("/api/v1/process-templates").await.list();
    assert_eq!(templates.len(), 1, "nothing was created");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_due_date_rule_names_its_type_by_name() {
    let app = TestApp::spawn().await;
    for (rule, accepted) in [
        (json!({"type": "fixed", "at": "2027-01-04T09:00:00Z"}), true),
        // serde would read a variant's index as the tag: found by make fuzz.
        (json!({"type": 0, "at": "2027-01-04T09:00:00Z"}), false),
        (
            json!({"type": "fixed", "at": "2027-01-04T09:00:00Z", "offset": "P1D"}),
            false,
        ),
    ] {
        let document = json!({"title": "Due", "sections": [{"title": "S", "tasks": [
            {"title": "T", "due_date": rule}]}]});
        let reply = app.post("/api/v1/process-templates", &document).await;
        if accepted {
            reply.data(201);
        } else {
            let message = reply.error(400, "validation_error");
            assert!(
                message.contains("sections[0].tasks[0].due_date"),
                "{rule}: {message}"
            );
        }
    }
}
