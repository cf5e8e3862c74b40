//! The delivery worker as a process: killed with SIGKILL while it holds a delivery, the lease
//! runs out and another worker delivers it.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use procflow_domain::ports::{DeliveryQueue, LeasedQueue, TeamStore};
use procflow_domain::team::{Member, Role, Subscription, Team};
use procflow_domain::webhook::{Deliveries, Delivery, DeliveryStatus, NewWebhook, WebhookEvent};
use procflow_postgres::testing::migrated_database;
use procflow_postgres::{PgStore, PoolConfig};
use procflow_server::worker::{WorkerArgs, spawn_worker};
use procflow_testkit::receiver::{Answer, Receiver};
use uuid::Uuid;

const WAIT: Duration = Duration::from_secs(30);

/// A `procflow worker` child, killed if the test fails before it is.
struct Worker(Child);

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub async fn team(store: &PgStore) -> Team {
    let now = time::OffsetDateTime::now_utc();
    let team = Team {
        id: procflow_domain::ids::TeamId::from_uuid(Uuid::now_v7()),
        name: "Workers".into(),
        base_url: "http://workers.example".into(),
        timezone: "UTC".into(),
        subscription: Subscription::Active,
        created_at: now,
    };
    let admin = Member {
        id: procflow_domain::ids::UserId::from_uuid(Uuid::now_v7()),
        team_id: team.id,
        email: "admin@workers.example".parse().unwrap(),
        name: None,
        role: Role::Admin,
        active: true,
        created_at: now,
    };
    store.create_team(&team, &admin).await.unwrap();
    team
}

/// A test delivery of `team` to a new endpoint at a receiver that never answers, so that
/// whoever attempts it holds it until the attempt's time limit.
pub async fn test_delivery_to_a_hanging_receiver(
    store: &PgStore,
    team: &Team,
) -> (Receiver, Delivery) {
    let receiver = Receiver::start().await;
    receiver.answer_by_default(Answer::Hang);
    let webhooks = procflow_server::webhooks_on(store);
    let endpoint = webhooks
        .create(
            team,
            NewWebhook {
                url: receiver.url().parse().unwrap(),
                events: None,
                description: None,
                enabled: None,
            },
        )
        .await
        .unwrap();
    let delivery = webhooks
        .send_test(team, endpoint.id, WebhookEvent::RunCreated)
        .await
        .unwrap();
    (receiver, delivery)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_killed_holding_a_lease_loses_nothing() {
    let db = migrated_database().await;
    let store = PgStore::new(&PoolConfig::new(db.url())).unwrap();
    let team = team(&store).await;
    let (mut receiver, delivery) = test_delivery_to_a_hanging_receiver(&store, &team).await;

    let child = Command::new(env!("CARGO_BIN_EXE_procflow"))
        .arg("worker")
        .env("DATABASE_URL", db.url())
        .env("PROCFLOW_BIND", "127.0.0.1:0")
        .env("PROCFLOW_WEBHOOK_ALLOW_PRIVATE", "true")
        .env("PROCFLOW_WORKER_LEASE_SECONDS", "2")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut killed = Worker(child);
    let held = receiver.wait_for(1, WAIT).await.remove(0);
    let shown = store.get_delivery(team.id, delivery.id).await.unwrap();
    assert_eq!(
        shown.status,
        DeliveryStatus::Delivering,
        "the child holds it"
    );
    killed.0.kill().unwrap(); // SIGKILL: no shutdown, no release.
    killed.0.wait().unwrap();

    receiver.answer_by_default(Answer::Status(200, None));
    receiver.restart().await;
    let args = WorkerArgs {
        webhook_allow_private: true,
        webhook_retry_schedule: "1s".parse().unwrap(),
        worker_concurrency: 4,
        worker_lease: Duration::from_secs(2),
        worker_poll: Duration::from_millis(100),
        smtp_url: None,
        smtp_from: "procflow@localhost".parse().unwrap(),
        mail_dir: None,
        scheduler_interval: Duration::from_secs(60),
    };
    let survivor = spawn_worker(&store, &args.settings()).unwrap();
    let again = receiver.wait_for(2, WAIT).await.remove(1);
    assert_eq!(again.header("webhook-id"), held.header("webhook-id"));
    let until = Instant::now() + WAIT;
    loop {
        let shown = store.get_delivery(team.id, delivery.id).await.unwrap();
        if shown.status == DeliveryStatus::Delivered {
            assert_eq!(shown.attempts, 2, "the killed attempt counts");
            break;
        }
        assert!(Instant::now() < until, "not delivered in time: {shown:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    survivor.stop().await;
    assert_eq!(
        LeasedQueue::<Deliveries>::backlog(&store)
            .await
            .unwrap()
            .pending,
        0
    );
}
