//! Pagination over the fakes: limit, cursor, has_more, next_cursor and the order of each list.

use super::*;

/// Reads every page of a list with `limit`, checking each page's cursor and `has_more`.
fn walk<T: Clone>(
    limit: i64,
    id: impl Fn(&T) -> Uuid,
    mut read: impl FnMut(PageRequest) -> Result<Page<T>, DomainError>,
) -> Vec<Vec<T>> {
    let mut pages = Vec::new();
    let mut cursor = None;
    loop {
        let page_read = read(page(limit, cursor)).unwrap();
        assert!(page_read.items.len() <= usize::try_from(limit).unwrap());
        assert_eq!(
            page_read.next_cursor.map(Cursor::id),
            page_read.items.last().map(&id)
        );
        pages.push(page_read.items.clone());
        if !page_read.has_more {
            return pages;
        }
        cursor = page_read.next_cursor;
        assert!(pages.len() < 100, "has_more never turned false");
    }
}

#[test]
fn runs_are_listed_newest_first_page_by_page() {
    let w = world();
    let template = w.published(onboarding());
    let mut started = Vec::new();
    for _ in 0..5 {
        w.clock.advance(Duration::minutes(1));
        started.push(w.start(&template).id);
    }
    let pages = walk(
        2,
        |r: &Run| r.id.as_uuid(),
        |p| block(w.procflow.list_runs(&w.team, RunFilter::default(), p)),
    );
    let ids: Vec<Vec<RunId>> = pages
        .iter()
        .map(|p| p.iter().map(|r| r.id).collect())
        .collect();
    let newest_first: Vec<RunId> = started.iter().rev().copied().collect();
    assert_eq!(
        ids,
        [
            newest_first[0..2].to_vec(),
            newest_first[2..4].to_vec(),
            newest_first[4..].to_vec()
        ]
    );
    // An exact fit says no more follow.
    let all = block(
        w.procflow
            .list_runs(&w.team, RunFilter::default(), page(5, None)),
    )
    .unwrap();
    assert!(!all.has_more);
    assert_eq!(all.items.len(), 5);
}

#[test]
fn runs_are_filtered_by_template_and_status() {
    let w = world();
    let first = w.published(onboarding());
    let second = w.published(form());
    let a = w.start(&first);
    let b = w.start(&second);
    let form_task = w.task(b.id, 0);
    w.update(b.id, form_task.id, complete()).unwrap();
    let list = |filter| {
        block(w.procflow.list_runs(&w.team, filter, page(10, None)))
            .unwrap()
            .items
            .into_iter()
            .map(|r| r.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        list(RunFilter {
            template_id: Some(first.id),
            status: None
        }),
        [a.id]
    );
    assert_eq!(
        list(RunFilter {
            template_id: None,
            status: Some(RunStatus::Completed)
        }),
        [b.id]
    );
    assert_eq!(
        list(RunFilter {
            template_id: Some(first.id),
            status: Some(RunStatus::Completed)
        }),
        Vec::<RunId>::new()
    );
}

#[test]
fn a_cursor_naming_no_item_of_the_list_is_refused() {
    let w = world();
    let template = w.published(onboarding());
    let run = w.start(&template);
    let other_run = w.start(&w.published(form()));
    for cursor in [
        Cursor::after(fixed_uuid(1)),
        Cursor::after(template.id.as_uuid()),
    ] {
        let refused = block(w.procflow.list_runs(
            &w.team,
            RunFilter::default(),
            page(10, Some(cursor)),
        ))
        .unwrap_err();
        assert_eq!(refused_field(refused), "cursor");
    }
    // A run filtered out of the list is no cursor of it.
    let refused = block(w.procflow.list_runs(
        &w.team,
        RunFilter {
            template_id: Some(template.id),
            status: None,
        },
        page(10, Some(Cursor::after(other_run.id.as_uuid()))),
    ))
    .unwrap_err();
    assert_eq!(refused_field(refused), "cursor");
    // A task of another run is no cursor of this run's tasks.
    let foreign_task = w.task(other_run.id, 0).id.as_uuid();
    let refused = block(w.procflow.list_tasks(
        &w.team,
        run.id,
        page(10, Some(Cursor::after(foreign_task))),
    ))
    .unwrap_err();
    assert_eq!(refused_field(refused), "cursor");
    let refused = block(
        w.procflow
            .list_templates(&w.team, page(10, Some(Cursor::after(run.id.as_uuid())))),
    )
    .unwrap_err();
    assert_eq!(refused_field(refused), "cursor");
    let refused = block(w.procflow.list_template_tasks(
        &w.team,
        template.id,
        page(10, Some(Cursor::after(fixed_uuid(2)))),
    ))
    .unwrap_err();
    assert_eq!(refused_field(refused), "cursor");
}

#[test]
fn a_page_holds_twenty_items_unless_told_otherwise() {
    let w = world();
    let template = w.published(onboarding());
    for _ in 0..21 {
        w.start(&template);
    }
    let first = block(
        w.procflow
            .list_runs(&w.team, RunFilter::default(), PageRequest::default()),
    )
    .unwrap();
    assert_eq!(first.items.len(), 20);
    assert!(first.has_more);
    let rest = block(w.procflow.list_runs(
        &w.team,
        RunFilter::default(),
        PageRequest {
            cursor: first.next_cursor,
            ..PageRequest::default()
        },
    ))
    .unwrap();
    assert_eq!(rest.items.len(), 1);
    assert!(!rest.has_more);
}

#[test]
fn an_empty_list_has_no_cursor_and_no_more() {
    let w = world();
    let empty = block(
        w.procflow
            .list_runs(&w.team, RunFilter::default(), page(1, None)),
    )
    .unwrap();
    assert_eq!(
        empty,
        Page {
            items: Vec::new(),
            next_cursor: None,
            has_more: false,
        }
    );
}

fn five_tasks() -> Value {
    json!({
        "title": "Five",
        "sections": [
            {"title": "A", "tasks": [{"title": "t0"}, {"title": "t1"}]},
            {"title": "B", "tasks": [{"title": "t2"}, {"title": "t3"}, {"title": "t4"}]}
        ]
    })
}

#[test]
fn tasks_are_listed_by_order_page_by_page() {
    let w = world();
    let template = w.published(five_tasks());
    let run = w.start(&template);
    let pages = walk(
        2,
        |t: &ListedTask| t.id.as_uuid(),
        |p| block(w.procflow.list_tasks(&w.team, run.id, p)),
    );
    let orders: Vec<Vec<u32>> = pages
        .iter()
        .map(|p| p.iter().map(|t| t.order).collect())
        .collect();
    assert_eq!(orders, [vec![0, 1], vec![2, 3], vec![4]]);
    let titles: Vec<String> = pages.concat().into_iter().map(|t| t.title).collect();
    assert_eq!(titles, ["t0", "t1", "t2", "t3", "t4"]);

    let template_pages = walk(
        3,
        |t: &procflow_domain::template::TemplateTask| t.id.as_uuid(),
        |p| block(w.procflow.list_template_tasks(&w.team, template.id, p)),
    );
    let orders: Vec<Vec<u32>> = template_pages
        .iter()
        .map(|p| p.iter().map(|t| t.order).collect())
        .collect();
    assert_eq!(orders, [vec![0, 1, 2], vec![3, 4]]);
}

#[test]
fn templates_are_listed_by_creation_time_then_id_without_their_tasks() {
    let w = world();
    let mut created = Vec::new();
    for _ in 0..3 {
        w.clock.advance(Duration::minutes(1));
        created.push(w.create(onboarding()));
    }
    // A template with the largest id but the earliest creation time comes first.
    let early = Template {
        id: TemplateId::from_uuid(Uuid::max()),
        created_at: created[0].created_at - Duration::hours(1),
        ..created[0].clone()
    };
    block(w.store.insert_template(&early)).unwrap();
    let archived = w.create(onboarding());
    block(w.procflow.archive_template(&w.team, archived.id)).unwrap();

    let pages = walk(
        2,
        |t: &Template| t.id.as_uuid(),
        |p| block(w.procflow.list_templates(&w.team, p)),
    );
    let ids: Vec<Vec<TemplateId>> = pages
        .iter()
        .map(|p| p.iter().map(|t| t.id).collect())
        .collect();
    assert_eq!(
        ids,
        [
            vec![early.id, created[0].id],
            vec![created[1].id, created[2].id]
        ]
    );
    for template in pages.concat() {
        assert!(template.tasks.is_empty(), "lists carry no tasks");
        assert_eq!(template.sections.len(), 1, "lists carry sections");
    }
}
