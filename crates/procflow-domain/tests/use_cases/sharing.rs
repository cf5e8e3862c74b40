//! Sharing a run with a guest (spec 4.7, API contract 7).

use super::*;

fn token_of(share_url: &str) -> ShareToken {
    let (_, token) = share_url.split_once("?token=").unwrap();
    ShareToken::new(token.to_owned())
}

#[test]
fn inviting_without_an_email_shares_the_run_and_invites_nobody() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let change = w.invite(run.id, Invitation::default()).unwrap();
    assert!(change.run.is_shared);
    assert_eq!(change.invited, None);
    assert!(change.events.is_empty());
    let prefix = format!("https://demo.example/instance/{}?token=", run.id);
    assert!(
        change.share_url.starts_with(&prefix),
        "{}",
        change.share_url
    );
    assert!(change.share_url.len() > prefix.len());
    assert!(w.run(run.id).is_shared);
    assert_eq!(count(&w.events_of(run.id), "process_run.guest_invited"), 0);

    let token = token_of(&change.share_url);
    let opened = block(w.store.find_shared_run(run.id, &token)).unwrap();
    assert_eq!(opened.0.id, run.id);
}

#[test]
fn inviting_by_email_records_the_guest_and_sends_the_link() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let change = w
        .invite(
            run.id,
            Invitation {
                email: Some(email("guest@example.org")),
                enable_reminders: true,
                reminder_days: None,
            },
        )
        .unwrap();
    let guest = change.invited.clone().unwrap();
    assert_eq!(guest.email, email("guest@example.org"));
    assert!(guest.enable_reminders);
    assert_eq!(guest.reminder_days, 7);
    assert_eq!(guest.invited_at, w.clock.now());
    assert_eq!(guest.engaged_at, None);
    assert!(change.run.is_shared);
    assert!(
        change
            .share_url
            .starts_with(&format!("https://demo.example/instance/{}?token=", run.id))
    );
    assert_eq!(
        w.events_of(run.id).last(),
        Some(&EventPayload::GuestInvited {
            run_id: run.id,
            run_title: "Onboarding".into(),
            guest_id: guest.id,
            email: guest.email.clone(),
            share_url: change.share_url.clone(),
        })
    );
    let share = block(w.store.get_share(w.team.id, run.id))
        .unwrap()
        .unwrap();
    assert_eq!(share.guest, Some(guest));
    assert_eq!(change.token, token_of(&change.share_url));
    let (opened, _) = block(w.store.find_shared_run(run.id, &change.token)).unwrap();
    assert_eq!(opened.id, run.id);
}

#[test]
fn inviting_the_same_email_again_keeps_the_guest_and_makes_a_link_beside_the_first() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let first = w
        .invite(run.id, invitation(Some("guest@example.org")))
        .unwrap();
    w.clock.advance(Duration::hours(2));
    let again = w
        .invite(run.id, invitation(Some("GUEST@example.org")))
        .unwrap();
    let (first_guest, again_guest) = (
        first.invited.clone().unwrap(),
        again.invited.clone().unwrap(),
    );
    assert_eq!(again_guest.id, first_guest.id);
    // Only digests are kept: the first link cannot be shown again; a new one is made, and
    // the first keeps working.
    assert_ne!(again.share_url, first.share_url);
    assert_eq!(
        again_guest.invited_at,
        w.clock.now(),
        "the invitation is sent again"
    );
    assert_eq!(count(&w.events_of(run.id), "process_run.guest_invited"), 2);
    let plain = w.invite(run.id, Invitation::default()).unwrap();
    for link in [&first, &again, &plain] {
        let (opened, share) = block(w.store.find_shared_run(run.id, &link.token)).unwrap();
        assert_eq!(
            (opened.id, share.guest.map(|g| g.id)),
            (run.id, Some(first_guest.id))
        );
    }
}

#[test]
fn inviting_a_different_email_is_refused_while_the_run_has_a_guest() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    w.invite(run.id, invitation(Some("guest@example.org")))
        .unwrap();
    let share = block(w.store.get_share(w.team.id, run.id)).unwrap();
    let before = w.state_of(run.id);
    let refused = w.invite(run.id, invitation(Some("other@example.org")));
    assert_eq!(
        refused.map(|c| c.share_url),
        Err(DomainError::GuestAlreadyInvited)
    );
    assert_eq!(w.state_of(run.id), before);
    assert_eq!(block(w.store.get_share(w.team.id, run.id)).unwrap(), share);
}

#[test]
fn inviting_a_team_member_is_refused() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let before = w.state_of(run.id);
    for address in [
        "admin@demo.example",
        "ADA@demo.example",
        "ivan@demo.example",
    ] {
        let refused = w.invite(run.id, invitation(Some(address)));
        assert_eq!(
            refused.map(|c| c.share_url),
            Err(DomainError::GuestIsTeamMember),
            "{address}"
        );
    }
    assert_eq!(w.state_of(run.id), before);
    assert!(!w.run(run.id).is_shared);
    // A member of another team is a guest here.
    let olga = w
        .invite(run.id, invitation(Some("olga@other.example")))
        .unwrap();
    assert_eq!(olga.invited.map(|g| g.email), Some(w.olga.email.clone()));
}

#[test]
fn reminder_days_default_to_seven_and_lie_between_one_and_365() {
    let w = world();
    let template = w.published(onboarding());
    for (days, expected) in [(None, 7), (Some(1), 1), (Some(365), 365)] {
        let run = w.start(&template);
        let change = w
            .invite(
                run.id,
                Invitation {
                    reminder_days: days,
                    enable_reminders: true,
                    ..invitation(Some("guest@example.org"))
                },
            )
            .unwrap();
        assert_eq!(change.invited.map(|g| g.reminder_days), Some(expected));
    }
    let run = w.start(&template);
    for days in [0, 366, -1, i64::MAX] {
        let refused = w
            .invite(
                run.id,
                Invitation {
                    reminder_days: Some(days),
                    ..invitation(Some("guest@example.org"))
                },
            )
            .unwrap_err();
        assert_eq!(refused_field(refused), "reminder_days", "{days}");
    }
    assert!(!w.run(run.id).is_shared);
}

#[test]
fn stopping_sharing_voids_the_link() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let shared = w
        .invite(run.id, invitation(Some("guest@example.org")))
        .unwrap();
    let token = token_of(&shared.share_url);
    assert!(block(w.store.find_shared_run(run.id, &token)).is_ok());

    let stopped = block(w.procflow.stop_sharing(&w.team, run.id)).unwrap();
    assert!(!stopped.is_shared);
    assert!(!w.run(run.id).is_shared);
    assert_eq!(
        block(w.store.find_shared_run(run.id, &token)),
        Err(DomainError::NotFound(Resource::Run))
    );
    assert_eq!(block(w.store.get_share(w.team.id, run.id)), Ok(None));

    // Sharing again makes a new link; the old one stays void.
    let again = w.invite(run.id, Invitation::default()).unwrap();
    assert_ne!(token_of(&again.share_url), token);
    assert_eq!(
        block(w.store.find_shared_run(run.id, &token)),
        Err(DomainError::NotFound(Resource::Run))
    );
}

#[test]
fn a_wrong_token_opens_nothing() {
    let w = world();
    let run = w.start(&w.published(onboarding()));
    let unshared = w.start(&w.published(form()));
    w.invite(run.id, Invitation::default()).unwrap();
    let not_found = Err(DomainError::NotFound(Resource::Run));
    assert_eq!(
        block(
            w.store
                .find_shared_run(run.id, &ShareToken::new("guess".into()))
        ),
        not_found
    );
    assert_eq!(
        block(
            w.store
                .find_shared_run(unshared.id, &ShareToken::new(String::new()))
        ),
        not_found
    );
}
