//! Tests of the admission middleware over a scripted limiter: reads and task updates beside
//! their admission, and what waits for it.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use actix_web::http::Method;
use actix_web::test as actix_test;
use actix_web::{App, HttpResponse, web};
use async_trait::async_trait;
use procflow_domain::error::DomainResult;
use procflow_domain::ids::UserId;
use procflow_domain::ports::{Admission, Clock, RateDecision};
use procflow_domain::team::{ApiKey, Subscription};
use procflow_memory::{FixedClock, InMemoryStore};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use tokio::sync::Notify;
use uuid::Uuid;

use super::*;

const T0: OffsetDateTime = datetime!(2026-03-01 9:00 UTC);

/// What the limiter answers to one admission.
#[derive(Clone)]
enum Answer {
    /// The key, of the team named so, admitted.
    Admit(&'static str),
    /// The same, once the handler has started.
    AdmitOnceReadStarted(&'static str),
    /// No such key (revoked).
    Unknown,
    /// The team is not active.
    Inactive,
    /// Over the limit.
    Limited,
}

/// A limiter answering its script in order; the handler below counts its calls and says when
/// it starts.
#[derive(Default)]
struct Scripted {
    answers: Mutex<VecDeque<Answer>>,
    admissions: AtomicUsize,
    reads: AtomicUsize,
    read_started: Notify,
    /// Writes of the cleared-write handler: made only once its clearance cleared it.
    writes: AtomicUsize,
}

impl Scripted {
    fn then(&self, answer: Answer) {
        self.answers.lock().unwrap().push_back(answer);
    }

    fn admissions(&self) -> usize {
        self.admissions.load(Ordering::SeqCst)
    }

    fn reads(&self) -> usize {
        self.reads.load(Ordering::SeqCst)
    }

    fn writes(&self) -> usize {
        self.writes.load(Ordering::SeqCst)
    }
}

fn key() -> ApiKey {
    ApiKey {
        id: ApiKeyId::from_uuid(Uuid::from_u128(7)),
        team_id: team("Demo").id,
        name: None,
        prefix: "pf_live_test".into(),
        created_by: UserId::from_uuid(Uuid::from_u128(0xB)),
        scope: KeyScope::Write,
        created_at: T0,
        revoked_at: None,
    }
}

fn team(name: &str) -> Team {
    Team {
        name: name.to_owned(),
        ..InMemoryStore::default().demo_team()
    }
}

#[async_trait]
impl RateLimiter for Scripted {
    async fn admit(
        &self,
        _: &[u8; 32],
        now: OffsetDateTime,
        limit: u32,
        window: Duration,
    ) -> DomainResult<Option<Admission>> {
        self.admissions.fetch_add(1, Ordering::SeqCst);
        let answer = self.answers.lock().unwrap().pop_front();
        let admitted = |name, allowed| Admission {
            key: key(),
            team: team(name),
            rate: Some(RateDecision {
                allowed,
                remaining: if allowed { limit - 1 } else { 0 },
                reset_at: now + window,
            }),
        };
        Ok(match answer.expect("an admission the script has") {
            Answer::Admit(name) => Some(admitted(name, true)),
            Answer::AdmitOnceReadStarted(name) => {
                self.read_started.notified().await;
                Some(admitted(name, true))
            }
            Answer::Unknown => None,
            Answer::Inactive => Some(Admission {
                rate: None,
                team: Team {
                    subscription: Subscription::Inactive,
                    ..team("Demo")
                },
                key: key(),
            }),
            Answer::Limited => Some(admitted("Demo", false)),
        })
    }
}

/// The handler: counts itself, says it started, answers its caller's team name.
async fn read(caller: Caller, limiter: web::Data<Scripted>) -> HttpResponse {
    limiter.reads.fetch_add(1, Ordering::SeqCst);
    limiter.read_started.notify_one();
    HttpResponse::Ok().body(caller.team.name)
}

/// The handler of a cleared write, as a task update's: reads (counted, said), then writes
/// (counted) once its clearance clears it; answers its caller's team name and the body.
async fn cleared_write(
    caller: Caller,
    clearance: CallerClearance,
    body: bytes::Bytes,
    limiter: web::Data<Scripted>,
) -> HttpResponse {
    limiter.reads.fetch_add(1, Ordering::SeqCst);
    limiter.read_started.notify_one();
    if clearance.cleared().await.is_err() {
        return HttpResponse::ServiceUnavailable().finish();
    }
    limiter.writes.fetch_add(1, Ordering::SeqCst);
    HttpResponse::Ok().body(format!(
        "{}:{}",
        caller.team.name,
        String::from_utf8_lossy(&body)
    ))
}

/// An app with `GET /r` and `POST /w` (the same handler) and `PATCH /c` (a cleared write)
/// behind the admission, answering with the rate-limit headers of `crate::middleware::around`.
async fn app(
    limiter: &web::Data<Scripted>,
) -> impl actix_web::dev::Service<
    actix_http::Request,
    Response = ServiceResponse<BoxBody>,
    Error = actix_web::Error,
> {
    let clock: Arc<dyn Clock> = Arc::new(FixedClock::at(T0));
    let gate = Arc::new(RateLimitGate::new(clock, 100));
    let guarded = |access: Access| {
        let (gate, limiter) = (gate.clone(), limiter.clone());
        actix_web::middleware::from_fn(move |request: ServiceRequest, next| {
            let (gate, limiter) = (gate.clone(), limiter.clone());
            async move { admit_then_call(request, next, access, &gate, &**limiter).await }
        })
    };
    actix_test::init_service(
        App::new()
            .app_data(limiter.clone())
            .wrap(actix_web::middleware::from_fn(crate::middleware::around))
            .route("/r", web::get().to(read).wrap(guarded(Access::Read)))
            .route("/w", web::post().to(read).wrap(guarded(Access::Write)))
            .route(
                "/c",
                web::patch()
                    .to(cleared_write)
                    .wrap(guarded(Access::ClearedWrite)),
            ),
    )
    .await
}

/// The status, `RateLimit-Remaining` and body of `method /path` with the key.
async fn call(
    app: &impl actix_web::dev::Service<
        actix_http::Request,
        Response = ServiceResponse<BoxBody>,
        Error = actix_web::Error,
    >,
    method: actix_web::http::Method,
    path: &str,
) -> (u16, Option<String>, String) {
    let request = actix_test::TestRequest::default()
        .method(method)
        .uri(path)
        .insert_header((header::AUTHORIZATION, "Bearer pf_live_test_key"))
        .to_request();
    let response = actix_test::call_service(app, request).await;
    let status = response.status().as_u16();
    let remaining = response
        .headers()
        .get("ratelimit-remaining")
        .map(|value| value.to_str().unwrap().to_owned());
    let body = actix_test::read_body(response).await;
    (status, remaining, String::from_utf8(body.to_vec()).unwrap())
}

#[actix_web::test]
async fn a_known_keys_read_runs_before_its_admission_answers_and_is_sent_once_admitted() {
    let limiter = web::Data::new(Scripted::default());
    let app = app(&limiter).await;
    limiter.then(Answer::Admit("Demo"));
    assert_eq!(
        call(&app, Method::GET, "/r").await,
        (200, Some("99".into()), "Demo".into())
    );
    // Answered only once the read has started: a read that waited for it would wait forever.
    limiter.then(Answer::AdmitOnceReadStarted("Demo"));
    let beside = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        call(&app, Method::GET, "/r"),
    )
    .await
    .expect("the read ran before its admission's answer");
    assert_eq!(beside, (200, Some("99".into()), "Demo".into()));
    assert_eq!((limiter.admissions(), limiter.reads()), (2, 2));
}

#[actix_web::test]
async fn a_read_its_admission_refuses_answers_the_refusal_and_nothing_of_the_read() {
    for (refusal, status) in [
        (Answer::Unknown, 401),
        (Answer::Inactive, 403),
        (Answer::Limited, 429),
    ] {
        let limiter = web::Data::new(Scripted::default());
        let app = app(&limiter).await;
        limiter.then(Answer::Admit("Demo"));
        assert_eq!(call(&app, Method::GET, "/r").await.0, 200);
        limiter.then(refusal);
        let (refused, remaining, body) = call(&app, Method::GET, "/r").await;
        assert_eq!(refused, status, "{body}");
        assert!(!body.contains("Demo"), "{body}");
        assert!(body.contains("\"error\""), "{body}");
        assert_eq!(remaining.is_some(), status == 429, "{remaining:?}");
        // The refused read did run, and was dropped.
        assert_eq!(limiter.reads(), 2);
        // Refused, the key is no longer guessed: its next read waits for its admission.
        limiter.then(Answer::Unknown);
        assert!(call(&app, Method::GET, "/r").await.0 >= 400);
        assert_eq!(limiter.reads(), 2, "a refused key's read ran");
    }
}

#[actix_web::test]
async fn a_read_admitted_as_another_caller_than_guessed_runs_again_as_the_admitted_one() {
    let limiter = web::Data::new(Scripted::default());
    let app = app(&limiter).await;
    limiter.then(Answer::Admit("Demo"));
    assert_eq!(call(&app, Method::GET, "/r").await.2, "Demo");
    limiter.then(Answer::Admit("Renamed"));
    assert_eq!(
        call(&app, Method::GET, "/r").await,
        (200, Some("99".into()), "Renamed".into())
    );
    assert_eq!(limiter.reads(), 3, "the guessed read and the admitted one");
    // The new caller is the next guess.
    limiter.then(Answer::Admit("Renamed"));
    assert_eq!(call(&app, Method::GET, "/r").await.2, "Renamed");
    assert_eq!(limiter.reads(), 4);
}

#[actix_web::test]
async fn writes_and_a_keys_first_read_wait_for_their_admission() {
    let limiter = web::Data::new(Scripted::default());
    let app = app(&limiter).await;
    limiter.then(Answer::Unknown);
    assert_eq!(call(&app, Method::GET, "/r").await.0, 401);
    assert_eq!(limiter.reads(), 0, "an unknown key's first read ran");
    limiter.then(Answer::Admit("Demo"));
    assert_eq!(call(&app, Method::GET, "/r").await.0, 200);
    // Known now; a write still waits, and is refused before it runs.
    limiter.then(Answer::Unknown);
    assert_eq!(call(&app, Method::POST, "/w").await.0, 401);
    assert_eq!(limiter.reads(), 1, "a refused write ran");
    assert_eq!(limiter.admissions(), 3);
}

/// `PATCH /c` with `body` and the key, and `extra` headers: status and body.
async fn patch(
    app: &impl actix_web::dev::Service<
        actix_http::Request,
        Response = ServiceResponse<BoxBody>,
        Error = actix_web::Error,
    >,
    body: &str,
    extra: &[(&str, &str)],
) -> (u16, String) {
    let mut request = actix_test::TestRequest::patch()
        .uri("/c")
        .insert_header((header::AUTHORIZATION, "Bearer pf_live_test_key"))
        .set_payload(body.to_owned());
    for header in extra {
        request = request.insert_header(*header);
    }
    let response = actix_test::call_service(app, request.to_request()).await;
    let status = response.status().as_u16();
    let body = actix_test::read_body(response).await;
    (status, String::from_utf8(body.to_vec()).unwrap())
}

#[actix_web::test]
async fn a_task_updates_reads_run_before_its_admission_answers_and_it_writes_once_admitted() {
    let limiter = web::Data::new(Scripted::default());
    let app = app(&limiter).await;
    // Unknown to this instance: it waits for its admission, as any write.
    limiter.then(Answer::Admit("Demo"));
    assert_eq!(patch(&app, "{}", &[]).await, (200, "Demo:{}".into()));
    // Known: answered only once the handler has started, so a write that waited for its
    // admission would wait forever.
    limiter.then(Answer::AdmitOnceReadStarted("Demo"));
    let beside = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        patch(&app, r#"{"completed":true}"#, &[]),
    )
    .await
    .expect("the update ran before its admission's answer");
    assert_eq!(beside, (200, r#"Demo:{"completed":true}"#.into()));
    assert_eq!(
        (limiter.admissions(), limiter.reads(), limiter.writes()),
        (2, 2, 2)
    );
}

#[actix_web::test]
async fn a_task_update_its_admission_refuses_writes_nothing_and_answers_the_refusal() {
    for (refusal, status) in [
        (Answer::Unknown, 401),
        (Answer::Inactive, 403),
        (Answer::Limited, 429),
    ] {
        let limiter = web::Data::new(Scripted::default());
        let app = app(&limiter).await;
        limiter.then(Answer::Admit("Demo"));
        assert_eq!(call(&app, Method::GET, "/r").await.0, 200);
        limiter.then(refusal);
        let (refused, body) = patch(&app, r#"{"completed":true}"#, &[]).await;
        assert_eq!(refused, status, "{body}");
        assert!(body.contains("\"error\""), "{body}");
        // It ran beside its admission, and wrote nothing.
        assert_eq!((limiter.reads(), limiter.writes()), (2, 0));
    }
}

#[actix_web::test]
async fn a_task_update_admitted_as_another_caller_than_guessed_writes_once_as_the_admitted_one() {
    let limiter = web::Data::new(Scripted::default());
    let app = app(&limiter).await;
    limiter.then(Answer::Admit("Demo"));
    assert_eq!(call(&app, Method::GET, "/r").await.2, "Demo");
    limiter.then(Answer::Admit("Renamed"));
    assert_eq!(
        patch(&app, r#"{"completed":true}"#, &[]).await,
        (200, r#"Renamed:{"completed":true}"#.into()),
        "run again with the same body"
    );
    assert_eq!(
        (limiter.reads(), limiter.writes()),
        (3, 1),
        "the guessed run read and did not write; the admitted one wrote"
    );
}

#[actix_web::test]
async fn a_task_update_with_an_idempotency_key_or_a_large_body_waits_for_its_admission() {
    let large = format!(r#"{{"comment":"{}"}}"#, "x".repeat(beside_write::BODY_MAX));
    for (body, extra) in [
        (r#"{"completed":true}"#, vec![("idempotency-key", "k-1")]),
        (large.as_str(), vec![]),
    ] {
        let limiter = web::Data::new(Scripted::default());
        let app = app(&limiter).await;
        limiter.then(Answer::Admit("Demo"));
        assert_eq!(call(&app, Method::GET, "/r").await.0, 200);
        limiter.then(Answer::Unknown);
        assert_eq!(patch(&app, body, &extra).await.0, 401);
        assert_eq!(
            (limiter.reads(), limiter.writes()),
            (1, 0),
            "it ran before its admission"
        );
    }
}

#[actix_web::test]
async fn a_task_update_whose_body_cannot_be_read_writes_nothing_and_its_refusal_comes_first() {
    for (answer, status) in [(Answer::Admit("Demo"), 400), (Answer::Unknown, 401)] {
        let limiter = web::Data::new(Scripted::default());
        let app = app(&limiter).await;
        limiter.then(Answer::Admit("Demo"));
        assert_eq!(call(&app, Method::GET, "/r").await.0, 200);
        limiter.then(answer);
        // A declared length, and a body that breaks off (the client went away).
        let broken: actix_http::BoxedPayloadStream = Box::pin(futures_util::stream::iter([
            Ok(bytes::Bytes::from_static(b"{\"comp")),
            Err(actix_web::error::PayloadError::Incomplete(None)),
        ]));
        let request = actix_test::TestRequest::patch()
            .uri("/c")
            .insert_header((header::AUTHORIZATION, "Bearer pf_live_test_key"))
            .insert_header((header::CONTENT_LENGTH, "18"))
            .to_request();
        let (request, _) = request.replace_payload(actix_http::Payload::from(broken));
        let response = actix_test::call_service(&app, request).await;
        assert_eq!(response.status().as_u16(), status);
        // The handler never ran: its body's extractor failed, as without the admission beside.
        assert_eq!((limiter.reads(), limiter.writes()), (1, 0));
    }
}
