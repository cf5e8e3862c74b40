//! Documents with logic: what they resolve to, and every refusal naming the rule or the task.

use procflow_domain::error::{DomainError, ValidationError};
use procflow_domain::template::{MAX_RULES, Operator, When};
use serde_json::{Value, json};

use super::model::{build, onboarding};

/// The refusal of the onboarding document after `edit`, as `(field, message)`.
fn refusal(edit: impl FnOnce(&mut Value)) -> (String, String) {
    let mut document = onboarding();
    edit(&mut document);
    match build(document) {
        Err(DomainError::Validation(ValidationError::Field { field, message })) => (field, message),
        other => panic!("expected a refused field, got {other:?}"),
    }
}

fn assert_refused(field: &str, part: &str, edit: impl FnOnce(&mut Value)) {
    let (at, message) = refusal(edit);
    assert_eq!(at, field, "{message}");
    assert!(message.contains(part), "{field}: {message}");
}

fn task(document: &mut Value, t: usize) -> &mut Value {
    &mut document["sections"][0]["tasks"][t]
}

#[test]
fn references_resolve_to_ids_by_ref_or_by_id() {
    let template = build(onboarding()).unwrap();
    let id_of = |r: &str| {
        template
            .tasks
            .iter()
            .find(|t| t.reference.as_ref().is_some_and(|x| x.as_str() == r))
            .unwrap()
            .id
    };
    let grant = template
        .tasks
        .iter()
        .find(|t| t.id == id_of("grant-access"))
        .unwrap();
    assert_eq!(
        grant.depends_on,
        [id_of("security-training"), id_of("manager-approval")]
    );
    assert_eq!(template.rules.len(), 2);
    assert_eq!(template.rules[0].show, [id_of("ship-laptop")]);
    let When::One(condition) = &template.rules[1].when else {
        panic!("one condition")
    };
    assert_eq!(condition.element, template.tasks[0].custom_elements[1].id);
    assert_eq!(condition.is, Operator::Equal);
    assert_eq!(
        template.tasks[0].custom_elements[0]
            .reference
            .as_ref()
            .map(|r| r.as_str()),
        Some("remote")
    );

    // The same document naming tasks and elements by the ids it was given.
    let mut by_id = onboarding();
    let task_id = |t: usize| format!("00000000-0000-0000-0000-00000000010{t}");
    for t in 0..6 {
        task(&mut by_id, t)["id"] = json!(task_id(t));
    }
    task(&mut by_id, 0)["custom_elements"][0]["id"] = json!("00000000-0000-0000-0000-000000000201");
    task(&mut by_id, 4)["depends_on"] = json!([task_id(2), "manager-approval"]);
    by_id["rules"][0]["if"]["element"] = json!("00000000-0000-0000-0000-000000000201");
    by_id["rules"][0]["show"] = json!([task_id(1)]);
    let template = build(by_id).unwrap();
    assert_eq!(
        template.tasks[4].depends_on,
        [template.tasks[2].id, template.tasks[3].id]
    );
    assert_eq!(template.rules[0].show, [template.tasks[1].id]);
}

#[test]
fn a_document_without_logic_has_none() {
    let mut document = onboarding();
    document.as_object_mut().unwrap().remove("rules");
    task(&mut document, 4)
        .as_object_mut()
        .unwrap()
        .remove("depends_on");
    let template = build(document).unwrap();
    assert!(!template.has_logic());
}

#[test]
fn an_unknown_reference_is_refused_where_it_is() {
    assert_refused(
        "sections[0].tasks[4].depends_on[1]",
        "no task of the document has the ref or id \"nobody\"",
        |d| {
            task(d, 4)["depends_on"][1] = json!("nobody");
        },
    );
    assert_refused(
        "rules[1].if.element",
        "no element of the document has the ref or id \"dept\"",
        |d| {
            d["rules"][1]["if"]["element"] = json!("dept");
        },
    );
    assert_refused(
        "rules[0].show[0]",
        "no task of the document has the ref or id \"laptop\"",
        |d| {
            d["rules"][0]["show"][0] = json!("laptop");
        },
    );
    assert_refused(
        "rules[0].hide[0]",
        "\"00000000-0000-0000-0000-000000000999\"",
        |d| {
            d["rules"][0]["hide"] = json!(["00000000-0000-0000-0000-000000000999"]);
        },
    );
}

#[test]
fn a_duplicate_ref_is_refused_naming_both() {
    assert_refused(
        "sections[0].tasks[5].ref",
        "also the ref of task \"Ship a laptop\" (sections[0].tasks[1])",
        |d| {
            task(d, 5)["ref"] = json!("ship-laptop");
        },
    );
    assert_refused(
        "sections[0].tasks[2].custom_elements[0].ref",
        "also the ref of element \"Remote?\"",
        |d| {
            task(d, 2)["custom_elements"] =
                json!([{"ref": "remote", "type": "shortText", "label": "Score"}]);
        },
    );
}

#[test]
fn a_malformed_ref_is_refused_at_it() {
    let (field, message) = refusal(|d| task(d, 1)["ref"] = json!("Ship Laptop"));
    assert_eq!(field, "sections[0].tasks[1].ref");
    assert!(message.contains("is not a ref"), "{message}");
}

#[test]
fn a_condition_on_a_display_only_element_is_refused() {
    assert_refused("rules[0].if", "is display-only", |d| {
        let help = json!({"ref": "help", "type": "text", "label": "Help", "value": "<p>Hi</p>"});
        task(d, 0)["custom_elements"]
            .as_array_mut()
            .unwrap()
            .push(help);
        d["rules"][0]["if"] = json!({"element": "help", "is": "set"});
    });
}

#[test]
fn a_value_of_the_wrong_type_or_outside_the_options_is_refused() {
    assert_refused("rules[0].if", "expected a boolean", |d| {
        d["rules"][0]["if"]["value"] = json!("yes");
    });
    assert_refused(
        "rules[1].if",
        "\"HR\" is not an allowed option; allowed options: \"Eng\", \"Sales\"",
        |d| {
            d["rules"][1]["if"]["value"] = json!("HR");
        },
    );
    assert_refused("rules[1].if", "equal needs a value", |d| {
        d["rules"][1]["if"].as_object_mut().unwrap().remove("value");
    });
    assert_refused("rules[1].if", "set takes no value", |d| {
        d["rules"][1]["if"]["is"] = json!("set");
    });
}

#[test]
fn an_operator_that_does_not_fit_the_type_is_refused_listing_those_that_do() {
    assert_refused(
        "rules[1].if",
        "greater_than does not apply to element \"Department\"",
        |d| {
            d["rules"][1]["if"]["is"] = json!("greater_than");
        },
    );
    let (_, message) = refusal(|d| d["rules"][0]["if"]["is"] = json!("contains"));
    assert!(
        message.contains("its operators are equal, not_equal, set, empty"),
        "{message}"
    );
}

#[test]
fn a_rule_may_only_name_tasks_after_the_ones_it_reads() {
    // "Remote?" is on the first task: the first task itself cannot be shown by it.
    assert_refused(
        "rules[0].show[0]",
        "is the task that holds element \"Remote?\"",
        |d| {
            d["rules"][0]["show"] = json!(["profile"]);
        },
    );
    // A condition on "Security training"'s element may not hide "Ship a laptop", before it.
    assert_refused(
        "rules[0].hide[0]",
        "task \"Ship a laptop\" comes before the task holding element \"Score\"",
        |d| {
            task(d, 2)["custom_elements"] =
                json!([{"ref": "score", "type": "number", "label": "Score"}]);
            d["rules"][0] = json!({"if": {"all": [
            {"element": "remote", "is": "equal", "value": true},
            {"element": "score", "is": "less_than", "value": 50}]},
            "hide": ["ship-laptop"]});
        },
    );
    // After both of them is fine.
    let mut document = onboarding();
    task(&mut document, 2)["custom_elements"] =
        json!([{"ref": "score", "type": "number", "label": "Score"}]);
    document["rules"][0] = json!({"if": {"any": [
        {"element": "remote", "is": "equal", "value": true},
        {"element": "score", "is": "less_than", "value": 50}]},
        "hide": ["git-access"]});
    build(document).unwrap();
}

#[test]
fn a_dependency_cycle_is_refused_naming_its_tasks() {
    assert_refused(
        "sections[0].tasks[2].depends_on",
        "cycle: \"Security training\" → \"Grant production access\" → \"Security training\"",
        |d| task(d, 2)["depends_on"] = json!(["grant-access"]),
    );
    assert_refused(
        "sections[0].tasks[1].depends_on",
        "\"Ship a laptop\" → \"Git access\" → \"Security training\" → \"Ship a laptop\"",
        |d| {
            task(d, 1)["depends_on"] = json!(["git-access"]);
            task(d, 5)["depends_on"] = json!(["security-training"]);
            task(d, 2)["depends_on"] = json!(["ship-laptop"]);
        },
    );
}

#[test]
fn a_task_depending_on_itself_is_refused() {
    assert_refused(
        "sections[0].tasks[4].depends_on[0]",
        "task \"Grant production access\" cannot depend on itself",
        |d| {
            task(d, 4)["depends_on"] = json!(["grant-access"]);
        },
    );
}

#[test]
fn a_task_named_twice_is_refused() {
    assert_refused("sections[0].tasks[4].depends_on[1]", "named twice", |d| {
        task(d, 4)["depends_on"] = json!(["security-training", "security-training"]);
    });
    assert_refused("rules[0].hide[0]", "named twice by the rule", |d| {
        d["rules"][0]["hide"] = json!(["ship-laptop"]);
    });
}

#[test]
fn a_rule_that_names_no_task_is_refused() {
    assert_refused("rules[0]", "shows or hides at least one task", |d| {
        d["rules"][0]["show"] = json!([]);
    });
}

#[test]
fn too_many_rules_or_conditions_are_refused() {
    assert_refused(
        "rules",
        &format!("at most {MAX_RULES} rules, not {}", MAX_RULES + 1),
        |d| {
            let rule = d["rules"][0].clone();
            d["rules"] = Value::Array(vec![rule; MAX_RULES + 1]);
        },
    );
    assert_refused("rules[0].if", "holds 1 to 20 conditions, not 21", |d| {
        let condition = d["rules"][0]["if"].clone();
        d["rules"][0]["if"] = json!({"all": vec![condition; 21]});
    });
    assert_refused("rules[0].if", "holds 1 to 20 conditions, not 0", |d| {
        d["rules"][0]["if"] = json!({"any": []});
    });
}

#[test]
fn a_malformed_rule_is_refused_at_its_path() {
    assert_refused("rules[0].when", "unknown field `when`", |d| {
        d["rules"][0]["when"] = json!(1);
    });
    assert_refused("rules[1].if.is", "unknown variant `is`", |d| {
        d["rules"][1]["if"]["is"] = json!("is");
    });
}
