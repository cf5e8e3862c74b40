//! `procflow mcp` (API contract 15.3) driven by an independent MCP client, the official
//! Python SDK (`scripts/mcp-drive.py`, in the virtualenv `scripts/ensure-mcp.sh` makes at
//! `target/tools/mcp`), against a real `procflow serve`: the tools listed with their schemas,
//! a run started, its task found in `my_tasks` and completed with a value, an API refusal as a
//! tool error with its code and message, and a read key given only the read tools.

use std::io::BufRead;
use std::path::Path;
use std::process::Command;

use procflow_postgres::testing::migrated_database;
use serde_json::Value;

use super::support::{
    admin, create_team, demo_template, run, serve_with_json_logs, serving_address, text,
};

const READ_TOOLS: [&str; 6] = [
    "get_run",
    "get_template",
    "list_run_tasks",
    "list_runs",
    "list_templates",
    "my_tasks",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_client_drives_procflow_through_the_api() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = std::env::var_os("PROCFLOW_MCP_PYTHON")
        .map_or_else(|| root.join("target/tools/mcp/bin/python"), Into::into);
    assert!(
        python.exists(),
        "{} is missing: run scripts/ensure-mcp.sh (make test does)",
        python.display()
    );
    let db = migrated_database().await;
    let admin = admin(&db);
    let team = create_team(&admin, "Acme", "boss@acme.example").await;
    let team = text(&team, "team_id").to_owned();
    let key = |scope: &'static str| {
        let (admin, team) = (&admin, team.clone());
        async move {
            let args = [
                "create-api-key",
                "--team",
                &team,
                "--admin-email",
                "boss@acme.example",
                "--scope",
                scope,
            ];
            text(&run(admin, &args).await, "key").to_owned()
        }
    };
    let (write_key, read_key) = (key("write").await, key("read").await);
    let file = demo_template();
    let template = run(
        &admin,
        &[
            "import-template",
            "--team",
            &team,
            file.to_str().unwrap(),
            "--publish",
        ],
    )
    .await;
    let template = text(&template, "template_id").to_owned();

    let (_serving, stderr) = serve_with_json_logs(db.url(), &[]);
    let mut lines = std::io::BufReader::new(stderr).lines();
    let address = serving_address(&mut lines, &mut Vec::new());
    // Drain the server's logs so that it never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));

    let output = Command::new(&python)
        .arg(root.join("scripts/mcp-drive.py"))
        .env("PROCFLOW_BIN", env!("CARGO_BIN_EXE_procflow"))
        .env("PROCFLOW_API_URL", format!("http://{address}"))
        .env("WRITE_KEY", &write_key)
        .env("READ_KEY", &read_key)
        .env("TEMPLATE_ID", &template)
        .env("ACTOR_EMAIL", "boss@acme.example")
        .output()
        .expect("the MCP driver runs");
    assert!(
        output.status.success(),
        "the driver failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_slice(&output.stdout).expect("the driver's JSON");

    let mut all: Vec<&str> = READ_TOOLS.to_vec();
    all.extend(["comment_on_task", "share_run", "start_run", "update_task"]);
    all.sort_unstable();
    assert_eq!(seen["write_tools"], serde_json::json!(all));
    assert_eq!(seen["read_tools"], serde_json::json!(READ_TOOLS));
    // The schemas are the API's: the body's fields, the path's ids, the inbox's filters.
    let update = &seen["schemas"]["update_task"];
    assert_eq!(update["required"], serde_json::json!(["run_id", "task_id"]));
    for field in [
        "completed",
        "custom_elements",
        "assignee",
        "if_match",
        "validate_only",
    ] {
        assert!(update["properties"][field].is_object(), "{field}: {update}");
    }
    let inbox = &seen["schemas"]["my_tasks"]["properties"];
    for field in [
        "assignee",
        "status",
        "overdue",
        "due_before",
        "cursor",
        "limit",
    ] {
        assert!(inbox[field].is_object(), "{field}: {inbox}");
    }

    assert_eq!(seen["start_error"], false);
    assert_eq!(seen["run_title"], "Via MCP");
    assert_eq!(seen["inbox_run_titles"], serde_json::json!(["Via MCP"]));
    assert_eq!(seen["update_error"], false);
    assert_eq!(seen["completed"], true);
    assert_eq!(seen["value"], "Ada Lovelace");
    assert_eq!(seen["comment_error"], false);
    assert_eq!(seen["comment_text"], "Filled in via MCP");
    assert_eq!(
        seen["schemas"]["comment_on_task"]["required"],
        serde_json::json!(["run_id", "task_id", "text"])
    );
    assert_eq!(seen["refused_is_error"], true);
    assert_eq!(seen["refused"]["error"]["status"], 400);
    assert_eq!(seen["refused"]["error"]["code"], "validation_error");
    let message = seen["refused"]["error"]["message"].as_str().unwrap();
    assert!(message.contains("email"), "{message}");
    assert_eq!(seen["missing"]["error"]["code"], "not_found");
}
