//! Tables of [`evaluate`]: visibility by rule, blocking by dependency, and both together.

use serde_json::json;

use super::*;
use crate::template::{Condition, Operator, When};

fn planned(n: usize, depends_on: &[(usize, usize)]) -> Vec<PlannedTask> {
    (0..n)
        .map(|t| PlannedTask {
            id: TaskId::from_uuid(uuid::Uuid::from_u128(t as u128 + 1)),
            template_task_id: TemplateTaskId::from_uuid(uuid::Uuid::from_u128(t as u128 + 100)),
            section_id: SectionId::from_uuid(uuid::Uuid::nil()),
            title: format!("Task {t}"),
            due_date: None,
            webhook_enabled: false,
            depends_on: depends_on
                .iter()
                .filter(|(d, _)| *d == t)
                .map(|(_, p)| *p)
                .collect(),
        })
        .collect()
}

/// Element `e` is a checkbox; `when(e)` holds while it is true.
fn checkbox(e: usize) -> Condition<usize> {
    Condition {
        element: e,
        is: Operator::Equal,
        value: Some(json!(true)),
    }
}

fn plan(
    tasks: usize,
    elements: usize,
    rules: Vec<Rule<usize, usize>>,
    deps: &[(usize, usize)],
) -> LogicPlan {
    LogicPlan {
        tasks: planned(tasks, deps),
        elements: (0..elements)
            .map(|e| PlannedElement {
                id: ElementId::from_uuid(uuid::Uuid::from_u128(e as u128 + 1000)),
                task: TaskId::from_uuid(uuid::Uuid::nil()),
                element_type: ElementType::Checkbox,
            })
            .collect(),
        rules,
    }
}

fn rule(when: When<usize>, show: &[usize], hide: &[usize]) -> Rule<usize, usize> {
    Rule {
        when,
        show: show.to_vec(),
        hide: hide.to_vec(),
    }
}

fn state(statuses: &[TaskStatus], values: &[Option<bool>]) -> LogicState {
    LogicState {
        tasks: statuses
            .iter()
            .map(|&status| LiveTask {
                status,
                assignee: None,
            })
            .collect(),
        values: values.iter().map(|v| v.map(|b| json!(b))).collect(),
    }
}

fn hidden(flags: &[TaskFlags]) -> Vec<bool> {
    flags.iter().map(|f| f.hidden).collect()
}

fn blocked(flags: &[TaskFlags]) -> Vec<bool> {
    flags.iter().map(|f| f.blocked).collect()
}

use TaskStatus::{Completed as C, Open as O, Skipped as S};

#[test]
fn visibility_by_rule() {
    use When::{All, Any, One};
    // (rules, values of elements 0 and 1, hidden of tasks 0 and 1)
    type Case = (Vec<Rule<usize, usize>>, [Option<bool>; 2], [bool; 2]);
    let cases: Vec<Case> = vec![
        // Named by no rule: shown.
        (vec![], [None, None], [false, false]),
        // Shown by a rule that holds, hidden while it does not (unset is not true).
        (
            vec![rule(One(checkbox(0)), &[0], &[])],
            [Some(true), None],
            [false, false],
        ),
        (
            vec![rule(One(checkbox(0)), &[0], &[])],
            [Some(false), None],
            [true, false],
        ),
        (
            vec![rule(One(checkbox(0)), &[0], &[])],
            [None, None],
            [true, false],
        ),
        // Two rules show task 0: one holding is enough.
        (
            vec![
                rule(One(checkbox(0)), &[0], &[]),
                rule(One(checkbox(1)), &[0], &[]),
            ],
            [Some(false), Some(true)],
            [false, false],
        ),
        // Hidden by a rule that holds, even when another shows it.
        (
            vec![
                rule(One(checkbox(0)), &[0], &[]),
                rule(One(checkbox(1)), &[], &[0]),
            ],
            [Some(true), Some(true)],
            [true, false],
        ),
        (
            vec![rule(One(checkbox(1)), &[], &[1])],
            [None, Some(false)],
            [false, false],
        ),
        (
            vec![rule(One(checkbox(1)), &[], &[1])],
            [None, Some(true)],
            [false, true],
        ),
        // all and any.
        (
            vec![rule(All(vec![checkbox(0), checkbox(1)]), &[1], &[])],
            [Some(true), Some(false)],
            [false, true],
        ),
        (
            vec![rule(All(vec![checkbox(0), checkbox(1)]), &[1], &[])],
            [Some(true), Some(true)],
            [false, false],
        ),
        (
            vec![rule(Any(vec![checkbox(0), checkbox(1)]), &[1], &[])],
            [Some(false), Some(true)],
            [false, false],
        ),
        (
            vec![rule(Any(vec![checkbox(0), checkbox(1)]), &[1], &[])],
            [Some(false), None],
            [false, true],
        ),
    ];
    for (rules, values, expected) in cases {
        let plan = plan(2, 2, rules.clone(), &[]);
        for statuses in [[O, O], [C, S], [S, C]] {
            let flags = evaluate(&plan, &state(&statuses, &values));
            assert_eq!(
                hidden(&flags),
                expected,
                "{rules:?} {values:?} {statuses:?}"
            );
        }
    }
}

#[test]
fn blocking_by_dependency() {
    // Task 2 depends on tasks 0 and 1; element 0 hides task 1 while true.
    let rules = vec![rule(When::One(checkbox(0)), &[], &[1])];
    let plan = plan(3, 1, rules, &[(2, 0), (2, 1)]);
    // (statuses of tasks 0, 1, 2; task 1 hidden; task 2 blocked)
    let cases: Vec<([TaskStatus; 3], Option<bool>, bool)> = vec![
        ([O, O, O], None, true),
        ([C, O, O], None, true),
        ([C, C, O], None, false),
        ([C, S, O], None, false),
        ([S, S, O], None, false),
        // A hidden prerequisite counts as done, whatever its state.
        ([C, O, O], Some(true), false),
        ([O, O, O], Some(true), true),
        // A completed dependent is not blocked: it stays completed. A skipped one is: completing
        // it would be refused.
        ([O, O, C], None, false),
        ([O, O, S], None, true),
    ];
    for (statuses, hide_second, expected) in cases {
        let flags = evaluate(&plan, &state(&statuses, &[hide_second]));
        assert_eq!(flags[1].hidden, hide_second == Some(true));
        assert_eq!(flags[2].blocked, expected, "{statuses:?} {hide_second:?}");
        // Tasks without prerequisites are never blocked.
        assert_eq!(&blocked(&flags)[..2], [false, false]);
    }
}

#[test]
fn a_blocked_task_may_also_be_hidden() {
    // Task 1 depends on task 0 and is shown only while element 0 is true.
    let rules = vec![rule(When::One(checkbox(0)), &[1], &[])];
    let plan = plan(2, 1, rules, &[(1, 0)]);
    let flags = evaluate(&plan, &state(&[O, O], &[None]));
    assert_eq!(
        flags[1],
        TaskFlags {
            hidden: true,
            blocked: true
        }
    );
    let flags = evaluate(&plan, &state(&[O, O], &[Some(true)]));
    assert_eq!(
        flags[1],
        TaskFlags {
            hidden: false,
            blocked: true
        }
    );
}

#[test]
fn recording_a_task_takes_its_state_assignee_and_read_values() {
    let element = ElementId::from_uuid(uuid::Uuid::from_u128(1000));
    let mut plan = plan(1, 1, vec![rule(When::One(checkbox(0)), &[0], &[])], &[]);
    let holder = TaskId::from_uuid(uuid::Uuid::from_u128(77));
    plan.elements[0].task = holder;
    let mut live = state(&[O], &[None]);
    let task = |id: TaskId, value: Option<bool>| RunTask {
        id,
        run_id: RunId::from_uuid(uuid::Uuid::nil()),
        template_task_id: TemplateTaskId::from_uuid(uuid::Uuid::nil()),
        reference: None,
        title: "t".into(),
        state: crate::run::TaskState::Skipped,
        order: 0,
        section_id: SectionId::from_uuid(uuid::Uuid::nil()),
        assignee: Some("ada@example.org".parse().unwrap()),
        is_essential: false,
        task_type: crate::template::TaskType::Task,
        due_date: None,
        webhook_enabled: false,
        decision: None,
        comment: None,
        custom_elements: vec![crate::element::CustomElement {
            id: element,
            reference: None,
            element_type: ElementType::Checkbox,
            label: "Remote?".into(),
            required: false,
            value: value.map(|b| json!(b)),
            options: None,
            file_url: None,
        }],
        depends_on: Vec::new(),
        hidden: false,
        blocked: false,
        created_at: time::OffsetDateTime::UNIX_EPOCH,
    };
    // The holder of element 0 is no involved task: only its value is taken.
    assert!(live.record(&plan, &task(holder, Some(true))));
    assert_eq!(live.values, [Some(json!(true))]);
    assert_eq!(live.tasks[0].status, TaskStatus::Open);
    assert!(
        !live.record(&plan, &task(holder, Some(true))),
        "nothing new"
    );
    // The involved task: its state and assignee.
    assert!(live.record(&plan, &task(plan.tasks[0].id, None)));
    assert_eq!(live.tasks[0].status, TaskStatus::Skipped);
    assert_eq!(
        live.tasks[0].assignee,
        Some("ada@example.org".parse().unwrap())
    );
    assert_eq!(live.values, [Some(json!(true))], "not the holder");
}
