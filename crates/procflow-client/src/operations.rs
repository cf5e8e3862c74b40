//! One method per operation of the API, by resource; the views they answer, as owned values.

mod attachments;
mod comments;
mod meta;
mod run_links;
mod runs;
mod schedules;
mod tasks;
mod templates;
mod webhooks;

use procflow_wire::views;

/// A template (`getTemplate` and the writes).
pub type Template = views::TemplateView<'static>;
/// An item of `listTemplates`.
pub type TemplateListItem = views::TemplateListView<'static>;
/// A task of a template.
pub type TemplateTask = views::TemplateTaskView<'static>;
/// A run.
pub type Run = views::RunView<'static>;
/// The answer of `createRun`.
pub type CreatedRun = views::CreatedRunView<'static>;
/// A run task, whole (`getRunTask` and the writes).
pub type RunTask = views::RunTaskView<'static>;
/// An item of `listRunTasks`.
pub type RunTaskListItem = views::RunTaskListView<'static>;
/// A task of the inbox: a run task with its run's id and title.
pub type InboxTask = views::InboxTaskView<'static>;
/// The answer of `inviteGuest`.
pub type ShareResult = views::ShareResultView<'static>;
/// A comment on a task.
pub type Comment = views::CommentView<'static>;
/// A file attached to a task.
pub type Attachment = views::AttachmentView;
/// A webhook endpoint.
pub type Webhook = views::WebhookView<'static>;
/// A webhook endpoint with its secret (created, or its secret rotated).
pub type WebhookWithSecret = views::WebhookWithSecretView<'static>;
/// A delivery of an event to an endpoint.
pub type Delivery = views::DeliveryView<'static>;
/// A schedule.
pub type Schedule = views::ScheduleView;
/// A template's run link.
pub type RunLink = views::RunLinkView;
/// An event of the feed (`listEvents`): the envelope a webhook posts.
pub type Event = procflow_wire::events::Envelope;

/// No body: the type of `body` for operations that send none.
pub(crate) const NO_BODY: Option<&()> = None;
