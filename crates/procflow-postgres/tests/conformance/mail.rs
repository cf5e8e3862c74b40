//! `MailQueue`: one email per event however often fan-out runs, leases that no other worker
//! can take before they run out, outcomes recorded only under their lease, release at
//! shutdown, the backlog and the sweep.

use std::sync::Arc;

use procflow_domain::ids::{EmailId, EventId, HolderId};
use procflow_domain::mail::{MailContent, MailKind, MailSettlement, MailStatus, NewMail};
use procflow_domain::ports::Backlog;
use procflow_domain::queue::Lease;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::env::{ClaimJobs, Env, Queues, Store, conformance_test};

const T0: OffsetDateTime = datetime!(2026-03-01 9:00 UTC);
const LEASE: Duration = Duration::seconds(30);

fn mail(env: &Env, n: u128, event: u128, at: OffsetDateTime) -> NewMail {
    NewMail {
        id: EmailId::from_uuid(Uuid::from_u128(0xE000 + n)),
        team_id: env.team.id,
        event_id: EventId::from_uuid(Uuid::from_u128(0xEE00 + event)),
        kind: MailKind::GuestInvitation,
        recipient: format!("guest{n}@example.org").parse().unwrap(),
        content: MailContent {
            team_name: "Team a".into(),
            run_title: "Onboarding".into(),
            task_title: None,
            due_date: None,
            share_url: Some("https://a.example/instance/x?token=t".into()),
            comment: None,
            problem: None,
        },
        created_at: at,
    }
}

async fn claim(store: &Arc<dyn Store>, now: OffsetDateTime, lease: Uuid) -> Vec<EmailId> {
    store
        .mails()
        .claim_jobs(10, now, now + LEASE, lease)
        .await
        .unwrap()
        .into_iter()
        .map(|claimed| claimed.id)
        .collect()
}

fn sent(at: OffsetDateTime) -> MailSettlement {
    MailSettlement {
        status: MailStatus::Sent,
        next_attempt_at: None,
        error: None,
        attempted_at: at,
    }
}

conformance_test!(an_event_queues_one_email_however_often_it_is_fanned_out);
async fn an_event_queues_one_email_however_often_it_is_fanned_out(env: Env) {
    let first = mail(&env, 1, 1, T0);
    let again = NewMail {
        id: EmailId::from_uuid(Uuid::from_u128(0xE0FF)),
        ..first.clone()
    };
    env.store
        .enqueue_mail(std::slice::from_ref(&first))
        .await
        .unwrap();
    env.store
        .enqueue_mail(&[again, mail(&env, 2, 2, T0)])
        .await
        .unwrap();

    assert_eq!(
        env.store.mails().backlog().await.unwrap(),
        Backlog {
            pending: 2,
            oldest: Some(T0)
        }
    );
    let claimed = env
        .store
        .mails()
        .claim_jobs(10, T0, T0 + LEASE, Uuid::from_u128(1))
        .await
        .unwrap();
    assert_eq!(claimed.len(), 2);
    assert_eq!(claimed[0].id, first.id, "the first queued is kept");
    assert_eq!(
        (
            &claimed[0].recipient,
            &claimed[0].content,
            claimed[0].attempt
        ),
        (&first.recipient, &first.content, 1)
    );
}

conformance_test!(a_leased_email_goes_to_no_other_worker_until_its_lease_runs_out);
async fn a_leased_email_goes_to_no_other_worker_until_its_lease_runs_out(env: Env) {
    let other = env.another_instance(2);
    env.store
        .enqueue_mail(&[
            mail(&env, 1, 1, T0),
            mail(&env, 2, 2, T0 + Duration::hours(1)),
        ])
        .await
        .unwrap();

    // Only what is due: the second email is queued for later.
    assert_eq!(
        claim(&env.store, T0, Uuid::from_u128(1)).await,
        vec![EmailId::from_uuid(Uuid::from_u128(0xE001))]
    );
    assert!(
        claim(&other, T0 + Duration::seconds(1), Uuid::from_u128(2))
            .await
            .is_empty()
    );
    assert!(
        claim(
            &other,
            T0 + LEASE - Duration::seconds(1),
            Uuid::from_u128(2)
        )
        .await
        .is_empty()
    );

    // The lease ran out (its worker died): another worker takes it, as a second attempt.
    let retaken = other
        .mails()
        .claim_jobs(10, T0 + LEASE, T0 + 2 * LEASE, Uuid::from_u128(2))
        .await
        .unwrap();
    assert_eq!(retaken.len(), 1);
    assert_eq!(retaken[0].attempt, 2);
}

conformance_test!(an_outcome_is_recorded_only_under_the_lease_that_holds_the_email);
async fn an_outcome_is_recorded_only_under_the_lease_that_holds_the_email(env: Env) {
    env.store
        .enqueue_mail(&[mail(&env, 1, 1, T0)])
        .await
        .unwrap();
    let first = env
        .store
        .mails()
        .claim_jobs(10, T0, T0 + LEASE, Uuid::from_u128(1))
        .await
        .unwrap()
        .remove(0);
    let second = env
        .store
        .mails()
        .claim_jobs(10, T0 + LEASE, T0 + 2 * LEASE, Uuid::from_u128(2))
        .await
        .unwrap()
        .remove(0);

    // The first worker's lease was taken over: its late outcome is not recorded.
    assert_eq!(
        env.store
            .mails()
            .settle(&[(first, sent(T0 + LEASE + Duration::seconds(1)))])
            .await
            .unwrap(),
        vec![false]
    );
    assert_eq!(
        env.store
            .mails()
            .settle(&[(second, sent(T0 + LEASE + Duration::seconds(2)))])
            .await
            .unwrap(),
        vec![true]
    );
    // Sent is final: nothing to claim, nothing pending, later.
    assert!(
        claim(&env.store, T0 + Duration::days(1), Uuid::from_u128(3))
            .await
            .is_empty()
    );
    assert_eq!(env.store.mails().backlog().await.unwrap().pending, 0);
}

conformance_test!(a_retry_is_due_when_its_settlement_says_and_a_release_gives_back_uncounted);
async fn a_retry_is_due_when_its_settlement_says_and_a_release_gives_back_uncounted(env: Env) {
    env.store
        .enqueue_mail(&[mail(&env, 1, 1, T0), mail(&env, 2, 2, T0)])
        .await
        .unwrap();
    let holder = HolderId::from_uuid(Uuid::from_u128(1));
    let lease = Lease {
        holder,
        token: Uuid::from_u128(1),
        until: T0 + LEASE,
    };
    let mut claimed = env
        .store
        .mails()
        .claim_due(10, T0, &lease)
        .await
        .unwrap()
        .jobs;
    assert_eq!(claimed.len(), 2);
    let retry_at = T0 + Duration::minutes(5);
    let busy = MailSettlement {
        status: MailStatus::Pending,
        next_attempt_at: Some(retry_at),
        error: Some("451 try later".into()),
        attempted_at: T0,
    };
    let first = claimed.remove(0);
    assert_eq!(
        env.store.mails().settle(&[(first, busy)]).await.unwrap(),
        vec![true]
    );
    // The worker shuts down holding the other: given back, due now, its attempt uncounted.
    assert_eq!(
        env.store
            .mails()
            .release(holder, T0 + Duration::seconds(1))
            .await
            .unwrap(),
        1
    );
    let again = env
        .store
        .mails()
        .claim_jobs(
            10,
            T0 + Duration::seconds(1),
            T0 + LEASE,
            Uuid::from_u128(2),
        )
        .await
        .unwrap();
    assert_eq!(
        again.iter().map(|m| (m.id, m.attempt)).collect::<Vec<_>>(),
        vec![(EmailId::from_uuid(Uuid::from_u128(0xE002)), 1)]
    );
    let given_back = again.into_iter().next().unwrap();
    env.store
        .mails()
        .settle(&[(given_back, sent(T0 + Duration::seconds(2)))])
        .await
        .unwrap();
    assert!(
        claim(
            &env.store,
            retry_at - Duration::seconds(1),
            Uuid::from_u128(3)
        )
        .await
        .is_empty()
    );
    let retried = env
        .store
        .mails()
        .claim_jobs(10, retry_at, retry_at + LEASE, Uuid::from_u128(3))
        .await
        .unwrap();
    assert_eq!(
        retried
            .iter()
            .map(|m| (m.id, m.attempt))
            .collect::<Vec<_>>(),
        vec![(EmailId::from_uuid(Uuid::from_u128(0xE001)), 2)]
    );
}

conformance_test!(the_sweep_removes_ended_emails_before_the_cut_off_only);
async fn the_sweep_removes_ended_emails_before_the_cut_off_only(env: Env) {
    let old = T0 - Duration::days(31);
    env.store
        .enqueue_mail(&[
            mail(&env, 1, 1, old),
            mail(&env, 2, 2, old),
            mail(&env, 3, 3, T0),
        ])
        .await
        .unwrap();
    let mut claimed = env
        .store
        .mails()
        .claim_jobs(1, old, old + LEASE, Uuid::from_u128(1))
        .await
        .unwrap();
    let ended = claimed.remove(0);
    env.store
        .mails()
        .settle(&[(ended, sent(old))])
        .await
        .unwrap();

    // The sent old one goes; the pending old one and the recent one stay.
    assert_eq!(
        env.store
            .mails()
            .sweep(T0 - Duration::days(30))
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        env.store
            .mails()
            .sweep(T0 - Duration::days(30))
            .await
            .unwrap(),
        0
    );
    assert_eq!(env.store.mails().backlog().await.unwrap().pending, 2);
}
