//! The documents (sections and tasks) of published templates, kept by the process.
//!
//! A published template's document cannot change: an edit needs the template unpublished
//! (409 `template_published`), and publishing it again adds 1 to its version. So the document
//! read once for (template, version) holds for as long as the template's header, which every
//! read still fetches, says it is published at that version; a create then reads one row of the
//! template instead of three statements and its 50 tasks' elements. Bounded by tasks kept; a miss
//! reads the whole template once, as before.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use procflow_domain::ids::{TeamId, TemplateId};
use procflow_domain::template::{Section, TemplateTask};
use uuid::Uuid;

/// How many template tasks the process keeps, all templates together: a task with its form
/// fields is about a kilobyte in memory, so the cache stays within ten or so megabytes however
/// large the templates.
const TASKS_KEPT: usize = 10_000;

/// The document of one published version of a template.
#[derive(Debug, PartialEq)]
pub(crate) struct Document {
    pub version: i32,
    pub sections: Vec<Section>,
    pub tasks: Vec<TemplateTask>,
}

/// Documents by (team, template), and how many tasks they hold together.
#[derive(Default)]
pub(crate) struct Documents(Mutex<Kept>);

#[derive(Default)]
struct Kept {
    by_template: HashMap<(Uuid, Uuid), Arc<Document>>,
    tasks: usize,
}

impl Documents {
    /// The document kept for a template, whatever its version: the caller compares it with the
    /// header it read.
    pub(crate) fn get(&self, team: TeamId, template: TemplateId) -> Option<Arc<Document>> {
        self.kept()
            .by_template
            .get(&(team.as_uuid(), template.as_uuid()))
            .cloned()
    }

    /// Keeps the document of a template's published version, in place of any older one. Only
    /// call it with a document read while the template was published at `document.version`.
    pub(crate) fn keep(&self, team: TeamId, template: TemplateId, document: Document) {
        if document.tasks.len() > TASKS_KEPT {
            return;
        }
        let mut kept = self.kept();
        let key = (team.as_uuid(), template.as_uuid());
        kept.remove(&key);
        while kept.tasks + document.tasks.len() > TASKS_KEPT {
            // Any one goes: a miss costs one read of its template.
            let Some(evicted) = kept.by_template.keys().next().copied() else {
                break;
            };
            kept.remove(&evicted);
        }
        kept.tasks += document.tasks.len();
        kept.by_template.insert(key, Arc::new(document));
    }

    /// Forgets the document kept for a template (it is a draft now).
    pub(crate) fn forget(&self, team: TeamId, template: TemplateId) {
        self.kept().remove(&(team.as_uuid(), template.as_uuid()));
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Kept {
    /// Drops a template's document, and its tasks from the count.
    fn remove(&mut self, key: &(Uuid, Uuid)) {
        if let Some(old) = self.by_template.remove(key) {
            self.tasks -= old.tasks.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use procflow_domain::ids::{SectionId, TemplateTaskId};
    use procflow_domain::template::TaskType;

    fn document(version: i32, tasks: usize) -> Document {
        let section = SectionId::from_uuid(Uuid::new_v4());
        Document {
            version,
            sections: Vec::new(),
            tasks: (0..tasks)
                .map(|order| TemplateTask {
                    id: TemplateTaskId::from_uuid(Uuid::new_v4()),
                    reference: None,
                    depends_on: Vec::new(),
                    section_id: section,
                    title: format!("Task {order}"),
                    order: u32::try_from(order).unwrap_or(u32::MAX),
                    assignee: None,
                    is_essential: false,
                    task_type: TaskType::Task,
                    due_date: None,
                    webhook_enabled: false,
                    custom_elements: Vec::new(),
                    created_at: time::OffsetDateTime::UNIX_EPOCH,
                })
                .collect(),
        }
    }

    fn ids() -> (TeamId, TemplateId) {
        (
            TeamId::from_uuid(Uuid::new_v4()),
            TemplateId::from_uuid(Uuid::new_v4()),
        )
    }

    #[test]
    fn a_kept_document_is_found_and_a_newer_version_replaces_it() {
        let documents = Documents::default();
        let (team, template) = ids();
        assert!(documents.get(team, template).is_none());
        documents.keep(team, template, document(1, 3));
        assert_eq!(documents.get(team, template).map(|d| d.version), Some(1));
        documents.keep(team, template, document(2, 4));
        let kept = documents.get(team, template);
        assert_eq!(
            kept.as_ref().map(|d| (d.version, d.tasks.len())),
            Some((2, 4))
        );
        assert_eq!(documents.kept().tasks, 4);
        documents.forget(team, template);
        assert!(documents.get(team, template).is_none());
        assert_eq!(documents.kept().tasks, 0);
        // Another team's template of the same id is another entry.
        assert!(documents.get(ids().0, template).is_none());
    }

    #[test]
    fn the_tasks_kept_stay_within_the_bound() {
        let documents = Documents::default();
        let per = TASKS_KEPT / 4 + 1;
        let kept: Vec<_> = (0..8).map(|_| ids()).collect();
        for &(team, template) in &kept {
            documents.keep(team, template, document(1, per));
            assert!(documents.kept().tasks <= TASKS_KEPT);
        }
        let found = kept
            .iter()
            .filter(|&&(team, template)| documents.get(team, template).is_some())
            .count();
        assert_eq!(
            found, 3,
            "three documents of a quarter of the bound and one task fit"
        );
        // The last one kept is always there.
        let (team, template) = kept[7];
        assert!(documents.get(team, template).is_some());
        // A document larger than the whole bound is not kept.
        let (team, template) = ids();
        documents.keep(team, template, document(1, TASKS_KEPT + 1));
        assert!(documents.get(team, template).is_none());
    }
}
