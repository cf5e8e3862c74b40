//! Sharing through `RunStore`: the share, the one guest, and the links (their tokens kept as
//! digests).

use procflow_domain::error::{DomainError, Resource};
use procflow_domain::sharing::Invitation;
use procflow_domain::values::ShareToken;

use super::env::{Env, conformance_test};
use super::support::{Started, started};

conformance_test!(inviting_shares_the_run_and_records_one_guest);
async fn inviting_shares_the_run_and_records_one_guest(env: Env) {
    let Started { run, .. } = started(&env).await;
    assert_eq!(
        env.store.get_share(env.team.id, run.id).await.unwrap(),
        None
    );

    let anonymous = env
        .procflow
        .invite_guest(&env.team, run.id, Invitation::default())
        .await
        .unwrap();
    assert!(anonymous.invited.is_none());
    assert!(
        env.store
            .get_run(env.team.id, run.id)
            .await
            .unwrap()
            .is_shared
    );

    let invitation = Invitation {
        email: Some("guest@outside.example".parse().unwrap()),
        enable_reminders: true,
        reminder_days: Some(3),
    };
    let invited = env
        .procflow
        .invite_guest(&env.team, run.id, invitation.clone())
        .await
        .unwrap();
    assert_ne!(
        invited.token, anonymous.token,
        "inviting again makes a link of its own"
    );
    for link in [&anonymous.token, &invited.token] {
        let (opened, _) = env.store.find_shared_run(run.id, link).await.unwrap();
        assert_eq!(opened.id, run.id, "every link of the run opens it");
    }
    let guest = invited.invited.clone().unwrap();
    assert_eq!(guest.reminder_days, 3);
    let share = env
        .store
        .get_share(env.team.id, run.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(share, invited.share);

    let again = env
        .procflow
        .invite_guest(&env.team, run.id, invitation)
        .await
        .unwrap();
    assert_eq!(again.invited.unwrap().id, guest.id);
    let other = Invitation {
        email: Some("someone@else.example".parse().unwrap()),
        ..Invitation::default()
    };
    assert_eq!(
        env.procflow
            .invite_guest(&env.team, run.id, other)
            .await
            .unwrap_err(),
        DomainError::GuestAlreadyInvited
    );
    let member = Invitation {
        email: Some("member@a.example".parse().unwrap()),
        ..Invitation::default()
    };
    assert_eq!(
        env.procflow
            .invite_guest(&env.team, run.id, member)
            .await
            .unwrap_err(),
        DomainError::GuestIsTeamMember
    );
    let invited_events = env
        .events()
        .await
        .iter()
        .filter(|e| e.payload.name() == "process_run.guest_invited")
        .count();
    assert_eq!(invited_events, 2);
}

conformance_test!(the_link_opens_the_run_only_with_its_token_and_while_shared);
async fn the_link_opens_the_run_only_with_its_token_and_while_shared(env: Env) {
    let Started {
        template,
        run,
        tasks: started_tasks,
    } = started(&env).await;
    let shared = env
        .procflow
        .invite_guest(&env.team, run.id, Invitation::default())
        .await
        .unwrap();
    let token = shared.token.clone();
    let (opened, share) = env.store.find_shared_run(run.id, &token).await.unwrap();
    assert_eq!(opened.id, run.id);
    assert_eq!(opened.sections, template.sections);
    assert_eq!(share, shared.share);
    let (read, read_share, tasks) = env.store.read_shared_run(run.id, &token).await.unwrap();
    assert_eq!((read, read_share), (opened, share));
    assert_eq!(tasks, started_tasks, "every task, by order");
    let not_found = DomainError::NotFound(Resource::Run);
    let wrong = ShareToken::new("wrong".into());
    assert_eq!(
        env.store.find_shared_run(run.id, &wrong).await.unwrap_err(),
        not_found
    );
    assert_eq!(
        env.store.read_shared_run(run.id, &wrong).await.unwrap_err(),
        not_found
    );

    let unshared = env.procflow.stop_sharing(&env.team, run.id).await.unwrap();
    assert!(!unshared.is_shared);
    assert_eq!(
        env.store.find_shared_run(run.id, &token).await.unwrap_err(),
        not_found
    );
    assert_eq!(
        env.store.read_shared_run(run.id, &token).await.unwrap_err(),
        not_found
    );
    assert_eq!(
        env.store.get_share(env.team.id, run.id).await.unwrap(),
        None
    );
    let reshared = env
        .procflow
        .invite_guest(&env.team, run.id, Invitation::default())
        .await
        .unwrap();
    assert_ne!(reshared.token, token, "a voided token is never reused");
    assert_eq!(
        env.store.find_shared_run(run.id, &token).await.unwrap_err(),
        not_found,
        "sharing again does not revive the links voided"
    );
}

conformance_test!(a_link_is_added_only_to_a_shared_run_and_voided_with_the_others);
async fn a_link_is_added_only_to_a_shared_run_and_voided_with_the_others(env: Env) {
    let Started { run, .. } = started(&env).await;
    let now = env.clock_now();
    let extra = ShareToken::new("an-extra-link-for-an-email".into());
    assert!(
        !env.store
            .add_share_link(env.team.id, run.id, &extra, now)
            .await
            .unwrap(),
        "a run not shared gets no link"
    );
    assert_eq!(
        env.store.find_shared_run(run.id, &extra).await.unwrap_err(),
        DomainError::NotFound(Resource::Run)
    );
    let shared = env
        .procflow
        .invite_guest(&env.team, run.id, Invitation::default())
        .await
        .unwrap();
    assert!(
        !env.store
            .add_share_link(env.other.id, run.id, &extra, now)
            .await
            .unwrap(),
        "nor another team's"
    );
    assert!(
        env.store
            .add_share_link(env.team.id, run.id, &extra, now)
            .await
            .unwrap()
    );
    for link in [&shared.token, &extra] {
        let (opened, _) = env.store.find_shared_run(run.id, link).await.unwrap();
        assert_eq!(opened.id, run.id);
    }
    let other_run = started(&env).await.run;
    assert_eq!(
        env.store
            .find_shared_run(other_run.id, &extra)
            .await
            .unwrap_err(),
        DomainError::NotFound(Resource::Run),
        "a link opens its own run only"
    );
    env.procflow.stop_sharing(&env.team, run.id).await.unwrap();
    for link in [&shared.token, &extra] {
        assert_eq!(
            env.store.find_shared_run(run.id, link).await.unwrap_err(),
            DomainError::NotFound(Resource::Run)
        );
    }
}

conformance_test!(the_guests_first_engagement_is_recorded_once);
async fn the_guests_first_engagement_is_recorded_once(env: Env) {
    let Started { run, .. } = started(&env).await;
    let first = env.clock_now();
    assert!(
        !env.store
            .record_guest_engagement(env.team.id, run.id, first)
            .await
            .unwrap(),
        "a run not shared has no guest to engage"
    );
    let invitation = Invitation {
        email: Some("guest@outside.example".parse().unwrap()),
        ..Invitation::default()
    };
    let shared = env
        .procflow
        .invite_guest(&env.team, run.id, invitation.clone())
        .await
        .unwrap();
    assert_eq!(shared.invited.unwrap().engaged_at, None);
    assert!(
        !env.store
            .record_guest_engagement(env.other.id, run.id, first)
            .await
            .unwrap(),
        "another team's run is none of ours"
    );
    assert!(
        env.store
            .record_guest_engagement(env.team.id, run.id, first)
            .await
            .unwrap()
    );
    let later = first + time::Duration::hours(1);
    assert!(
        !env.store
            .record_guest_engagement(env.team.id, run.id, later)
            .await
            .unwrap(),
        "only the first engagement is recorded"
    );
    let (_, share) = env
        .store
        .find_shared_run(run.id, &shared.token)
        .await
        .unwrap();
    assert_eq!(share.guest.unwrap().engaged_at, Some(first));
    // Inviting again keeps the engagement: it is the same guest.
    let again = env
        .procflow
        .invite_guest(&env.team, run.id, invitation)
        .await
        .unwrap();
    assert_eq!(again.share.guest.unwrap().engaged_at, Some(first));

    let anonymous = started(&env).await.run;
    env.procflow
        .invite_guest(&env.team, anonymous.id, Invitation::default())
        .await
        .unwrap();
    assert!(
        !env.store
            .record_guest_engagement(env.team.id, anonymous.id, first)
            .await
            .unwrap(),
        "a run shared without an email has no guest"
    );
}

conformance_test!(
    concurrent_openings_record_the_engagement_once,
    worker_threads = 4
);
async fn concurrent_openings_record_the_engagement_once(env: Env) {
    let Started { run, .. } = started(&env).await;
    let invitation = Invitation {
        email: Some("guest@outside.example".parse().unwrap()),
        ..Invitation::default()
    };
    env.procflow
        .invite_guest(&env.team, run.id, invitation)
        .await
        .unwrap();
    let instances = [0, 1].map(|_| env.another_instance(10));
    let calls: Vec<_> = (0..20_i64)
        .map(|i| {
            let store = std::sync::Arc::clone(&instances[usize::try_from(i % 2).unwrap()]);
            let (team, run_id) = (env.team.id, run.id);
            let at = env.clock_now() + time::Duration::seconds(i);
            tokio::spawn(async move { store.record_guest_engagement(team, run_id, at).await })
        })
        .collect();
    let mut recorded = 0;
    for call in calls {
        if call.await.unwrap().unwrap() {
            recorded += 1;
        }
    }
    assert_eq!(recorded, 1);
}

conformance_test!(a_right_link_of_an_inactive_team_is_refused_and_a_wrong_one_not_found);
async fn a_right_link_of_an_inactive_team_is_refused_and_a_wrong_one_not_found(env: Env) {
    use procflow_domain::team::Subscription;

    let Started { run, .. } = started(&env).await;
    let shared = env
        .procflow
        .invite_guest(&env.team, run.id, Invitation::default())
        .await
        .unwrap();
    env.store
        .set_subscription(env.team.id, Subscription::Inactive)
        .await
        .unwrap();
    let wrong = ShareToken::new("wrong".into());
    assert_eq!(
        env.store
            .find_shared_run(run.id, &shared.token)
            .await
            .unwrap_err(),
        DomainError::SubscriptionInactive
    );
    assert_eq!(
        env.store
            .read_shared_run(run.id, &shared.token)
            .await
            .unwrap_err(),
        DomainError::SubscriptionInactive
    );
    assert_eq!(
        env.store.find_shared_run(run.id, &wrong).await.unwrap_err(),
        DomainError::NotFound(Resource::Run),
        "a wrong link says nothing of the team"
    );
    env.store
        .set_subscription(env.team.id, Subscription::Active)
        .await
        .unwrap();
    assert!(
        env.store
            .read_shared_run(run.id, &shared.token)
            .await
            .is_ok()
    );
}
