//! Update a task: writing form values of every element type (spec 2.7, 4.11 rules 2-4).

use super::*;

/// (index in `form()`, values the element stores, values it refuses)
fn element_table() -> Vec<(usize, Vec<Value>, Vec<Value>)> {
    vec![
        (
            0,
            vec![json!(""), json!("Ada"), json!("ünïcødé ✓")],
            vec![json!(42), json!(true), json!(["a"]), json!("a\u{0}b")],
        ),
        (
            1,
            vec![json!("line one\nline two")],
            vec![json!({"a": 1}), json!(1)],
        ),
        (
            2,
            vec![json!(0), json!(-12), json!(3.25)],
            vec![json!("12"), json!(true), json!([1])],
        ),
        (
            3,
            vec![json!("ada@example.com"), json!("A.B+c@d.example.org")],
            vec![
                json!("ada"),
                json!("ada@"),
                json!(7),
                json!(" ada@example.com "),
                json!("ada@example.com\n"),
            ],
        ),
        (
            4,
            vec![
                json!("https://example.com/a?b=c"),
                json!("http://localhost:8080"),
            ],
            vec![
                json!("example.com"),
                json!("ftp://example.com"),
                json!("javascript:alert(1)"),
                json!(true),
            ],
        ),
        (
            5,
            vec![json!("2026-11-21"), json!("2024-02-29")],
            vec![
                json!("2023-02-29"),
                json!("21/11/2026"),
                json!("2026-11-21T10:00:00Z"),
                json!("+2026-11-21"),
                json!("-0001-01-01"),
                json!(20261121),
            ],
        ),
        (
            6,
            vec![json!(true), json!(false)],
            vec![json!("true"), json!(1), json!(null_like())],
        ),
        (
            7,
            vec![json!("Eng"), json!("R&D")],
            vec![json!("eng"), json!("HR"), json!(["Eng"]), json!(1)],
        ),
        (
            8,
            vec![json!([]), json!(["Jira", "Git"])],
            vec![
                json!("Git"),
                json!(["Git", "Git"]),
                json!(["Slack"]),
                json!([1]),
            ],
        ),
    ]
}

/// A value that looks empty but is not `null`.
fn null_like() -> Value {
    json!({})
}

#[test]
fn every_input_element_stores_values_of_its_type_and_null_clears_it() {
    let w = world();
    let run = w.start(&w.published(form()));
    let task = w.task(run.id, 0);
    for (index, accepted, _) in element_table() {
        let element = task.custom_elements[index].id;
        for value in accepted {
            let change = w
                .update(run.id, task.id, write(element, value.clone()))
                .unwrap_or_else(|e| panic!("element {index} refused {value}: {e}"));
            assert_eq!(change.task.custom_elements[index].value, Some(value));
            assert_eq!(w.task(run.id, 0), change.task);
        }
        let cleared = w
            .update(run.id, task.id, write(element, Value::Null))
            .unwrap();
        assert_eq!(cleared.task.custom_elements[index].value, None);
    }
}

#[test]
fn every_input_element_refuses_values_not_of_its_type() {
    let w = world();
    let run = w.start(&w.published(form()));
    let task = w.task(run.id, 0);
    let before = w.state_of(run.id);
    for (index, _, refused) in element_table() {
        let element = &task.custom_elements[index];
        for value in refused {
            let error = w
                .update(run.id, task.id, write(element.id, value.clone()))
                .map(|change| change.task.custom_elements[index].value.clone());
            assert!(
                matches!(
                    error,
                    Err(DomainError::Validation(
                        ValidationError::InvalidValue { .. }
                            | ValidationError::InvalidOption { .. }
                    ))
                ),
                "{} should refuse {value}, got {error:?}",
                element.element_type
            );
        }
    }
    assert_eq!(w.state_of(run.id), before);
}

#[test]
fn the_element_table_covers_every_input_type() {
    let w = world();
    let template = w.create(form());
    let elements = &template.tasks[0].custom_elements;
    let covered: Vec<usize> = element_table().into_iter().map(|(i, _, _)| i).collect();
    for (index, element) in elements.iter().enumerate() {
        assert_eq!(
            covered.contains(&index),
            !element.is_display_only(),
            "{}",
            element.element_type
        );
    }
    assert_eq!(elements.len(), 14);
}

#[test]
fn writing_a_display_only_element_is_refused() {
    let w = world();
    let run = w.start(&w.published(form()));
    let task = w.task(run.id, 0);
    let before = w.state_of(run.id);
    for element in task.custom_elements.iter().filter(|e| e.is_display_only()) {
        for value in [json!("x"), json!(null)] {
            let refused = w
                .update(run.id, task.id, write(element.id, value))
                .unwrap_err();
            assert!(
                matches!(
                    &refused,
                    DomainError::Validation(ValidationError::DisplayOnly { element: name })
                        if name.contains(&element.id.to_string())
                ),
                "{refused:?}"
            );
        }
    }
    assert_eq!(w.state_of(run.id), before);
}

#[test]
fn an_option_refusal_names_the_element_and_lists_its_options() {
    let w = world();
    let run = w.start(&w.published(form()));
    let task = w.task(run.id, 0);
    let dropdown = &task.custom_elements[7];
    let message = w
        .update(run.id, task.id, write(dropdown.id, json!("HR")))
        .unwrap_err()
        .to_string();
    assert!(message.contains("\"Department\""), "{message}");
    assert!(message.contains(&dropdown.id.to_string()), "{message}");
    assert!(message.contains("\"HR\""), "{message}");
    assert!(message.contains("\"Eng\", \"Sales\", \"R&D\""), "{message}");

    let multichoice = &task.custom_elements[8];
    let message = w
        .update(
            run.id,
            task.id,
            write(multichoice.id, json!(["Git", "Slack"])),
        )
        .unwrap_err()
        .to_string();
    assert!(message.contains("\"Tools\""), "{message}");
    assert!(message.contains("\"Slack\""), "{message}");
    assert!(message.contains("\"Git\", \"Jira\""), "{message}");
}

#[test]
fn writing_an_unknown_or_malformed_element_id_is_refused() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, HELLO);
    let element_of_another_task = w.task(run.id, COLLECT).custom_elements[0].id;
    // An id that is no element id at all is refused where the request is read (the HTTP
    // layer's tests); here every id is well formed.
    for id in [element_of_another_task, ElementId::from_uuid(fixed_uuid(5))] {
        let refused = w
            .update(
                run.id,
                task.id,
                UpdateTask {
                    custom_elements: vec![ElementWrite {
                        id,
                        value: json!("x"),
                    }],
                    ..UpdateTask::default()
                },
            )
            .unwrap_err();
        assert_eq!(refused_field(refused), "custom_elements[0].id", "{id}");
    }
}

#[test]
fn completion_and_values_are_set_in_one_request() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, COLLECT);
    let change = w
        .update(
            run.id,
            task.id,
            UpdateTask {
                custom_elements: vec![
                    ElementWrite {
                        id: task.custom_elements[0].id,
                        value: json!("Ada"),
                    },
                    ElementWrite {
                        id: task.custom_elements[1].id,
                        value: json!("Eng"),
                    },
                ],
                ..complete()
            },
        )
        .unwrap();
    assert!(change.task.completed());
    assert_eq!(change.task.custom_elements[0].value, Some(json!("Ada")));
    assert_eq!(change.task.custom_elements[1].value, Some(json!("Eng")));
}

#[test]
fn one_refused_value_leaves_the_whole_request_unapplied() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let task = w.task(run.id, COLLECT);
    let before = w.state_of(run.id);
    let refused = w.update(
        run.id,
        task.id,
        UpdateTask {
            custom_elements: vec![
                ElementWrite {
                    id: task.custom_elements[0].id,
                    value: json!("Ada"),
                },
                ElementWrite {
                    id: task.custom_elements[1].id,
                    value: json!("HR"),
                },
            ],
            assignee: Some(Some("guest@example.org".parse().unwrap())),
            ..complete()
        },
    );
    assert!(refused.is_err());
    assert_eq!(w.state_of(run.id), before);
}

#[test]
fn a_required_element_left_empty_is_reported_but_does_not_block_completion() {
    let w = world();
    let run = w.start(&w.published(json!({
        "title": "Required",
        "sections": [{"title": "S", "tasks": [{"title": "T", "custom_elements": [
            {"type": "shortText", "label": "Name", "required": true},
            {"type": "shortText", "label": "Nickname"}
        ]}]}]
    })));
    let task = w.task(run.id, 0);
    let change = w.update(run.id, task.id, complete()).unwrap();
    assert!(change.task.completed());
    assert_eq!(change.missing_required, [task.custom_elements[0].id]);
}
