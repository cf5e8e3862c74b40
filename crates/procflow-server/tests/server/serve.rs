//! The app as `main` builds it, started on port 0.

use std::net::TcpListener;

use procflow_postgres::testing::migrated_database;
use procflow_server::ServeConfig;

use super::support::{get, url};

#[tokio::test(flavor = "multi_thread")]
async fn the_app_starts_on_port_0_and_answers_healthz() {
    let db = migrated_database().await;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let mut config = ServeConfig {
        db_pool_size: 2,
        ..ServeConfig::new(url(&db), address)
    };
    config.http.workers = Some(1);
    let server = procflow_server::start(config, listener).await.unwrap();
    let handle = server.handle();
    let serving = tokio::spawn(server);

    let (status, body) = tokio::task::spawn_blocking(move || get(address, "/healthz"))
        .await
        .unwrap();
    assert_eq!(status, 200, "/healthz answered {status}: {body}");

    handle.stop(true).await;
    serving.await.unwrap().unwrap();
}
