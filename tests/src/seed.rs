//! Template documents the tests author through the API, and what a seeded template looks like.

use serde_json::{Value, json};

/// A template created and published through the API, with its tasks as the API lists them.
#[derive(Clone, Debug, Default)]
pub struct Seeded {
    /// The template's id.
    pub id: String,
    /// The template as the publish answer shows it.
    pub template: Value,
    /// Its tasks, in order, as `GET /process-templates/:id/tasks` lists them.
    pub tasks: Vec<Value>,
}

impl Seeded {
    /// The template task with this title.
    #[must_use]
    #[track_caller]
    pub fn task(&self, title: &str) -> &Value {
        self.tasks
            .iter()
            .find(|t| t["title"] == title)
            .unwrap_or_else(|| panic!("the template has no task {title:?}"))
    }

    /// The id of the template task with this title.
    #[must_use]
    #[track_caller]
    pub fn task_id(&self, title: &str) -> String {
        self.task(title)["id"].as_str().expect("task id").to_owned()
    }

    /// The id of the element labelled `label` on the task titled `task`.
    #[must_use]
    #[track_caller]
    pub fn element_id(&self, task: &str, label: &str) -> String {
        self.task(task)["custom_elements"]
            .as_array()
            .expect("custom_elements")
            .iter()
            .find(|e| e["label"] == label)
            .and_then(|e| e["id"].as_str())
            .unwrap_or_else(|| panic!("task {task:?} has no element {label:?}"))
            .to_owned()
    }
}

/// The demo template: two sections, four tasks (an essential one assigned to the runner with a
/// due date and a webhook, an approval, two plain ones), elements of several types.
#[must_use]
pub fn demo_document() -> Value {
    json!({
        "title": "Employee onboarding",
        "description": "First days of a new colleague",
        "cover_image": "https://example.com/cover.png",
        "icon": "🚀",
        "icon_type": "emoji",
        "sections": [
            {"title": "Before day one", "description": "Paperwork", "color": "#EC4899", "tasks": [
                {"title": "Collect documents", "type": "task", "is_essential": true,
                 "assignee": "runner", "webhook_enabled": true,
                 "due_date": {"type": "relative", "from": "run_start", "offset": "P3D"},
                 "custom_elements": [
                    {"type": "shortText", "label": "Full name", "required": true},
                    {"type": "dropdown", "label": "Department", "options": ["Eng", "Sales"]},
                    {"type": "text", "label": "Welcome", "value": "<p>Hello</p>"},
                    {"type": "file", "label": "Handbook", "file_url": "https://example.com/h.pdf"}]},
                {"title": "Manager approval", "type": "approval"}]},
            {"title": "Day one", "tasks": [
                {"title": "Say hello", "custom_elements": [
                    {"type": "checkbox", "label": "Done"},
                    {"type": "multichoice", "label": "Tools", "options": ["Git", "Jira"]}]},
                {"title": "Team lunch"}]}
        ]
    })
}

/// The options of the dropdown and multichoice elements of [`every_element_document`].
pub const OPTIONS: [&str; 3] = ["Eng", "Sales", "R&D"];

/// A template of one task, "Fill everything", with one element of each of the 14 types, each
/// labelled with its type name.
#[must_use]
pub fn every_element_document() -> Value {
    json!({
        "title": "Every field",
        "sections": [{"title": "Form", "tasks": [
            {"title": "Fill everything", "custom_elements": [
                {"type": "shortText", "label": "shortText"},
                {"type": "longText", "label": "longText"},
                {"type": "number", "label": "number"},
                {"type": "email", "label": "email"},
                {"type": "website", "label": "website"},
                {"type": "date", "label": "date"},
                {"type": "checkbox", "label": "checkbox"},
                {"type": "dropdown", "label": "dropdown", "options": OPTIONS},
                {"type": "multichoice", "label": "multichoice", "options": OPTIONS},
                {"type": "text", "label": "text", "value": "<p>Read me</p>"},
                {"type": "image", "label": "image", "value": "https://example.com/i.png"},
                {"type": "video", "label": "video", "value": "https://example.com/v.mp4"},
                {"type": "file", "label": "file", "file_url": "https://example.com/f.pdf"},
                {"type": "lineBreak", "label": "lineBreak"}]}]}]
    })
}

/// A template titled `title` of `tasks` plain, non-essential tasks in one section.
#[must_use]
pub fn sized_document(title: &str, tasks: usize) -> Value {
    let tasks: Vec<Value> = (0..tasks)
        .map(|t| json!({"title": format!("Task {t}")}))
        .collect();
    json!({"title": title, "sections": [{"title": "All", "tasks": tasks}]})
}

/// The onboarding of issue 19 (process logic): "Ship a laptop" only for remote hires (the
/// Profile's "Remote?"), "Git access" only in Eng ("Department"), and "Grant production
/// access" after the security training and the manager's approval.
#[must_use]
pub fn logic_document() -> Value {
    json!({
        "title": "Employee onboarding",
        "sections": [{"title": "First week", "tasks": [
            {"ref": "profile", "title": "Profile", "custom_elements": [
                {"ref": "remote", "type": "checkbox", "label": "Remote?"},
                {"ref": "department", "type": "dropdown", "label": "Department",
                 "options": ["Eng", "Sales"]}]},
            {"ref": "ship-laptop", "title": "Ship a laptop"},
            {"ref": "security-training", "title": "Security training"},
            {"ref": "manager-approval", "title": "Manager approval", "type": "approval"},
            {"ref": "grant-access", "title": "Grant production access",
             "depends_on": ["security-training", "manager-approval"]},
            {"ref": "git-access", "title": "Git access"}]}],
        "rules": [
            {"if": {"element": "remote", "is": "equal", "value": true}, "show": ["ship-laptop"]},
            {"if": {"element": "department", "is": "equal", "value": "Eng"},
             "show": ["git-access"]}]
    })
}
