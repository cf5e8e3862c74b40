//! `TeamStore`: keys, members, teams and subscriptions.

use procflow_domain::error::{DomainError, Resource};
use procflow_domain::ids::{ApiKeyId, TeamId, UserId};
use procflow_domain::team::{ApiKey, Role, Subscription};
use uuid::Uuid;

use super::env::{Env, conformance_test};
use super::support::member;

fn key(team: TeamId, created_by: UserId, n: u128) -> ApiKey {
    ApiKey {
        id: ApiKeyId::from_uuid(Uuid::from_u128(team.as_uuid().as_u128() + 0x100 + n)),
        team_id: team,
        name: Some("ci".into()),
        prefix: "pf_live_abcd".into(),
        created_by,
        created_at: time::macros::datetime!(2026-02-01 0:00 UTC),
        revoked_at: None,
        scope: procflow_domain::team::KeyScope::Write,
    }
}

fn admin_of(team: TeamId) -> UserId {
    UserId::from_uuid(Uuid::from_u128(team.as_uuid().as_u128() + 1))
}

conformance_test!(a_key_finds_its_team_by_hash_until_revoked);
async fn a_key_finds_its_team_by_hash_until_revoked(env: Env) {
    let record = key(env.team.id, admin_of(env.team.id), 1);
    let hash = [7_u8; 32];
    env.store.insert_api_key(&record, &hash).await.unwrap();
    let (found, team) = env.store.find_api_key(&hash).await.unwrap().unwrap();
    assert_eq!((found, team), (record.clone(), env.team.clone()));
    assert_eq!(env.store.find_api_key(&[8_u8; 32]).await.unwrap(), None);

    assert_eq!(
        env.store
            .revoke_api_key(env.other.id, record.id, env.clock_now())
            .await
            .unwrap_err(),
        DomainError::NotFound(Resource::ApiKey),
        "another team cannot revoke it"
    );
    env.store
        .revoke_api_key(env.team.id, record.id, env.clock_now())
        .await
        .unwrap();
    assert_eq!(env.store.find_api_key(&hash).await.unwrap(), None);
    env.store
        .revoke_api_key(env.team.id, record.id, env.clock_now())
        .await
        .unwrap();
}

conformance_test!(a_duplicate_key_hash_is_a_conflict);
async fn a_duplicate_key_hash_is_a_conflict(env: Env) {
    let hash = [9_u8; 32];
    env.store
        .insert_api_key(&key(env.team.id, admin_of(env.team.id), 1), &hash)
        .await
        .unwrap();
    let second = key(env.team.id, admin_of(env.team.id), 2);
    assert!(matches!(
        env.store.insert_api_key(&second, &hash).await,
        Err(DomainError::Conflict(_))
    ));
}

conformance_test!(members_are_found_by_email_ignoring_case_and_unique_per_team);
async fn members_are_found_by_email_ignoring_case_and_unique_per_team(env: Env) {
    let email = "ADMIN@a.example".parse().unwrap();
    let admin = env
        .store
        .find_member_by_email(env.team.id, &email)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(admin.role, Role::Admin);
    assert_eq!(
        env.store
            .find_member_by_email(env.other.id, &email)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        env.store.find_member(env.team.id, admin.id).await.unwrap(),
        Some(admin.clone())
    );
    assert_eq!(
        env.store.find_member(env.other.id, admin.id).await.unwrap(),
        None
    );

    let twin = member(&env.team, 9, "admin@a.example", Role::Member);
    assert!(matches!(
        env.store.add_member(&twin).await,
        Err(DomainError::Conflict(_))
    ));
    let same_email_other_team = member(&env.other, 9, "admin@a.example", Role::Member);
    env.store.add_member(&same_email_other_team).await.unwrap();

    let demoted = procflow_domain::team::Member {
        active: false,
        role: Role::Member,
        ..admin
    };
    env.store.update_member(&demoted).await.unwrap();
    assert_eq!(
        env.store
            .find_member(env.team.id, demoted.id)
            .await
            .unwrap(),
        Some(demoted.clone())
    );
    let stranger = procflow_domain::team::Member {
        team_id: env.other.id,
        ..demoted
    };
    assert_eq!(
        env.store.update_member(&stranger).await.unwrap_err(),
        DomainError::NotFound(Resource::Member)
    );
}

conformance_test!(teams_are_created_once_and_their_subscription_set);
async fn teams_are_created_once_and_their_subscription_set(env: Env) {
    let admin = member(&env.team, 1, "admin@a.example", Role::Admin);
    assert!(matches!(
        env.store.create_team(&env.team, &admin).await,
        Err(DomainError::Conflict(_))
    ));
    env.store
        .set_subscription(env.team.id, Subscription::Inactive)
        .await
        .unwrap();
    assert_eq!(
        env.store.get_team(env.team.id).await.unwrap().subscription,
        Subscription::Inactive
    );
    let unknown = TeamId::from_uuid(Uuid::now_v7());
    assert_eq!(
        env.store.get_team(unknown).await.unwrap_err(),
        DomainError::NotFound(Resource::Team)
    );
    assert_eq!(
        env.store
            .set_subscription(unknown, Subscription::Active)
            .await
            .unwrap_err(),
        DomainError::NotFound(Resource::Team)
    );
    let orphan = member(
        &procflow_domain::team::Team {
            id: unknown,
            ..env.team.clone()
        },
        3,
        "x@y.example",
        Role::Member,
    );
    assert_eq!(
        env.store.add_member(&orphan).await.unwrap_err(),
        DomainError::NotFound(Resource::Team)
    );
}

conformance_test!(keys_are_listed_per_team_oldest_first_with_their_scope_revoked_ones_too);
async fn keys_are_listed_per_team_oldest_first_with_their_scope_revoked_ones_too(env: Env) {
    use procflow_domain::team::KeyScope;

    assert_eq!(env.store.list_api_keys(env.team.id).await.unwrap(), []);
    let later = ApiKey {
        scope: KeyScope::Read,
        created_at: time::macros::datetime!(2026-02-02 0:00 UTC),
        ..key(env.team.id, admin_of(env.team.id), 1)
    };
    let earlier = key(env.team.id, admin_of(env.team.id), 2);
    let theirs = key(env.other.id, admin_of(env.other.id), 3);
    for (record, hash) in [
        (&later, [1_u8; 32]),
        (&earlier, [2; 32]),
        (&theirs, [3; 32]),
    ] {
        env.store.insert_api_key(record, &hash).await.unwrap();
    }
    env.store
        .revoke_api_key(env.team.id, earlier.id, env.clock_now())
        .await
        .unwrap();
    let revoked = ApiKey {
        revoked_at: Some(env.clock_now()),
        ..earlier
    };
    assert_eq!(
        env.store.list_api_keys(env.team.id).await.unwrap(),
        [revoked, later.clone()]
    );
    assert_eq!(
        env.store.list_api_keys(env.other.id).await.unwrap(),
        [theirs]
    );

    // The scope comes back with the key wherever a key is found.
    let (found, _) = env.store.find_api_key(&[1; 32]).await.unwrap().unwrap();
    assert_eq!(found.scope, KeyScope::Read);
    let admitted = env
        .store
        .admit(&[1; 32], env.clock_now(), 10, time::Duration::minutes(1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(admitted.key, later);
}
