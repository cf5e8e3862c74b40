//! Create a run (spec 4.6): the frozen snapshot, pre-fill, attribution, title.

use super::*;

#[test]
fn a_run_is_a_frozen_copy_of_the_published_template() {
    let w = world();
    let template = w.published(onboarding());
    let run = w.start(&template);

    assert_eq!(run.template_id, template.id);
    assert_eq!(run.template_version, 1);
    assert_eq!(run.team_id, w.team.id);
    assert_eq!(run.title, "Onboarding");
    assert_eq!(run.status(), RunStatus::Active);
    assert_eq!(run.started_by, Actor::Api);
    assert_eq!(run.timezone, w.team.timezone);
    assert_eq!(run.sections, template.sections);
    assert_eq!(run.open_tasks(), 3);
    assert!(!run.is_shared);
    assert_eq!(run.created_at, w.clock.now());
    assert_eq!((run.updated_at, run.completed_at()), (None, None));
    assert_eq!(w.run(run.id), run);

    let tasks = w.tasks(run.id);
    assert_eq!(tasks.len(), template.tasks.len());
    for (task, source) in tasks.iter().zip(&template.tasks) {
        assert_eq!(task.run_id, run.id);
        assert_eq!(task.template_task_id, source.id);
        assert_eq!(task.title, source.title);
        assert_eq!(task.order, source.order);
        assert_eq!(task.section_id, source.section_id);
        assert_eq!(task.is_essential, source.is_essential);
        assert_eq!(task.task_type, source.task_type);
        assert_eq!(task.custom_elements, source.custom_elements);
        assert_eq!(task.state, TaskState::Open);
    }
    assert_eq!(
        tasks[COLLECT].assignee, None,
        "runner tasks start unassigned"
    );

    let events = w.events_of(run.id);
    assert_eq!(events.len(), 1);
    assert_eq!(
        events[0],
        EventPayload::RunCreated {
            run: run.snapshot(),
            task_count: u32::try_from(tasks.len()).unwrap(),
        }
    );
}

#[test]
fn editing_the_template_afterwards_does_not_change_existing_runs() {
    let w = world();
    let template = w.published(onboarding());
    let old_run = w.start(&template);
    let before = (w.run(old_run.id), w.tasks(old_run.id));

    // Unpublish, replace (keep the first task's id, add a field, drop a task), publish again.
    block(w.procflow.publish_template(&w.team, template.id, false)).unwrap();
    let kept = template.tasks[COLLECT].id;
    let replaced = block(w.procflow.replace_template(
        &w.team,
        template.id,
        document(json!({
            "title": "Onboarding v2",
            "sections": [{"title": "Week one", "tasks": [
                {"id": kept, "title": "Collect every document", "custom_elements": [
                    {"type": "date", "label": "Start date"}
                ]},
                {"title": "Meet the team"}
            ]}]
        })),
        None,
    ))
    .unwrap();
    let republished = block(w.procflow.publish_template(&w.team, template.id, true)).unwrap();
    assert_eq!(replaced.tasks[0].id, kept);
    assert_eq!(republished.version, 2);

    assert_eq!((w.run(old_run.id), w.tasks(old_run.id)), before);

    let new_run = w.start(&republished);
    assert_eq!(new_run.template_version, 2);
    assert_eq!(new_run.title, "Onboarding v2");
    let titles: Vec<_> = w.tasks(new_run.id).into_iter().map(|t| t.title).collect();
    assert_eq!(titles, ["Collect every document", "Meet the team"]);
    let date = &republished.tasks[0].custom_elements[0];
    let prefilled = w
        .create_run(CreateRun {
            custom_elements: vec![Prefill {
                task_id: kept,
                element_id: date.id,
                value: json!("2026-02-01"),
            }],
            ..CreateRun::of(template.id)
        })
        .unwrap();
    assert_eq!(
        w.task(prefilled.id, 0).custom_elements[0].value,
        Some(json!("2026-02-01"))
    );
}

#[test]
fn a_run_cannot_start_from_an_unpublished_template() {
    let w = world();
    let draft = w.create(onboarding());
    let events = w.store.events().len();
    let refused = w.create_run(CreateRun::of(draft.id));
    assert_eq!(refused, Err(DomainError::TemplateNotPublished));

    let published = w.published(onboarding());
    block(w.procflow.publish_template(&w.team, published.id, false)).unwrap();
    let refused = w.create_run(CreateRun::of(published.id));
    assert_eq!(refused, Err(DomainError::TemplateNotPublished));
    assert!(w.runs().is_empty());
    assert_eq!(w.store.events().len(), events);
}

#[test]
fn an_unknown_template_is_not_found() {
    let w = world();
    let refused = w.create_run(CreateRun::of(TemplateId::from_uuid(fixed_uuid(99))));
    assert_eq!(refused, Err(DomainError::NotFound(Resource::Template)));
}

#[test]
fn another_teams_published_template_is_not_found() {
    let w = world();
    let theirs = block(w.procflow.create_template(&w.other, document(onboarding()))).unwrap();
    block(w.procflow.publish_template(&w.other, theirs.id, true)).unwrap();
    let refused = w.create_run(CreateRun::of(theirs.id));
    assert_eq!(refused, Err(DomainError::NotFound(Resource::Template)));
    assert!(w.runs().is_empty());
    // The owner can start it.
    let run = block(w.procflow.create_run(&w.other, CreateRun::of(theirs.id))).unwrap();
    assert_eq!(run.team_id, w.other.id);
    assert_eq!(run.timezone, "Europe/Paris");
}

#[test]
fn pre_filled_values_are_written_to_the_run_and_not_the_template() {
    let w = world();
    let template = w.published(onboarding());
    let collect = &template.tasks[COLLECT];
    let run = w
        .create_run(CreateRun {
            custom_elements: vec![
                Prefill {
                    task_id: collect.id,
                    element_id: collect.custom_elements[0].id,
                    value: json!("Ada Lovelace"),
                },
                Prefill {
                    task_id: collect.id,
                    element_id: collect.custom_elements[1].id,
                    value: json!("Sales"),
                },
            ],
            ..CreateRun::of(template.id)
        })
        .unwrap();
    let values: Vec<_> = w
        .task(run.id, COLLECT)
        .custom_elements
        .into_iter()
        .map(|e| e.value)
        .collect();
    assert_eq!(
        values,
        [
            Some(json!("Ada Lovelace")),
            Some(json!("Sales")),
            Some(json!("<p>Hi</p>"))
        ]
    );
    let stored = block(w.procflow.get_template(&w.team, template.id)).unwrap();
    assert_eq!(stored, template);
    let plain = w.start(&template);
    assert_eq!(w.task(plain.id, COLLECT).custom_elements[0].value, None);
}

/// Starts a run of `onboarding()` with this pre-fill, expecting a refusal; checks nothing was
/// written.
fn refused_prefill(w: &World, template: &Template, prefill: Vec<Prefill>) -> DomainError {
    let events = w.store.events().len();
    let refused = w
        .create_run(CreateRun {
            custom_elements: prefill,
            ..CreateRun::of(template.id)
        })
        .unwrap_err();
    assert!(w.runs().is_empty(), "a refused run is not stored");
    assert_eq!(
        w.store.events().len(),
        events,
        "a refused run raises nothing"
    );
    refused
}

#[test]
fn a_pre_fill_of_an_unknown_task_is_refused() {
    let w = world();
    let template = w.published(onboarding());
    let refused = refused_prefill(
        &w,
        &template,
        vec![Prefill {
            task_id: TemplateTaskId::from_uuid(fixed_uuid(7)),
            element_id: template.tasks[COLLECT].custom_elements[0].id,
            value: json!("x"),
        }],
    );
    assert_eq!(refused_field(refused), "custom_elements[0].task_id");
}

#[test]
fn a_pre_fill_of_an_unknown_element_is_refused() {
    let w = world();
    let template = w.published(onboarding());
    let element_of_another_task = template.tasks[COLLECT].custom_elements[0].id;
    for element_id in [element_of_another_task, ElementId::from_uuid(fixed_uuid(8))] {
        let refused = refused_prefill(
            &w,
            &template,
            vec![Prefill {
                task_id: template.tasks[HELLO].id,
                element_id,
                value: json!("x"),
            }],
        );
        assert_eq!(refused_field(refused), "custom_elements[0].element_id");
    }
}

#[test]
fn a_pre_fill_of_an_invalid_value_is_refused() {
    let w = world();
    let template = w.published(onboarding());
    let collect = &template.tasks[COLLECT];
    let refused = refused_prefill(
        &w,
        &template,
        vec![Prefill {
            task_id: collect.id,
            element_id: collect.custom_elements[1].id,
            value: json!("HR"),
        }],
    );
    assert!(
        matches!(
            &refused,
            DomainError::Validation(ValidationError::InvalidOption { allowed, .. })
                if allowed == &["Eng".to_owned(), "Sales".to_owned()]
        ),
        "{refused:?}"
    );
    let refused = refused_prefill(
        &w,
        &template,
        vec![Prefill {
            task_id: collect.id,
            element_id: collect.custom_elements[0].id,
            value: json!(42),
        }],
    );
    assert!(matches!(
        refused,
        DomainError::Validation(ValidationError::InvalidValue { .. })
    ));
}

#[test]
fn a_pre_fill_of_a_display_only_element_is_refused() {
    let w = world();
    let template = w.published(onboarding());
    let collect = &template.tasks[COLLECT];
    let refused = refused_prefill(
        &w,
        &template,
        vec![Prefill {
            task_id: collect.id,
            element_id: collect.custom_elements[2].id,
            value: json!("<p>Changed</p>"),
        }],
    );
    assert!(matches!(
        refused,
        DomainError::Validation(ValidationError::DisplayOnly { .. })
    ));
}

#[test]
fn the_same_element_pre_filled_twice_is_refused() {
    let w = world();
    let template = w.published(onboarding());
    let collect = &template.tasks[COLLECT];
    let prefill = Prefill {
        task_id: collect.id,
        element_id: collect.custom_elements[0].id,
        value: json!("Ada"),
    };
    let refused = refused_prefill(&w, &template, vec![prefill.clone(), prefill]);
    assert_eq!(refused_field(refused), "custom_elements[1].element_id");
}

#[test]
fn a_run_started_for_an_active_member_is_theirs_with_their_runner_tasks() {
    let w = world();
    let template = w.published(onboarding());
    let run = w
        .create_run(CreateRun {
            actor_email: Some("Ada@Demo.Example".parse().unwrap()),
            ..CreateRun::of(template.id)
        })
        .unwrap();
    assert_eq!(run.started_by, Actor::User(w.ada.id));
    let assignees: Vec<_> = w.tasks(run.id).into_iter().map(|t| t.assignee).collect();
    assert_eq!(assignees, [Some(Assignee::User(w.ada.id)), None, None]);

    let assigned: Vec<_> = w
        .events_of(run.id)
        .into_iter()
        .filter_map(|event| match event {
            EventPayload::TaskAssigned {
                task,
                run_title,
                email,
            } => Some((task.title, run_title, email)),
            _ => None,
        })
        .collect();
    assert_eq!(
        assigned,
        [(
            "Collect documents".to_owned(),
            "Onboarding".to_owned(),
            Some(w.ada.email.clone())
        )]
    );
}

#[test]
fn template_tasks_assigned_to_members_are_theirs_while_they_are_active() {
    let w = world();
    let (ada, ivan) = (w.ada.id.to_string(), w.ivan.id.to_string());
    let assignees = [
        "Ada@Demo.Example", // an active member's email: by user id, as a task update would
        ada.as_str(),       // an active member's id
        "ivan@demo.example", // an inactive member's email: no more work for them
        ivan.as_str(),      // an inactive member's id
        "olga@other.example", // another team's member: an outside email
        "guest@elsewhere.example", // an outside email
    ];
    let tasks: Vec<Value> = assignees
        .iter()
        .map(|to| json!({"title": format!("For {to}"), "assignee": to}))
        .collect();
    let template =
        w.published(json!({"title": "Assigned", "sections": [{"title": "S", "tasks": tasks}]}));
    let run = w.start(&template);

    let assigned: Vec<_> = w.tasks(run.id).into_iter().map(|t| t.assignee).collect();
    let ada = Some(Assignee::User(w.ada.id));
    let outside = |to: &str| Some(Assignee::Email(email(to)));
    assert_eq!(
        assigned,
        [
            ada.clone(),
            ada,
            None,
            None,
            outside("olga@other.example"),
            outside("guest@elsewhere.example")
        ]
    );
    let notified: Vec<_> = w
        .events_of(run.id)
        .into_iter()
        .filter_map(|event| match event {
            EventPayload::TaskAssigned { email, .. } => Some(email),
            _ => None,
        })
        .collect();
    assert_eq!(
        notified,
        [
            Some(w.ada.email.clone()),
            Some(w.ada.email.clone()),
            Some(w.olga.email.clone()),
            Some(email("guest@elsewhere.example")),
        ],
        "one notice per assigned task, at the assignee's address"
    );
}

#[test]
fn a_run_started_for_anyone_but_an_active_member_falls_back_to_the_api() {
    let w = world();
    let template = w.published(onboarding());
    for actor_email in [
        "ivan@demo.example",   // inactive
        "nobody@demo.example", // unknown
        "olga@other.example",  // another team's
    ] {
        let run = w
            .create_run(CreateRun {
                actor_email: Some(actor_email.parse().unwrap()),
                ..CreateRun::of(template.id)
            })
            .unwrap();
        assert_eq!(run.started_by, Actor::Api, "{actor_email}");
        assert!(w.tasks(run.id).iter().all(|t| t.assignee.is_none()));
        assert_eq!(count(&w.events_of(run.id), "process_step.assigned"), 0);
    }
}

#[test]
fn a_run_takes_the_template_title_unless_named() {
    let w = world();
    let template = w.published(onboarding());
    assert_eq!(w.start(&template).title, "Onboarding");
    let named = w
        .create_run(CreateRun {
            name: Some("Ada's onboarding".into()),
            ..CreateRun::of(template.id)
        })
        .unwrap();
    assert_eq!(named.title, "Ada's onboarding");
    assert_eq!(w.run(named.id).title, "Ada's onboarding");
}

#[test]
fn a_blank_or_oversized_name_is_refused() {
    let w = world();
    let template = w.published(onboarding());
    for name in [
        "".to_owned(),
        "   ".to_owned(),
        "a\u{0}b".to_owned(),
        "x".repeat(501),
    ] {
        let refused = w
            .create_run(CreateRun {
                name: Some(name),
                ..CreateRun::of(template.id)
            })
            .unwrap_err();
        assert_eq!(refused_field(refused), "name");
    }
    assert!(w.runs().is_empty());
}
