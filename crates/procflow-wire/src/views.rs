//! Response bodies: one view per resource shape of spec 2, built from the domain's values by
//! borrowing (`From<&Run>` and so on: the server copies no text to answer) and read by a
//! client as owned values (`RunView<'static>`).

mod attachment;
mod comment;
mod element;
mod element_list;
#[cfg(test)]
mod fixtures;
mod inbox;
mod run;
mod run_link;
mod schedule;
mod share;
mod task;
mod template;
mod webhook;
mod written;

pub use attachment::{AttachmentView, content_path};
pub use comment::CommentView;
pub use element::{ElementView, elements};
pub use element_list::{ElementList, ListElements};
pub use inbox::{InboxRunView, InboxTaskView};
pub use run::{CreatedRunView, RunSectionView, RunView};
pub use run_link::RunLinkView;
pub use schedule::{ScheduleErrorView, ScheduleView};
pub use share::ShareResultView;
pub use task::{RunTaskListView, RunTaskView, TemplateTaskView};
pub use template::{SectionView, TemplateListView, TemplateView};
pub use webhook::{DeliveryView, WebhookView, WebhookWithSecretView};
pub use written::{WriteJson, write_json};
