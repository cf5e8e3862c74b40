//! `ScheduleStore` and the scheduler (API contract 13.1): reads and writes scoped to a team,
//! each due occurrence starting exactly one run however many instances tick, only the latest
//! missed occurrence after downtime, and failures recorded without a run.

use std::sync::Arc;

use procflow_domain::error::{DomainError, Resource};
use procflow_domain::etag::{IfMatch, Tagged};
use procflow_domain::event::EventPayload;
use procflow_domain::ids::ScheduleId;
use procflow_domain::mail::MailKind;
use procflow_domain::ports::{ScheduleFilter, ScheduleStore};
use procflow_domain::run::RunFilter;
use procflow_domain::schedule::{ScheduledInvite, ScheduledRun};
use procflow_domain::service::{
    MailPorts, Mailer, NewSchedule, Ports, Procflow, SchedulePatch, Schedules,
};
use procflow_domain::team::{Member, Role};
use procflow_domain::values::{Cursor, Limit, PageRequest};
use procflow_domain::webhook::WebhookEvent;
use time::Duration;
use time::macros::datetime;
use uuid::Uuid;

use super::env::{ClaimJobs, Env, Queues, Store, conformance_test};
use super::support::{V7Ids, daily_schedule, document, member, published};

fn schedules_of(env: &Env, store: Arc<dyn Store>, procflow: Procflow) -> Schedules {
    let _ = env;
    Schedules::new(procflow, store as Arc<dyn ScheduleStore>)
}

fn schedules(env: &Env) -> Schedules {
    schedules_of(env, env.store.clone(), env.procflow.clone())
}

/// Noon in Paris every day from 2026-03-01 (11:00 UTC in winter; the env's clock is 09:00 UTC).
fn daily_noon(template: procflow_domain::ids::TemplateId) -> NewSchedule {
    NewSchedule {
        template_id: template,
        name: Some("Daily check".into()),
        recurrence: "DTSTART:20260301T120000\nRRULE:FREQ=DAILY".into(),
        timezone: None,
        enabled: None,
        run: ScheduledRun {
            name: Some("Check {date}".into()),
            ..ScheduledRun::default()
        },
    }
}

fn all() -> PageRequest {
    PageRequest {
        limit: Limit::new(100).unwrap(),
        cursor: None,
    }
}

conformance_test!(a_schedule_reads_back_lists_changes_and_is_scoped_to_its_team);
async fn a_schedule_reads_back_lists_changes_and_is_scoped_to_its_team(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let service = schedules(&env);
    let created = service
        .create(&env.team, daily_noon(template.id))
        .await
        .unwrap();
    assert_eq!(
        created.recurrence.timezone().name(),
        "Europe/Paris",
        "the team's zone"
    );
    assert_eq!(created.next_run_at, Some(datetime!(2026-03-01 11:00 UTC)));
    assert!(created.enabled);
    assert_eq!(service.get(&env.team, created.id).await.unwrap(), created);
    assert_eq!(
        service.get(&env.other, created.id).await,
        Err(DomainError::NotFound(Resource::Schedule))
    );
    assert_eq!(
        service.delete(&env.other, created.id).await,
        Err(DomainError::NotFound(Resource::Schedule))
    );
    let other_template = published(&env, &env.other, document()).await;
    assert_eq!(
        service
            .create(&env.team, daily_noon(other_template.id))
            .await,
        Err(DomainError::NotFound(Resource::Template))
    );

    let second = service
        .create(
            &env.team,
            NewSchedule {
                enabled: Some(false),
                ..daily_noon(template.id)
            },
        )
        .await
        .unwrap();
    let listed = service
        .list(&env.team, ScheduleFilter::default(), all())
        .await
        .unwrap();
    assert_eq!(
        listed.items.iter().map(|s| s.id).collect::<Vec<_>>(),
        [created.id, second.id],
        "oldest first"
    );
    let enabled = service
        .list(
            &env.team,
            ScheduleFilter {
                enabled: Some(true),
                ..ScheduleFilter::default()
            },
            all(),
        )
        .await
        .unwrap();
    assert_eq!(enabled.items, std::slice::from_ref(&created));
    // A cursor must name a schedule of the filtered list: the disabled one is none of the
    // enabled ones', though it is the team's (API contract 3).
    for (enabled, cursor) in [(true, second.id), (false, created.id)] {
        let refused = service
            .list(
                &env.team,
                ScheduleFilter {
                    enabled: Some(enabled),
                    ..ScheduleFilter::default()
                },
                PageRequest {
                    limit: Limit::new(10).unwrap(),
                    cursor: Some(Cursor::after(cursor.as_uuid())),
                },
            )
            .await;
        assert!(
            matches!(refused, Err(DomainError::Validation(_))),
            "enabled {enabled}: {refused:?}"
        );
    }
    let first_page = service
        .list(
            &env.team,
            ScheduleFilter::default(),
            PageRequest {
                limit: Limit::new(1).unwrap(),
                cursor: None,
            },
        )
        .await
        .unwrap();
    let second_page = service
        .list(
            &env.team,
            ScheduleFilter::default(),
            PageRequest {
                limit: Limit::new(1).unwrap(),
                cursor: first_page.next_cursor,
            },
        )
        .await
        .unwrap();
    assert_eq!(second_page.items, std::slice::from_ref(&second));
    // After the last: an empty page; after an id that is no schedule of the team: refused.
    let after = |cursor| PageRequest {
        limit: Limit::new(1).unwrap(),
        cursor: Some(Cursor::after(cursor)),
    };
    let end = service
        .list(
            &env.team,
            ScheduleFilter::default(),
            after(second.id.as_uuid()),
        )
        .await
        .unwrap();
    assert!(end.items.is_empty() && end.next_cursor.is_none());
    for (team, unknown) in [
        (&env.team, Uuid::from_u128(7)),
        (&env.other, created.id.as_uuid()),
    ] {
        let refused = service
            .list(team, ScheduleFilter::default(), after(unknown))
            .await;
        assert!(
            matches!(refused, Err(DomainError::Validation(_))),
            "{refused:?}"
        );
    }
    assert!(
        service
            .list(&env.other, ScheduleFilter::default(), all())
            .await
            .unwrap()
            .items
            .is_empty()
    );

    // A change under a stale tag changes nothing; under the current one it applies.
    let stale = IfMatch::OneOf(vec![created.etag()]);
    let renamed = service
        .update(
            &env.team,
            created.id,
            SchedulePatch {
                name: Some(Some("Renamed".into())),
                recurrence: Some("DTSTART:20260301T180000\nRRULE:FREQ=WEEKLY;BYDAY=MO".into()),
                if_match: Some(stale.clone()),
                ..SchedulePatch::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(renamed.name.as_deref(), Some("Renamed"));
    assert_eq!(
        renamed.next_run_at,
        Some(datetime!(2026-03-02 17:00 UTC)),
        "the next Monday 18:00 in Paris"
    );
    assert_ne!(renamed.etag(), created.etag());
    assert_eq!(
        service
            .update(
                &env.team,
                created.id,
                SchedulePatch {
                    enabled: Some(false),
                    if_match: Some(stale),
                    ..SchedulePatch::default()
                },
            )
            .await,
        Err(DomainError::PreconditionFailed)
    );
    assert_eq!(service.get(&env.team, created.id).await.unwrap(), renamed);

    service.delete(&env.team, created.id).await.unwrap();
    assert_eq!(
        service.get(&env.team, created.id).await,
        Err(DomainError::NotFound(Resource::Schedule))
    );
}

conformance_test!(a_due_occurrence_starts_one_run_and_moves_the_schedule_on);
async fn a_due_occurrence_starts_one_run_and_moves_the_schedule_on(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let service = schedules(&env);
    let schedule = service
        .create(
            &env.team,
            NewSchedule {
                run: ScheduledRun {
                    name: Some("Check {date}".into()),
                    due_in: Some("P1D".parse().unwrap()),
                    invite: Some(ScheduledInvite {
                        email: "guest@elsewhere.example".parse().unwrap(),
                        enable_reminders: false,
                        reminder_days: None,
                    }),
                    ..ScheduledRun::default()
                },
                ..daily_noon(template.id)
            },
        )
        .await
        .unwrap();
    env.events().await;

    // Not due yet: nothing.
    let early = service.tick(100).await.unwrap();
    assert!(early.started.is_empty() && early.failed.is_empty());

    env.clock.advance(Duration::hours(2));
    let tick = service.tick(100).await.unwrap();
    assert_eq!(tick.started.len(), 1, "{tick:?}");
    assert!(tick.errors.is_empty(), "{tick:?}");
    let (_, run_id) = tick.started[0];
    let run = env.store.get_run(env.team.id, run_id).await.unwrap();
    assert_eq!(run.title, "Check 2026-03-01");
    assert_eq!(run.due_date, Some(datetime!(2026-03-02 11:00 UTC)));
    assert!(run.is_shared, "run.invite shares each run");
    let names = env.event_names().await;
    assert!(names.contains(&"process_run.created"), "{names:?}");
    assert!(names.contains(&"process_run.guest_invited"), "{names:?}");

    let moved = service.get(&env.team, schedule.id).await.unwrap();
    assert_eq!(moved.next_run_at, Some(datetime!(2026-03-02 11:00 UTC)));
    assert_eq!(moved.last_run_at, Some(datetime!(2026-03-01 11:00 UTC)));
    assert_eq!(moved.last_run_id, Some(run_id));
    assert_eq!((moved.missed_count, moved.last_error.clone()), (0, None));

    // The same instant again starts nothing more.
    let again = service.tick(100).await.unwrap();
    assert!(again.started.is_empty(), "{again:?}");
    let runs = env
        .store
        .list_runs(env.team.id, RunFilter::default(), all())
        .await
        .unwrap();
    assert_eq!(runs.items.len(), 1);
}

conformance_test!(after_downtime_only_the_latest_missed_occurrence_runs);
async fn after_downtime_only_the_latest_missed_occurrence_runs(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let service = schedules(&env);
    let schedule = service
        .create(&env.team, daily_noon(template.id))
        .await
        .unwrap();
    // Down from before the first occurrence until the fifth day's, plus an hour.
    env.clock.advance(Duration::days(4) + Duration::hours(3));
    let tick = service.tick(100).await.unwrap();
    assert_eq!(tick.started.len(), 1, "{tick:?}");
    let run = env
        .store
        .get_run(env.team.id, tick.started[0].1)
        .await
        .unwrap();
    assert_eq!(run.title, "Check 2026-03-05");
    let moved = service.get(&env.team, schedule.id).await.unwrap();
    assert_eq!(moved.missed_count, 4);
    assert_eq!(moved.last_run_at, Some(datetime!(2026-03-05 11:00 UTC)));
    assert_eq!(moved.next_run_at, Some(datetime!(2026-03-06 11:00 UTC)));
}

conformance_test!(an_occurrence_of_an_unpublished_template_records_why_and_stays_enabled);
async fn an_occurrence_of_an_unpublished_template_records_why_and_stays_enabled(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let service = schedules(&env);
    let schedule = service
        .create(&env.team, daily_noon(template.id))
        .await
        .unwrap();
    env.procflow
        .publish_template(&env.team, template.id, false)
        .await
        .unwrap();
    env.clock.advance(Duration::hours(2));
    let tick = service.tick(100).await.unwrap();
    assert!(tick.started.is_empty(), "{tick:?}");
    assert_eq!(tick.failed.len(), 1, "{tick:?}");
    let failed = service.get(&env.team, schedule.id).await.unwrap();
    let error = failed.last_error.clone().expect("last_error");
    assert_eq!(error.code, "template_not_published");
    assert_eq!(error.at, datetime!(2026-03-01 11:00 UTC));
    assert!(failed.enabled);
    assert_eq!(failed.next_run_at, Some(datetime!(2026-03-02 11:00 UTC)));
    assert_eq!(failed.last_run_id, None);
    assert!(
        env.store
            .list_runs(env.team.id, RunFilter::default(), all())
            .await
            .unwrap()
            .items
            .is_empty()
    );

    // Published again, the next occurrence runs and clears the error.
    env.procflow
        .publish_template(&env.team, template.id, true)
        .await
        .unwrap();
    env.clock.advance(Duration::days(1));
    let tick = service.tick(100).await.unwrap();
    assert_eq!(tick.started.len(), 1, "{tick:?}");
    let recovered = service.get(&env.team, schedule.id).await.unwrap();
    assert_eq!(recovered.last_error, None);
}

conformance_test!(a_failed_occurrence_writes_one_event_and_one_email_per_active_admin_and_no_run);
async fn a_failed_occurrence_writes_one_event_and_one_email_per_active_admin_and_no_run(env: Env) {
    let team = &env.team;
    // Admins: admin@a.example (from the env) and ops@a.example; an inactive admin and a
    // member (member@a.example) are not told.
    env.store
        .add_member(&member(team, 3, "ops@a.example", Role::Admin))
        .await
        .unwrap();
    let gone = member(team, 4, "gone@a.example", Role::Admin);
    env.store.add_member(&gone).await.unwrap();
    env.store
        .update_member(&Member {
            active: false,
            ..gone
        })
        .await
        .unwrap();
    let template = published(&env, team, document()).await;
    let service = schedules(&env);
    let schedule = service.create(team, daily_noon(template.id)).await.unwrap();
    let _ = env.events().await;
    env.procflow
        .publish_template(team, template.id, false)
        .await
        .unwrap();
    let _ = env.events().await;

    env.clock.advance(Duration::hours(2));
    let tick = service.tick(100).await.unwrap();
    assert_eq!(tick.failed.len(), 1, "{tick:?}");
    let events = env.events().await;
    assert_eq!(events.len(), 1, "{events:?}");
    let event = &events[0];
    assert_eq!(event.team_id, team.id);
    assert_eq!(
        event.payload,
        EventPayload::ScheduleFailed {
            schedule_id: schedule.id,
            schedule_name: Some("Daily check".into()),
            template_id: template.id,
            occurrence_at: datetime!(2026-03-01 11:00 UTC),
            code: "template_not_published".into(),
            message: service
                .get(team, schedule.id)
                .await
                .unwrap()
                .last_error
                .expect("last_error")
                .message,
        }
    );
    assert!(
        env.store
            .list_runs(team.id, RunFilter::default(), all())
            .await
            .unwrap()
            .items
            .is_empty()
    );
    // In the feed, by name.
    let feed = env
        .store
        .list_events(team.id, Some(WebhookEvent::ScheduleFailed), all())
        .await
        .unwrap();
    assert_eq!(
        feed.items.iter().map(|e| e.id).collect::<Vec<_>>(),
        vec![event.id]
    );

    // One email to each active admin, however often the fan-out runs.
    let mailer = Mailer::new(MailPorts {
        queue: env.store.clone(),
        notices: env.store.clone(),
        teams: env.store.clone(),
        runs: env.store.clone(),
        clock: env.clock.clone(),
        ids: Arc::new(V7Ids),
    });
    assert_eq!(mailer.fan_out(&events).await.unwrap(), 2);
    mailer.fan_out(&events).await.unwrap();
    let now = env.clock_now();
    let mut mails = env
        .store
        .mails()
        .claim_jobs(10, now, now + Duration::seconds(30), Uuid::from_u128(1))
        .await
        .unwrap();
    mails.sort_by(|a, b| a.recipient.as_str().cmp(b.recipient.as_str()));
    assert_eq!(
        mails
            .iter()
            .map(|m| (m.recipient.as_str(), m.kind, m.event_id))
            .collect::<Vec<_>>(),
        vec![
            ("admin@a.example", MailKind::ScheduleFailed, event.id),
            ("ops@a.example", MailKind::ScheduleFailed, event.id),
        ]
    );
    assert_eq!(mails[0].content.run_title, "Daily check");
    assert_eq!(
        mails[0].content.due_date,
        Some(datetime!(2026-03-01 11:00 UTC))
    );
    assert!(
        mails[0]
            .content
            .problem
            .as_deref()
            .is_some_and(|p| p.ends_with("(template_not_published)")),
        "{:?}",
        mails[0].content
    );

    // The next failure raises its own event; the schedule stays enabled throughout.
    env.clock.advance(Duration::days(1));
    let tick = service.tick(100).await.unwrap();
    assert_eq!(tick.failed.len(), 1, "{tick:?}");
    assert_eq!(env.event_names().await, vec!["schedule.failed"]);
    assert!(service.get(team, schedule.id).await.unwrap().enabled);
}

conformance_test!(disabled_and_finished_schedules_are_not_due);
async fn disabled_and_finished_schedules_are_not_due(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let service = schedules(&env);
    service
        .create(
            &env.team,
            NewSchedule {
                enabled: Some(false),
                ..daily_noon(template.id)
            },
        )
        .await
        .unwrap();
    let once = service
        .create(
            &env.team,
            NewSchedule {
                recurrence: "DTSTART:20260301T120000\nRRULE:FREQ=DAILY;COUNT=1".into(),
                ..daily_noon(template.id)
            },
        )
        .await
        .unwrap();
    env.clock.advance(Duration::days(3));
    let due = env.store.due_schedules(env.clock_now(), 100).await.unwrap();
    assert_eq!(due.iter().map(|s| s.id).collect::<Vec<_>>(), [once.id]);
    assert_eq!(service.tick(100).await.unwrap().started.len(), 1);
    let finished = service.get(&env.team, once.id).await.unwrap();
    assert_eq!(finished.next_run_at, None, "no occurrence left");
    assert!(
        env.store
            .due_schedules(env.clock_now() + Duration::days(365), 100)
            .await
            .unwrap()
            .is_empty()
    );
}

conformance_test!(
    two_instances_racing_over_a_thousand_due_occurrences_start_a_thousand_runs,
    worker_threads = 4
);
/// 1,000 schedules due at once, two instances (two pools on one database) ticking in
/// parallel in small batches: every occurrence starts exactly one run. Without the
/// conditional move of `next_run_at` both would start most of them.
async fn two_instances_racing_over_a_thousand_due_occurrences_start_a_thousand_runs(env: Env) {
    const SCHEDULES: usize = 1_000;
    let template = published(&env, &env.team, document()).await;
    for n in 0..SCHEDULES {
        let id = ScheduleId::from_uuid(Uuid::from_u128(0x5C00_0000 + n as u128));
        let schedule = daily_schedule(&env, template.id, id, env.clock_now());
        env.store.insert_schedule(&schedule).await.unwrap();
    }
    env.clock.advance(Duration::hours(1));
    let instances: Vec<Schedules> = (0..2)
        .map(|_| {
            let store = env.another_instance(4);
            let procflow = Procflow::new(Ports {
                templates: store.clone(),
                runs: store.clone(),
                teams: store.clone(),
                clock: env.clock.clone(),
                ids: Arc::new(V7Ids),
            });
            schedules_of(&env, store, procflow)
        })
        .collect();
    let tasks: Vec<_> = instances
        .into_iter()
        .map(|instance| {
            tokio::spawn(async move {
                let (mut started, mut lost) = (0, 0);
                loop {
                    let tick = instance.tick(25).await.unwrap();
                    assert!(tick.errors.is_empty() && tick.failed.is_empty(), "{tick:?}");
                    if tick.started.is_empty() && tick.lost == 0 {
                        return (started, lost);
                    }
                    started += tick.started.len();
                    lost += tick.lost;
                }
            })
        })
        .collect();
    let mut started = 0;
    for task in tasks {
        let (by_one, _lost) = task.await.unwrap();
        started += by_one;
    }
    assert_eq!(
        started, SCHEDULES,
        "each occurrence started by exactly one instance"
    );
    let mut runs = 0;
    let mut page = PageRequest {
        limit: Limit::new(100).unwrap(),
        cursor: None,
    };
    loop {
        let listed = env
            .store
            .list_runs(env.team.id, RunFilter::default(), page)
            .await
            .unwrap();
        runs += listed.items.len();
        match listed.next_cursor {
            Some(cursor) => page.cursor = Some(cursor),
            None => break,
        }
    }
    assert_eq!(runs, SCHEDULES);
    assert!(
        env.store
            .due_schedules(env.clock_now(), 10)
            .await
            .unwrap()
            .is_empty()
    );
}
