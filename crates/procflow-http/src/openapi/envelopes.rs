//! The envelopes of spec 2.1 around each view, as named schemas: `{ "data": <object> }` and
//! `{ "data": [...], "pagination": {...} }`. Only described, never built: the handlers answer
//! through [`crate::views::data`] and [`crate::views::list`], whose shapes these are.

use utoipa::ToSchema;

use crate::views::{AttachmentView, CommentView};
use crate::views::{
    CreatedRunView, DeliveryView, InboxTaskView, Pagination, RunLinkView, RunTaskListView,
    RunTaskView, RunView, ScheduleView, ShareResultView, TemplateListView, TemplateTaskView,
    TemplateView, WebhookView, WebhookWithSecretView,
};

macro_rules! single {
    ($(#[$doc:meta])* $name:ident, $view:ty) => {
        $(#[$doc])*
        #[derive(ToSchema)]
        #[allow(dead_code, reason = "a schema only")]
        pub(crate) struct $name {
            data: $view,
        }
    };
}

macro_rules! list {
    ($(#[$doc:meta])* $name:ident, $view:ty) => {
        $(#[$doc])*
        #[derive(ToSchema)]
        #[allow(dead_code, reason = "a schema only")]
        pub(crate) struct $name {
            data: Vec<$view>,
            pagination: Pagination,
        }
    };
}

single!(
    /// `{"data": Template}`
    TemplateData,
    TemplateView<'static>
);
list!(
    /// A page of templates.
    TemplateList,
    TemplateListView<'static>
);
list!(
    /// A page of a template's tasks, by order.
    TemplateTaskList,
    TemplateTaskView<'static>
);
single!(
    /// `{"data": Run}`
    RunData,
    RunView<'static>
);
single!(
    /// `{"data": CreatedRun}`
    CreatedRunData,
    CreatedRunView<'static>
);
list!(
    /// A page of runs, newest first.
    RunList,
    RunView<'static>
);
list!(
    /// A page of a run's tasks, by order.
    RunTaskList,
    RunTaskListView<'static>
);
list!(
    /// A page of the inbox: tasks across runs, by due date (none last) then id.
    InboxTaskList,
    InboxTaskView<'static>
);
single!(
    /// `{"data": RunTask}`
    RunTaskData,
    RunTaskView<'static>
);
single!(
    /// `{"data": [RunTask, ...]}`: the tasks of a batch update, in the order given.
    RunTaskBatch,
    Vec<RunTaskView<'static>>
);
single!(
    /// `{"data": ShareResult}`
    ShareResultData,
    ShareResultView<'static>
);
single!(
    /// `{"data": Webhook}`
    WebhookData,
    WebhookView<'static>
);
single!(
    /// `{"data": WebhookWithSecret}`
    WebhookWithSecretData,
    WebhookWithSecretView<'static>
);
list!(
    /// A page of webhook endpoints, oldest first.
    WebhookList,
    WebhookView<'static>
);
single!(
    /// `{"data": Delivery}`
    DeliveryData,
    DeliveryView<'static>
);
list!(
    /// A page of an endpoint's deliveries, newest first.
    DeliveryList,
    DeliveryView<'static>
);
list!(
    /// A page of the team's events, oldest first.
    EventList,
    super::webhooks::Envelope
);
single!(
    /// `{"data": Schedule}`
    ScheduleData,
    ScheduleView
);
list!(
    /// A page of schedules, oldest first.
    ScheduleList,
    ScheduleView
);

single!(
    /// `{"data": Comment}`
    CommentData,
    CommentView<'static>
);

list!(
    /// `{"data": [Comment], "pagination": {...}}`
    CommentList,
    CommentView<'static>
);

single!(
    /// `{"data": Attachment}`
    AttachmentData,
    AttachmentView
);

list!(
    /// `{"data": [Attachment], "pagination": {...}}`
    AttachmentList,
    AttachmentView
);

single!(
    /// `{"data": RunLink}`
    RunLinkData,
    RunLinkView
);
