//! The webhook use cases over the in-memory fakes: fan-out, samples, redelivery, rotation and
//! the event feed.

#![expect(
    clippy::unwrap_used,
    reason = "test set-up: an unexpected outcome fails the test"
)]

use std::sync::Arc;

use procflow_domain::ports::{Clock, LeasedQueue, TeamStore};
use procflow_domain::service::{CreateRun, Ports, Procflow, UpdateTask, WebhookPorts, Webhooks};
use procflow_domain::team::Team;
use procflow_domain::template::{Template, TemplateDocument};
use procflow_domain::values::PageRequest;
use procflow_domain::webhook::{
    Deliveries, DeliveryFilter, DeliveryOrigin, DeliveryStatus, EventNames, NewWebhook,
    WebhookEndpoint, WebhookEvent, WebhookPatch,
};
use procflow_memory::{FixedClock, InMemoryStore, SequentialIds};
use serde_json::{Value, json};
use time::Duration;

fn block<F: std::future::Future>(future: F) -> F::Output {
    futures_executor::block_on(future)
}

struct World {
    store: Arc<InMemoryStore>,
    clock: Arc<FixedClock>,
    procflow: Procflow,
    webhooks: Webhooks,
    team: Team,
}

fn world() -> World {
    let store = Arc::new(InMemoryStore::default());
    let clock = Arc::new(FixedClock::default());
    let ids = Arc::new(SequentialIds::default());
    let procflow = Procflow::new(Ports {
        templates: store.clone(),
        runs: store.clone(),
        teams: store.clone(),
        clock: clock.clone(),
        ids: ids.clone(),
    });
    let webhooks = Webhooks::new(WebhookPorts {
        webhooks: store.clone(),
        deliveries: store.clone(),
        feed: store.clone(),
        outbox: store.clone(),
        teams: store.clone(),
        runs: store.clone(),
        clock: clock.clone(),
        ids,
    });
    let team = store.demo_team();
    World {
        store,
        clock,
        procflow,
        webhooks,
        team,
    }
}

impl World {
    fn template(&self) -> Template {
        let document = TemplateDocument::from_json(json!({
            "title": "Onboarding",
            "sections": [{"title": "Week one", "tasks": [
                {"title": "Sign", "webhook_enabled": true},
                {"title": "Wave"}
            ]}]
        }))
        .unwrap();
        let template = block(self.procflow.create_template(&self.team, document)).unwrap();
        block(
            self.procflow
                .publish_template(&self.team, template.id, true),
        )
        .unwrap()
    }

    fn endpoint(&self, events: Option<&[&str]>, enabled: bool) -> WebhookEndpoint {
        let names = events.map(|names| {
            EventNames::parse(&names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>()).unwrap()
        });
        block(self.webhooks.create(
            &self.team,
            NewWebhook {
                url: "https://hooks.example.com/in".parse().unwrap(),
                events: names,
                description: None,
                enabled: Some(enabled),
            },
        ))
        .unwrap()
    }

    fn deliveries(&self, endpoint: &WebhookEndpoint) -> Vec<procflow_domain::webhook::Delivery> {
        block(self.webhooks.deliveries(
            &self.team,
            endpoint.id,
            DeliveryFilter::default(),
            PageRequest::default(),
        ))
        .unwrap()
        .items
    }

    fn dispatch(&self) -> usize {
        block(self.webhooks.dispatch(100, Duration::minutes(1)))
            .unwrap()
            .taken
    }
}

fn payload(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn an_event_reaches_each_enabled_endpoint_subscribed_to_it_once() {
    let w = world();
    w.clock.advance(Duration::seconds(1));
    let all = w.endpoint(None, true);
    let completed_only = w.endpoint(Some(&["process_run.completed"]), true);
    let disabled = w.endpoint(None, false);
    let template = w.template();
    let run = block(w.procflow.create_run(&w.team, CreateRun::of(template.id))).unwrap();

    assert_eq!(w.dispatch(), 1);
    assert_eq!(w.dispatch(), 0, "a dispatched event is not taken again");
    let sent = w.deliveries(&all);
    assert_eq!(sent.len(), 1);
    assert!(w.deliveries(&completed_only).is_empty());
    assert!(w.deliveries(&disabled).is_empty());
    let envelope = payload(&sent[0].payload);
    assert_eq!(envelope["event"], "process_run.created");
    assert_eq!(envelope["data"]["instance_id"], run.id.to_string());
    assert_eq!(envelope["data"]["task_count"], 2);
    assert_eq!(envelope["test"], false);
    assert_eq!(sent[0].status, DeliveryStatus::Pending);
    assert_eq!(sent[0].origin, DeliveryOrigin::Event);
}

#[test]
fn only_tasks_with_webhook_enabled_raise_a_step_webhook_and_it_names_the_member() {
    let w = world();
    w.clock.advance(Duration::seconds(1));
    let endpoint = w.endpoint(Some(&["process_step.completed"]), true);
    let template = w.template();
    let run = block(w.procflow.create_run(&w.team, CreateRun::of(template.id))).unwrap();
    let tasks = block(
        w.procflow
            .list_tasks(&w.team, run.id, PageRequest::default()),
    )
    .unwrap()
    .items;
    for task in &tasks {
        block(w.procflow.update_task(
            &w.team,
            run.id,
            task.id,
            UpdateTask {
                completed: Some(true),
                actor_email: Some("admin@demo.example".parse().unwrap()),
                ..UpdateTask::default()
            },
        ))
        .unwrap();
    }
    w.dispatch();
    let sent = w.deliveries(&endpoint);
    assert_eq!(sent.len(), 1, "only the webhook-enabled task");
    let data = &payload(&sent[0].payload)["data"];
    assert_eq!(data["task_id"], tasks[0].id.to_string());
    assert_eq!(data["section_id"], tasks[0].section_id.to_string());
    let admin = block(
        w.store
            .find_member_by_email(w.team.id, &"admin@demo.example".parse().unwrap()),
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        data["completed_by"],
        json!({"user_id": admin.id.to_string(), "email": "admin@demo.example", "is_guest": false})
    );
}

#[test]
fn an_endpoint_created_after_an_event_does_not_receive_it() {
    let w = world();
    let template = w.template();
    block(w.procflow.create_run(&w.team, CreateRun::of(template.id))).unwrap();
    w.clock.advance(Duration::seconds(1));
    let late = w.endpoint(None, true);
    w.dispatch();
    assert!(w.deliveries(&late).is_empty());
    let feed = block(w.webhooks.events(&w.team, None, PageRequest::default())).unwrap();
    assert_eq!(feed.items.len(), 1, "the event stays in the feed");
}

#[test]
fn a_redelivery_and_a_test_keep_their_event_and_payload() {
    let w = world();
    w.clock.advance(Duration::seconds(1));
    let endpoint = w.endpoint(None, true);
    let template = w.template();
    block(w.procflow.create_run(&w.team, CreateRun::of(template.id))).unwrap();
    w.dispatch();
    let original = w.deliveries(&endpoint).remove(0);
    let again = block(w.webhooks.redeliver(&w.team, original.id)).unwrap();
    assert_ne!(again.id, original.id);
    assert_eq!(
        (again.event_id, &again.payload, again.origin),
        (
            original.event_id,
            &original.payload,
            DeliveryOrigin::Redelivery
        )
    );
    let test = block(
        w.webhooks
            .send_test(&w.team, endpoint.id, WebhookEvent::StepCompleted),
    )
    .unwrap();
    assert_eq!(test.origin, DeliveryOrigin::Test);
    let sample = payload(&test.payload);
    assert_eq!(sample["test"], true);
    assert_eq!(sample["event"], "process_step.completed");
    assert_eq!(sample["id"], test.event_id.to_string());
    assert_eq!(w.deliveries(&endpoint).len(), 3);
    let feed = block(w.webhooks.events(&w.team, None, PageRequest::default())).unwrap();
    assert_eq!(feed.items.len(), 1, "samples are not events of the feed");
}

#[test]
fn deleting_an_endpoint_drops_its_pending_deliveries() {
    let w = world();
    w.clock.advance(Duration::seconds(1));
    let endpoint = w.endpoint(None, true);
    let template = w.template();
    block(w.procflow.create_run(&w.team, CreateRun::of(template.id))).unwrap();
    w.dispatch();
    block(w.webhooks.delete(&w.team, endpoint.id)).unwrap();
    let backlog = block(LeasedQueue::<Deliveries>::backlog(&*w.store)).unwrap();
    assert_eq!(backlog.pending, 0);
    assert!(block(w.webhooks.get(&w.team, endpoint.id)).is_err());
}

#[test]
fn rotation_keeps_the_old_secret_signing_for_a_day() {
    let w = world();
    let endpoint = w.endpoint(None, true);
    let rotated = block(w.webhooks.rotate_secret(&w.team, endpoint.id)).unwrap();
    assert_ne!(rotated.secrets.current, endpoint.secrets.current);
    let now = w.clock.now();
    assert_eq!(
        rotated.secrets.signing(now),
        vec![&rotated.secrets.current, &endpoint.secrets.current]
    );
    assert_eq!(rotated.secrets.signing(now + Duration::days(1)).len(), 1);
    let patched = block(w.webhooks.update(
        &w.team,
        endpoint.id,
        WebhookPatch {
            events: Some(EventNames::parse(&["process_run.created".to_owned()]).unwrap()),
            ..WebhookPatch::default()
        },
        None,
    ))
    .unwrap();
    assert_eq!(
        patched.secrets, rotated.secrets,
        "a patch keeps the secrets"
    );
}
