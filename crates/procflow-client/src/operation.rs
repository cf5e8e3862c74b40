//! The operations the client calls, one constant each, as the OpenAPI document names them:
//! its `operationId`, method and path. Every method of [`crate::Client`] requests the path of
//! its constant, and [`OPERATIONS`] lists them all, so a test can hold the client to the
//! served document (`tests/tests/api/client.rs`): an operation without a method, or a method
//! with another path or method, fails it.
//!
//! The guest pages (`/instance/...`) are no client operations: they are HTML for a browser,
//! opened from a share link, with the share token as their credential, not an API key.

use reqwest::Method;

/// One operation of the API.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// Its `operationId`.
    pub id: &'static str,
    /// Its HTTP method.
    pub method: Method,
    /// Its path, with `{name}` parameters, as in the document.
    pub path: &'static str,
}

macro_rules! operations {
    ($($name:ident = $method:ident $path:literal $id:literal;)+) => {
        $(pub(crate) const $name: Operation = Operation {
            id: $id,
            method: Method::$method,
            path: $path,
        };)+

        /// Every operation the client has a method for.
        pub const OPERATIONS: &[Operation] = &[$($name),+];

        /// The constants' names, for the test that each is called by one method.
        #[cfg(test)]
        const NAMES: &[&str] = &[$(stringify!($name)),+];
    };
}

operations! {
    LIST_TEMPLATES = GET "/api/v1/process-templates" "listTemplates";
    CREATE_TEMPLATE = POST "/api/v1/process-templates" "createTemplate";
    GET_TEMPLATE = GET "/api/v1/process-templates/{id}" "getTemplate";
    REPLACE_TEMPLATE = PUT "/api/v1/process-templates/{id}" "replaceTemplate";
    ARCHIVE_TEMPLATE = DELETE "/api/v1/process-templates/{id}" "archiveTemplate";
    LIST_TEMPLATE_TASKS = GET "/api/v1/process-templates/{id}/tasks" "listTemplateTasks";
    PUBLISH_TEMPLATE = POST "/api/v1/process-templates/{id}/publish" "publishTemplate";
    LIST_RUNS = GET "/api/v1/process-runs" "listRuns";
    CREATE_RUN = POST "/api/v1/process-runs" "createRun";
    GET_RUN = GET "/api/v1/process-runs/{id}" "getRun";
    INVITE_GUEST = POST "/api/v1/process-runs/{id}/invite" "inviteGuest";
    STOP_SHARING = DELETE "/api/v1/process-runs/{id}/invite" "stopSharing";
    LIST_RUN_TASKS = GET "/api/v1/process-runs/{id}/tasks" "listRunTasks";
    UPDATE_RUN_TASKS = PATCH "/api/v1/process-runs/{id}/tasks" "updateRunTasks";
    GET_RUN_TASK = GET "/api/v1/process-runs/{id}/tasks/{task_id}" "getRunTask";
    UPDATE_RUN_TASK = PATCH "/api/v1/process-runs/{id}/tasks/{task_id}" "updateRunTask";
    LIST_TASKS = GET "/api/v1/tasks" "listTasks";
    LIST_TASK_COMMENTS = GET "/api/v1/process-runs/{id}/tasks/{task_id}/comments" "listTaskComments";
    CREATE_TASK_COMMENT = POST "/api/v1/process-runs/{id}/tasks/{task_id}/comments" "createTaskComment";
    UPDATE_COMMENT = PATCH "/api/v1/comments/{id}" "updateComment";
    DELETE_COMMENT = DELETE "/api/v1/comments/{id}" "deleteComment";
    LIST_TASK_ATTACHMENTS = GET "/api/v1/process-runs/{id}/tasks/{task_id}/attachments" "listTaskAttachments";
    UPLOAD_TASK_ATTACHMENT = POST "/api/v1/process-runs/{id}/tasks/{task_id}/attachments" "uploadTaskAttachment";
    DOWNLOAD_ATTACHMENT = GET "/api/v1/attachments/{id}/content" "downloadAttachment";
    DELETE_ATTACHMENT = DELETE "/api/v1/attachments/{id}" "deleteAttachment";
    LIST_WEBHOOKS = GET "/api/v1/webhooks" "listWebhooks";
    CREATE_WEBHOOK = POST "/api/v1/webhooks" "createWebhook";
    GET_WEBHOOK = GET "/api/v1/webhooks/{id}" "getWebhook";
    UPDATE_WEBHOOK = PATCH "/api/v1/webhooks/{id}" "updateWebhook";
    DELETE_WEBHOOK = DELETE "/api/v1/webhooks/{id}" "deleteWebhook";
    ROTATE_WEBHOOK_SECRET = POST "/api/v1/webhooks/{id}/rotate-secret" "rotateWebhookSecret";
    TEST_WEBHOOK = POST "/api/v1/webhooks/{id}/test" "testWebhook";
    LIST_WEBHOOK_DELIVERIES = GET "/api/v1/webhooks/{id}/deliveries" "listWebhookDeliveries";
    REDELIVER_WEBHOOK = POST "/api/v1/webhook-deliveries/{id}/redeliver" "redeliverWebhook";
    LIST_EVENTS = GET "/api/v1/events" "listEvents";
    GET_RUN_LINK = GET "/api/v1/process-templates/{id}/run-link" "getRunLink";
    ENABLE_RUN_LINK = POST "/api/v1/process-templates/{id}/run-link" "enableRunLink";
    DISABLE_RUN_LINK = DELETE "/api/v1/process-templates/{id}/run-link" "disableRunLink";
    LIST_SCHEDULES = GET "/api/v1/schedules" "listSchedules";
    CREATE_SCHEDULE = POST "/api/v1/schedules" "createSchedule";
    GET_SCHEDULE = GET "/api/v1/schedules/{id}" "getSchedule";
    UPDATE_SCHEDULE = PATCH "/api/v1/schedules/{id}" "updateSchedule";
    DELETE_SCHEDULE = DELETE "/api/v1/schedules/{id}" "deleteSchedule";
    GET_OPENAPI = GET "/api/v1/openapi.json" "getOpenApi";
    LIVENESS = GET "/healthz" "liveness";
    READINESS = GET "/readyz" "readiness";
}

impl Operation {
    /// Its path with `params` in place of its `{name}` parameters, in order, each one path
    /// segment (percent-encoded by the URL).
    pub(crate) fn segments<'a>(&self, params: &[&'a str]) -> Vec<&'a str>
    where
        'static: 'a,
    {
        let mut params = params.iter();
        self.path
            .split('/')
            .filter(|segment| !segment.is_empty())
            .map(|segment| {
                if segment.starts_with('{') {
                    // A missing parameter is a bug of this crate's methods, caught by its
                    // tests; an empty segment keeps the request on a path that answers 404.
                    params.next().copied().unwrap_or("")
                } else {
                    segment
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_fill_the_path_in_order() {
        assert_eq!(
            UPDATE_RUN_TASK.segments(&["r", "t"]),
            ["api", "v1", "process-runs", "r", "tasks", "t"]
        );
        assert_eq!(LIVENESS.segments(&[]), ["healthz"]);
    }

    #[test]
    fn every_operation_is_called_by_exactly_one_method() {
        // The methods' source: the served-document test holds the constants to the document,
        // this holds each constant to one method that requests its path.
        let methods = [
            include_str!("operations/attachments.rs"),
            include_str!("operations/comments.rs"),
            include_str!("operations/meta.rs"),
            include_str!("operations/run_links.rs"),
            include_str!("operations/runs.rs"),
            include_str!("operations/schedules.rs"),
            include_str!("operations/tasks.rs"),
            include_str!("operations/templates.rs"),
            include_str!("operations/webhooks.rs"),
        ]
        .concat();
        // Without whitespace: rustfmt breaks long calls anywhere.
        let methods: String = methods.split_whitespace().collect();
        for name in NAMES {
            let calls = methods.matches(&format!("self.call(&{name},")).count()
                + methods.matches(&format!("self.call_raw(&{name},")).count();
            assert_eq!(calls, 1, "{name} is called by {calls} methods");
        }
    }

    #[test]
    fn every_operation_is_listed_once() {
        let mut ids: Vec<_> = OPERATIONS.iter().map(|operation| operation.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), OPERATIONS.len());
        assert_eq!(OPERATIONS.len(), 46);
    }
}
