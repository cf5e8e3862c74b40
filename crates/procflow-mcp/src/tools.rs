//! The tools: each one operation of the REST API, named by its `operationId` in the document
//! the server serves. A tool's input schema is built from that operation (its path and query
//! parameters and its JSON body, `schema`), so nothing of it is written here a second time.
//! Adding a tool is one row.

/// One tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: &'static str,
    /// The operation it calls.
    pub operation_id: &'static str,
    /// Path parameters under a clearer name for an agent (`id` is a run's or a template's).
    pub renames: &'static [(&'static str, &'static str)],
    /// Whether it only reads (a read key is given only these).
    pub reads: bool,
    /// What it is for, before the operation's own description.
    pub purpose: &'static str,
}

/// Every tool, in the order they are listed.
pub const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "list_templates",
        operation_id: "listTemplates",
        renames: &[],
        reads: true,
        purpose: "List the team's process templates (a page; pass next_cursor as cursor for more).",
    },
    ToolSpec {
        name: "get_template",
        operation_id: "getTemplate",
        renames: &[("id", "template_id")],
        reads: true,
        purpose: "Get one template with its sections, tasks and form fields.",
    },
    ToolSpec {
        name: "start_run",
        operation_id: "createRun",
        renames: &[],
        reads: false,
        purpose: "Start a run of a published template, optionally pre-filling form fields.",
    },
    ToolSpec {
        name: "list_runs",
        operation_id: "listRuns",
        renames: &[],
        reads: true,
        purpose: "List the team's runs, newest first.",
    },
    ToolSpec {
        name: "get_run",
        operation_id: "getRun",
        renames: &[("id", "run_id")],
        reads: true,
        purpose: "Get one run.",
    },
    ToolSpec {
        name: "list_run_tasks",
        operation_id: "listRunTasks",
        renames: &[("id", "run_id")],
        reads: true,
        purpose: "List a run's tasks in order, with their state and form values.",
    },
    ToolSpec {
        name: "my_tasks",
        operation_id: "listTasks",
        renames: &[],
        reads: true,
        purpose: "The inbox: tasks across all runs, by due date; filter by assignee, status, \
                  overdue, due dates, template or run status.",
    },
    ToolSpec {
        name: "update_task",
        operation_id: "updateRunTask",
        renames: &[("id", "run_id")],
        reads: false,
        purpose: "Update a task: complete or reopen, skip, fill in form fields, assign, decide an \
                  approval; with if_match (an ETag read before), only if unchanged since.",
    },
    ToolSpec {
        name: "share_run",
        operation_id: "inviteGuest",
        renames: &[("id", "run_id")],
        reads: false,
        purpose: "Share a run with a guest by link, optionally inviting them by email.",
    },
    ToolSpec {
        name: "comment_on_task",
        operation_id: "createTaskComment",
        renames: &[("id", "run_id")],
        reads: false,
        purpose: "Comment on a task of a run (plain text; @email mentions an active member, who \
                  is emailed, as is the task's assignee).",
    },
];
