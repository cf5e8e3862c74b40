//! Process logic over HTTP (API contract 12): authoring rules and dependencies, reading them
//! back on templates and runs, and every refusal of a document naming its rule or task.

use procflow_tests::{TestApp, logic_document};
use serde_json::{Value, json};

/// The onboarding of the issue (`procflow_tests::logic_document`).
pub fn onboarding() -> Value {
    logic_document()
}

/// A started run of the onboarding: its id and the template's tasks.
pub struct Onboarding {
    pub run: String,
    pub template_tasks: Vec<Value>,
}

impl Onboarding {
    /// Publishes the onboarding and starts a run with `prefill` (element ref and value, all
    /// on the Profile task).
    pub async fn start(app: &TestApp, prefill: &[(&str, Value)]) -> Self {
        let seeded = app.seed_published(&onboarding()).await;
        let profile = &seeded.tasks[0];
        let elements: Vec<Value> = prefill
            .iter()
            .map(|(element, value)| {
                let element_id = profile["custom_elements"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|e| e["ref"] == *element)
                    .unwrap()["id"]
                    .clone();
                json!({"task_id": profile["id"], "element_id": element_id, "value": value})
            })
            .collect();
        let run = app
            .start_run(&json!({"template_id": seeded.id, "custom_elements": elements}))
            .await;
        Self {
            run: run["id"].as_str().unwrap().to_owned(),
            template_tasks: seeded.tasks,
        }
    }

    /// The run's tasks now, in order.
    pub async fn tasks(&self, app: &TestApp) -> Vec<Value> {
        app.run_tasks(&self.run).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_shows_its_rules_and_dependencies_by_id_and_its_refs() {
    let app = TestApp::spawn().await;
    let created = app.create_template(&onboarding()).await;
    let id = created["id"].as_str().unwrap();
    let template = app
        .get(&format!("/api/v1/process-templates/{id}"))
        .await
        .data(200);
    let tasks = app
        .all(&format!("/api/v1/process-templates/{id}/tasks"))
        .await;
    let refs: Vec<&Value> = tasks.iter().map(|t| &t["ref"]).collect();
    assert_eq!(
        refs,
        [
            "profile",
            "ship-laptop",
            "security-training",
            "manager-approval",
            "grant-access",
            "git-access"
        ]
    );
    assert_eq!(
        tasks[4]["depends_on"],
        json!([tasks[2]["id"], tasks[3]["id"]])
    );
    assert_eq!(tasks[0]["depends_on"], json!([]));
    let remote = &tasks[0]["custom_elements"][0];
    assert_eq!(remote["ref"], "remote");
    assert_eq!(
        template["rules"],
        json!([
            {"if": {"element": remote["id"], "is": "equal", "value": true},
             "show": [tasks[1]["id"]], "hide": []},
            {"if": {"element": tasks[0]["custom_elements"][1]["id"], "is": "equal",
                    "value": "Eng"},
             "show": [tasks[5]["id"]], "hide": []}
        ])
    );
    assert_eq!(created["rules"], template["rules"]);

    // What GET answers is a document PUT takes back (ids are references too): the same rules.
    let mut document = onboarding();
    for (t, task) in tasks.iter().enumerate() {
        document["sections"][0]["tasks"][t]["id"] = task["id"].clone();
    }
    document["rules"] = template["rules"].clone();
    for rule in document["rules"].as_array_mut().unwrap() {
        rule.as_object_mut().unwrap().remove("hide");
    }
    document["sections"][0]["tasks"][0]["custom_elements"][0]["id"] = remote["id"].clone();
    document["sections"][0]["tasks"][0]["custom_elements"][1]["id"] =
        tasks[0]["custom_elements"][1]["id"].clone();
    let replaced = app
        .put(&format!("/api/v1/process-templates/{id}"), &document)
        .await
        .data(200);
    assert_eq!(replaced["rules"], template["rules"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_shows_its_rules_and_each_tasks_dependencies_and_flags() {
    let app = TestApp::spawn().await;
    let onboarding = Onboarding::start(&app, &[("remote", json!(true))]).await;
    let run = app.run(&onboarding.run).await;
    let tasks = onboarding.tasks(&app).await;
    assert_eq!(run["rules"][0]["show"], json!([tasks[1]["id"]]));
    assert_eq!(run["rules"][1]["show"], json!([tasks[5]["id"]]));
    assert_eq!(
        run["rules"][0]["if"]["element"],
        onboarding.template_tasks[0]["custom_elements"][0]["id"]
    );
    let flags: Vec<(&Value, &Value, &Value)> = tasks
        .iter()
        .map(|t| (&t["ref"], &t["hidden"], &t["blocked"]))
        .collect();
    assert_eq!(
        flags,
        [
            (&json!("profile"), &json!(false), &json!(false)),
            (&json!("ship-laptop"), &json!(false), &json!(false)),
            (&json!("security-training"), &json!(false), &json!(false)),
            (&json!("manager-approval"), &json!(false), &json!(false)),
            (&json!("grant-access"), &json!(false), &json!(true)),
            (&json!("git-access"), &json!(true), &json!(false)),
        ]
    );
    assert_eq!(
        tasks[4]["depends_on"],
        json!([tasks[2]["id"], tasks[3]["id"]])
    );
    let single = app
        .get(&format!(
            "/api/v1/process-runs/{}/tasks/{}",
            onboarding.run,
            tasks[5]["id"].as_str().unwrap()
        ))
        .await
        .data(200);
    assert_eq!(
        (&single["hidden"], &single["ref"]),
        (&json!(true), &json!("git-access"))
    );

    // A template without logic: no rules, no flags.
    let plain = app.start_demo_run().await;
    assert_eq!(app.run(&plain).await["rules"], json!([]));
    assert!(
        app.run_tasks(&plain)
            .await
            .iter()
            .all(|t| t["hidden"] == false && t["blocked"] == false && t["ref"].is_null())
    );
}

/// Every refusal of a document with logic: its field and a part of its message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_invalid_document_is_a_400_naming_the_rule_or_the_task() {
    let app = TestApp::spawn().await;
    type Edit = fn(&mut Value);
    let cases: Vec<(&str, &str, Edit)> = vec![
        (
            "sections[0].tasks[4].depends_on[0]",
            "no task of the document has the ref or id \"training\"",
            |d| d["sections"][0]["tasks"][4]["depends_on"][0] = json!("training"),
        ),
        (
            "rules[0].show[0]",
            "no task of the document has the ref or id \"laptop\"",
            |d| d["rules"][0]["show"][0] = json!("laptop"),
        ),
        (
            "rules[1].if.element",
            "no element of the document has the ref or id \"dept\"",
            |d| d["rules"][1]["if"]["element"] = json!("dept"),
        ),
        (
            "sections[0].tasks[5].ref",
            "ref \"ship-laptop\" is also the ref of task \"Ship a laptop\"",
            |d| d["sections"][0]["tasks"][5]["ref"] = json!("ship-laptop"),
        ),
        (
            "sections[0].tasks[1].custom_elements[0].ref",
            "is also the ref of element \"Remote?\"",
            |d| {
                d["sections"][0]["tasks"][1]["custom_elements"] =
                    json!([{"ref": "remote", "type": "number", "label": "Cost"}]);
            },
        ),
        ("rules[0].if", "is display-only", |d| {
            d["sections"][0]["tasks"][0]["custom_elements"][0] =
                json!({"ref": "remote", "type": "text", "label": "Hi", "value": "<p>Hi</p>"});
            d["rules"][0]["if"] = json!({"element": "remote", "is": "set"});
        }),
        ("rules[0].if", "expected a boolean", |d| {
            d["rules"][0]["if"]["value"] = json!("yes");
        }),
        (
            "rules[1].if",
            "\"HR\" is not an allowed option; allowed options: \"Eng\", \"Sales\"",
            |d| d["rules"][1]["if"]["value"] = json!("HR"),
        ),
        (
            "rules[1].if",
            "greater_than does not apply to element \"Department\"",
            |d| d["rules"][1]["if"]["is"] = json!("greater_than"),
        ),
        (
            "rules[0].show[0]",
            "is the task that holds element \"Remote?\"",
            |d| d["rules"][0]["show"][0] = json!("profile"),
        ),
        (
            "rules[0].hide[0]",
            "comes before the task holding element \"Score\"",
            |d| {
                d["sections"][0]["tasks"][2]["custom_elements"] =
                    json!([{"ref": "score", "type": "number", "label": "Score"}]);
                d["rules"][0] = json!({"if": {"element": "score", "is": "less_than", "value": 5},
                                      "hide": ["ship-laptop"]});
            },
        ),
        (
            "sections[0].tasks[2].depends_on",
            "cycle: \"Security training\" → \"Grant production access\" → \"Security training\"",
            |d| d["sections"][0]["tasks"][2]["depends_on"] = json!(["grant-access"]),
        ),
        (
            "sections[0].tasks[4].depends_on[0]",
            "task \"Grant production access\" cannot depend on itself",
            |d| d["sections"][0]["tasks"][4]["depends_on"] = json!(["grant-access"]),
        ),
        ("rules[0].if", "holds 1 to 20 conditions, not 0", |d| {
            d["rules"][0]["if"] = json!({"all": []});
        }),
        ("sections[0].tasks[1].ref", "is not a ref", |d| {
            d["sections"][0]["tasks"][1]["ref"] = json!("Ship Laptop");
        }),
    ];
    let created = app.create_template(&onboarding()).await;
    let put = format!(
        "/api/v1/process-templates/{}",
        created["id"].as_str().unwrap()
    );
    for (field, part, edit) in cases {
        let mut document = onboarding();
        edit(&mut document);
        for reply in [
            app.post("/api/v1/process-templates", &document).await,
            app.put(&put, &document).await,
        ] {
            let message = reply.error(400, "validation_error");
            assert!(
                message.starts_with(&format!("{field}: ")) && message.contains(part),
                "{field}: {message}"
            );
        }
    }
}
