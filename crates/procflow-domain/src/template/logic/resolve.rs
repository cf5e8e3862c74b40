//! The checks of a document's logic (API contract 12.1): references resolved to ids, refs
//! unique, dependencies without self-reference or cycle, and rules whose conditions fit their
//! elements and that only show or hide tasks after the ones they read. Every refusal names
//! the path at fault: the task (`sections[0].tasks[2].depends_on[0]`) or the rule
//! (`rules[3].show[1]`).

use std::collections::HashMap;

use super::graph::find_cycle;
use super::operators::check;
use super::{Condition, MAX_RULES, Rule, RuleDocument, TemplateRule, When};
use crate::element::CustomElement;
use crate::error::ValidationError;
use crate::ids::{ElementId, TemplateTaskId};
use crate::template::TemplateTask;

/// What the document said of each built task that only the whole template can check: its path
/// and its `depends_on` references, in the order of the template's tasks.
#[derive(Default)]
pub(crate) struct LogicSources {
    tasks: Vec<(String, Vec<String>)>,
}

impl LogicSources {
    /// Records the next task's path and its `depends_on`.
    pub(crate) fn task(&mut self, path: String, depends_on: Vec<String>) {
        self.tasks.push((path, depends_on));
    }
}

/// The tasks and elements of a document, by `ref` and by id.
struct Names<'t> {
    tasks: &'t [TemplateTask],
    paths: Vec<&'t str>,
    task_refs: HashMap<&'t str, usize>,
    task_ids: HashMap<TemplateTaskId, usize>,
    element_refs: HashMap<&'t str, (usize, usize)>,
    element_ids: HashMap<ElementId, (usize, usize)>,
}

/// Resolves the document's dependencies into `tasks` and its rules into the template's.
pub(crate) fn resolve(
    tasks: &mut [TemplateTask],
    sources: LogicSources,
    rules: Vec<RuleDocument>,
) -> Result<Vec<TemplateRule>, ValidationError> {
    let (edges, rules) = {
        let names = Names::of(tasks, &sources)?;
        let edges = names.dependencies(&sources)?;
        if let Some(cycle) = find_cycle(&edges) {
            let titles: Vec<String> = cycle
                .iter()
                .map(|&t| format!("{:?}", tasks[t].title))
                .collect();
            return Err(at(
                &format!("{}.depends_on", names.paths[cycle[0]]),
                format!(
                    "the dependencies form a cycle: {} (each waits for the next)",
                    titles.join(" → ")
                ),
            ));
        }
        (edges, names.rules(rules)?)
    };
    let ids: Vec<TemplateTaskId> = tasks.iter().map(|t| t.id).collect();
    for (task, edges) in tasks.iter_mut().zip(edges) {
        task.depends_on = edges.into_iter().map(|p| ids[p]).collect();
    }
    Ok(rules)
}

impl<'t> Names<'t> {
    fn of(tasks: &'t [TemplateTask], sources: &'t LogicSources) -> Result<Self, ValidationError> {
        let paths: Vec<&str> = sources.tasks.iter().map(|(p, _)| p.as_str()).collect();
        let mut names = Self {
            tasks,
            paths,
            task_refs: HashMap::new(),
            task_ids: HashMap::with_capacity(tasks.len()),
            element_refs: HashMap::new(),
            element_ids: HashMap::new(),
        };
        for (t, task) in tasks.iter().enumerate() {
            names.task_ids.insert(task.id, t);
            if let Some(name) = &task.reference {
                if let Some(&first) = names.task_refs.get(name.as_str()) {
                    return Err(at(
                        &format!("{}.ref", names.paths[t]),
                        format!(
                            "ref {:?} is also the ref of task {:?} ({})",
                            name.as_str(),
                            tasks[first].title,
                            names.paths[first]
                        ),
                    ));
                }
                names.task_refs.insert(name.as_str(), t);
            }
            for (e, element) in task.custom_elements.iter().enumerate() {
                names.element_ids.insert(element.id, (t, e));
                if let Some(name) = &element.reference {
                    if let Some(&(ft, fe)) = names.element_refs.get(name.as_str()) {
                        return Err(at(
                            &format!("{}.custom_elements[{e}].ref", names.paths[t]),
                            format!(
                                "ref {:?} is also the ref of element {} ({}.custom_elements[{fe}])",
                                name.as_str(),
                                tasks[ft].custom_elements[fe].name(),
                                names.paths[ft]
                            ),
                        ));
                    }
                    names.element_refs.insert(name.as_str(), (t, e));
                }
            }
        }
        Ok(names)
    }

    /// The task a reference names: its `ref` first, else its id.
    fn task(&self, reference: &str) -> Option<usize> {
        self.task_refs.get(reference).copied().or_else(|| {
            reference
                .parse::<TemplateTaskId>()
                .ok()
                .and_then(|id| self.task_ids.get(&id).copied())
        })
    }

    /// The element a reference names, as (task, element) positions.
    fn element(&self, reference: &str) -> Option<(usize, usize)> {
        self.element_refs.get(reference).copied().or_else(|| {
            reference
                .parse::<ElementId>()
                .ok()
                .and_then(|id| self.element_ids.get(&id).copied())
        })
    }

    fn custom_element(&self, (t, e): (usize, usize)) -> &'t CustomElement {
        &self.tasks[t].custom_elements[e]
    }

    fn title(&self, t: usize) -> String {
        format!("{:?}", self.tasks[t].title)
    }

    /// Each task's prerequisites, by position.
    fn dependencies(&self, sources: &LogicSources) -> Result<Vec<Vec<usize>>, ValidationError> {
        let mut all = Vec::with_capacity(self.tasks.len());
        for (t, (path, references)) in sources.tasks.iter().enumerate() {
            let mut prerequisites: Vec<usize> = Vec::with_capacity(references.len());
            for (k, reference) in references.iter().enumerate() {
                let field = format!("{path}.depends_on[{k}]");
                let p = self
                    .task(reference)
                    .ok_or_else(|| unknown_task(&field, reference))?;
                if p == t {
                    return Err(at(
                        &field,
                        format!("task {} cannot depend on itself", self.title(t)),
                    ));
                }
                if prerequisites.contains(&p) {
                    return Err(at(&field, format!("task {} is named twice", self.title(p))));
                }
                prerequisites.push(p);
            }
            all.push(prerequisites);
        }
        Ok(all)
    }

    fn rules(&self, rules: Vec<RuleDocument>) -> Result<Vec<TemplateRule>, ValidationError> {
        if rules.len() > MAX_RULES {
            return Err(at(
                "rules",
                format!(
                    "a template has at most {MAX_RULES} rules, not {}",
                    rules.len()
                ),
            ));
        }
        rules
            .iter()
            .enumerate()
            .map(|(i, rule)| self.rule(&format!("rules[{i}]"), rule))
            .collect()
    }

    fn rule(&self, path: &str, rule: &RuleDocument) -> Result<TemplateRule, ValidationError> {
        let condition_paths: Vec<String> = match &rule.when {
            When::One(_) => vec![format!("{path}.if")],
            When::All(all) => (0..all.len())
                .map(|j| format!("{path}.if.all[{j}]"))
                .collect(),
            When::Any(any) => (0..any.len())
                .map(|j| format!("{path}.if.any[{j}]"))
                .collect(),
        };
        // The latest task whose element the rule reads: it may only name tasks after it.
        let mut reads: Option<(usize, usize)> = None;
        for (condition, cpath) in rule.when.conditions().iter().zip(&condition_paths) {
            let found = self.condition(cpath, condition)?;
            if reads.is_none_or(|(t, _)| found.0 > t) {
                reads = Some(found);
            }
        }
        let Some(reads) = reads else {
            return Err(at(&format!("{path}.if"), "holds no condition"));
        };
        if rule.show.is_empty() && rule.hide.is_empty() {
            return Err(at(path, "a rule shows or hides at least one task"));
        }
        let mut named: Vec<usize> = Vec::new();
        let mut target = |list: &str, k: usize, reference: &String| {
            let field = format!("{path}.{list}[{k}]");
            let t = self
                .task(reference)
                .ok_or_else(|| unknown_task(&field, reference))?;
            if named.contains(&t) {
                return Err(at(
                    &field,
                    format!("task {} is named twice by the rule", self.title(t)),
                ));
            }
            if t <= reads.0 {
                let (which, relation) = if t == reads.0 {
                    ("its own", "is the task that holds")
                } else {
                    ("an earlier", "comes before the task holding")
                };
                return Err(at(
                    &field,
                    format!(
                        "task {} {relation} element {}, which the rule reads: a rule only shows \
                         or hides tasks after the ones whose values it reads (not {which} task)",
                        self.title(t),
                        self.custom_element(reads).name(),
                    ),
                ));
            }
            named.push(t);
            Ok(self.tasks[t].id)
        };
        let show = rule
            .show
            .iter()
            .enumerate()
            .map(|(k, r)| target("show", k, r))
            .collect::<Result<Vec<_>, _>>()?;
        let hide = rule
            .hide
            .iter()
            .enumerate()
            .map(|(k, r)| target("hide", k, r))
            .collect::<Result<Vec<_>, _>>()?;
        let when = rule.when.try_map(|reference: &String| {
            self.element(reference)
                .map(|position| self.custom_element(position).id)
                .ok_or(())
        });
        let when = when.map_err(|()| at(path, "names an unknown element"))?;
        Ok(Rule { when, show, hide })
    }

    /// Checks one condition and answers the (task, element) positions of its element.
    fn condition(
        &self,
        path: &str,
        condition: &Condition<String>,
    ) -> Result<(usize, usize), ValidationError> {
        let found = self.element(&condition.element).ok_or_else(|| {
            at(
                &format!("{path}.element"),
                format!(
                    "no element of the document has the ref or id {:?}",
                    condition.element
                ),
            )
        })?;
        check(condition, self.custom_element(found)).map_err(|message| at(path, message))?;
        Ok(found)
    }
}

fn unknown_task(field: &str, reference: &str) -> ValidationError {
    at(
        field,
        format!("no task of the document has the ref or id {reference:?}"),
    )
}

fn at(path: &str, message: impl Into<String>) -> ValidationError {
    ValidationError::field(path, message)
}
