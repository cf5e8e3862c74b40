//! `RunLinkStore` and the run links use cases (API contract 13.2): one link per template,
//! scoped to its team, the same link when turned on again, a new token after it was turned
//! off, and the public look-up by the token alone, which opens only a published template's
//! link.

use std::sync::Arc;

use procflow_domain::error::{DomainError, Resource};
use procflow_domain::ports::RunLinkStore;
use procflow_domain::service::RunLinks;
use procflow_domain::team::Subscription;
use procflow_domain::values::ShareToken;
use procflow_postgres::testing::rows;

use super::env::{Env, conformance_test};
use super::support::{document, published};

fn run_links(env: &Env) -> RunLinks {
    RunLinks::new(
        env.procflow.clone(),
        env.store.clone() as Arc<dyn RunLinkStore>,
    )
}

const TEMPLATE_NOT_FOUND: DomainError = DomainError::NotFound(Resource::Template);

conformance_test!(a_link_is_kept_read_back_and_scoped_to_its_team);
async fn a_link_is_kept_read_back_and_scoped_to_its_team(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let links = run_links(&env);
    assert_eq!(links.get(&env.team, template.id).await, Ok(None));
    let link = links.enable(&env.team, template.id).await.unwrap();
    assert_eq!(link.template_id, template.id);
    assert_eq!(link.team_id, env.team.id);
    assert_eq!(link.created_at, env.procflow.now());
    assert_eq!(
        links.enable(&env.team, template.id).await.unwrap(),
        link,
        "turned on again: the same link"
    );
    assert_eq!(
        links.get(&env.team, template.id).await,
        Ok(Some(link.clone()))
    );
    // Another team's template is not found, whatever the call.
    assert_eq!(
        links.get(&env.other, template.id).await,
        Err(TEMPLATE_NOT_FOUND)
    );
    assert_eq!(
        links.enable(&env.other, template.id).await,
        Err(TEMPLATE_NOT_FOUND)
    );
    assert_eq!(
        links.disable(&env.other, template.id).await,
        Err(TEMPLATE_NOT_FOUND)
    );
    assert_eq!(
        links.get(&env.team, template.id).await,
        Ok(Some(link)),
        "untouched by the other team"
    );
}

conformance_test!(the_store_refuses_a_link_to_another_teams_template);
async fn the_store_refuses_a_link_to_another_teams_template(env: Env) {
    let template = published(&env, &env.other, document()).await;
    let link = procflow_domain::run_link::RunLink {
        team_id: env.team.id,
        template_id: template.id,
        token: ShareToken::new("x".repeat(32)),
        created_at: env.procflow.now(),
    };
    assert_eq!(env.store.put_run_link(&link).await, Err(TEMPLATE_NOT_FOUND));
    assert_eq!(
        env.store.find_run_link(&link.token).await,
        Ok(None),
        "nothing kept"
    );
}

conformance_test!(a_link_opens_its_template_only_while_on_and_published);
async fn a_link_opens_its_template_only_while_on_and_published(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let links = run_links(&env);
    let link = links.enable(&env.team, template.id).await.unwrap();
    let (opened, team, found) = links.open(&link.token).await.unwrap();
    assert_eq!(
        (opened, team.id, found.id),
        (link.clone(), env.team.id, template.id)
    );

    let unknown = ShareToken::new("y".repeat(32));
    assert_eq!(
        links.open(&unknown).await.map(drop),
        Err(TEMPLATE_NOT_FOUND)
    );

    env.procflow
        .publish_template(&env.team, template.id, false)
        .await
        .unwrap();
    assert_eq!(
        links.open(&link.token).await.map(drop),
        Err(TEMPLATE_NOT_FOUND),
        "unpublished"
    );
    env.procflow
        .publish_template(&env.team, template.id, true)
        .await
        .unwrap();
    assert!(links.open(&link.token).await.is_ok(), "published again");

    env.store
        .set_subscription(env.team.id, Subscription::Inactive)
        .await
        .unwrap();
    assert_eq!(
        links.open(&link.token).await.map(drop),
        Err(DomainError::SubscriptionInactive)
    );
    env.store
        .set_subscription(env.team.id, Subscription::Active)
        .await
        .unwrap();

    // Off: the token is void, and turning it on again makes a new one.
    links.disable(&env.team, template.id).await.unwrap();
    links.disable(&env.team, template.id).await.unwrap();
    assert_eq!(links.get(&env.team, template.id).await, Ok(None));
    assert_eq!(
        links.open(&link.token).await.map(drop),
        Err(TEMPLATE_NOT_FOUND)
    );
    let again = links.enable(&env.team, template.id).await.unwrap();
    assert_ne!(again.token, link.token);
    assert!(links.open(&again.token).await.is_ok());
    assert_eq!(
        links.open(&link.token).await.map(drop),
        Err(TEMPLATE_NOT_FOUND)
    );

    env.procflow
        .archive_template(&env.team, template.id)
        .await
        .unwrap();
    assert_eq!(
        links.open(&again.token).await.map(drop),
        Err(TEMPLATE_NOT_FOUND),
        "archived"
    );
    assert_eq!(
        links.enable(&env.team, template.id).await,
        Err(TEMPLATE_NOT_FOUND)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_look_up_goes_through_the_token_directory() {
    let env = Env::postgres().await;
    let template = published(&env, &env.team, document()).await;
    let link = run_links(&env)
        .enable(&env.team, template.id)
        .await
        .unwrap();
    let entries = rows(
        env.pg().db.url(),
        "SELECT kind, digest, team_id::text AS team FROM token_directory WHERE kind = 'run_link'",
    )
    .await;
    assert_eq!(
        entries,
        vec![serde_json::json!({
            "kind": "run_link",
            "digest": link.token.digest(),
            "team": env.team.id.as_uuid().to_string(),
        })]
    );
}

conformance_test!(a_link_starts_a_run_by_the_guest_and_shares_it_with_them);
async fn a_link_starts_a_run_by_the_guest_and_shares_it_with_them(env: Env) {
    use procflow_domain::actor::Actor;
    use procflow_domain::event::EventPayload;
    let template = published(&env, &env.team, document()).await;
    let links = run_links(&env);
    let link = links.enable(&env.team, template.id).await.unwrap();
    let email: procflow_domain::values::Email = "ada@outside.example".parse().unwrap();
    let shared = links
        .start(&link.token, "  Ada Lovelace ", email.clone())
        .await
        .unwrap();
    let run = env
        .procflow
        .get_run(&env.team, shared.run.id)
        .await
        .unwrap();
    assert_eq!(run.title, format!("{}: Ada Lovelace", template.title));
    assert_eq!(run.started_by, Actor::Guest);
    assert!(run.is_shared);
    assert_eq!(shared.invited.as_ref().map(|g| &g.email), Some(&email));
    assert!(
        shared
            .share_url
            .contains(&format!("/instance/{}?token=", run.id))
    );
    let created: Vec<_> = env
        .events()
        .await
        .into_iter()
        .filter_map(|event| match event.payload {
            EventPayload::RunCreated { run, .. } => Some(run),
            _ => None,
        })
        .collect();
    assert_eq!(created.len(), 1);
    assert_eq!(
        (created[0].id, &created[0].started_by),
        (run.id, &Actor::Guest),
        "the event says the guest started it"
    );
}

conformance_test!(a_start_is_refused_without_a_run);
async fn a_start_is_refused_without_a_run(env: Env) {
    let template = published(&env, &env.team, document()).await;
    let links = run_links(&env);
    let link = links.enable(&env.team, template.id).await.unwrap();
    let email: procflow_domain::values::Email = "ada@outside.example".parse().unwrap();
    for name in ["", "   ", &"x".repeat(201)] {
        let refused = links.start(&link.token, name, email.clone()).await;
        assert!(
            matches!(&refused, Err(DomainError::Validation(e)) if e.to_string().contains("name")),
            "{name:?}: {refused:?}"
        );
    }
    assert_eq!(
        links
            .start(&link.token, "Member", "member@a.example".parse().unwrap())
            .await
            .map(drop),
        Err(DomainError::GuestIsTeamMember)
    );
    let unknown = ShareToken::new("z".repeat(32));
    assert_eq!(
        links.start(&unknown, "Ada", email.clone()).await.map(drop),
        Err(TEMPLATE_NOT_FOUND)
    );
    env.procflow
        .publish_template(&env.team, template.id, false)
        .await
        .unwrap();
    assert_eq!(
        links.start(&link.token, "Ada", email).await.map(drop),
        Err(TEMPLATE_NOT_FOUND)
    );
    let runs = env
        .procflow
        .list_runs(
            &env.team,
            Default::default(),
            procflow_domain::values::PageRequest::default(),
        )
        .await
        .unwrap();
    assert!(runs.items.is_empty(), "no run started");
}
