//! Sharing through `RunStore`: the share, the one guest, and the link's token.

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
    assert_eq!(
        invited.share.token, anonymous.share.token,
        "inviting again keeps the token"
    );
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
    let Started { template, run, .. } = started(&env).await;
    let shared = env
        .procflow
        .invite_guest(&env.team, run.id, Invitation::default())
        .await
        .unwrap();
    let token = shared.share.token.clone();
    let opened = env.store.find_shared_run(run.id, &token).await.unwrap();
    assert_eq!(opened.id, run.id);
    assert_eq!(opened.sections, template.sections);
    let not_found = DomainError::NotFound(Resource::Run);
    let wrong = ShareToken::new("wrong".into());
    assert_eq!(
        env.store.find_shared_run(run.id, &wrong).await.unwrap_err(),
        not_found
    );

    let unshared = env.procflow.stop_sharing(&env.team, run.id).await.unwrap();
    assert!(!unshared.is_shared);
    assert_eq!(
        env.store.find_shared_run(run.id, &token).await.unwrap_err(),
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
    assert_ne!(
        reshared.share.token, token,
        "a voided token is never reused"
    );
}
