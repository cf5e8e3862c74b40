//! `DisposableServer` against the system's binaries: stopping, restarting on the same port with
//! the same data, and cleaning up when dropped.

use std::time::Duration;

use procflow_testkit::{DisposableServer, server_url};
use tokio_postgres::{Client, NoTls};

async fn connect(url: &str) -> Result<Client, tokio_postgres::Error> {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await?;
    tokio::spawn(connection);
    Ok(client)
}

async fn count_rows(client: &Client) -> Result<i64, tokio_postgres::Error> {
    client
        .query_one("SELECT count(*) FROM t", &[])
        .await?
        .try_get(0)
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
async fn listening(port: u16) -> bool {
    tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_ok()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stopped_server_refuses_connections_and_restarts_with_its_data() {
    let server = DisposableServer::start().await;
    let url = server.create_database("app").await;
    assert_eq!(url, server.url("app"));
    assert!(url.contains(&format!(":{}/app", server.port())), "{url}");

    let client = connect(&url).await.unwrap();
    client
        .batch_execute("CREATE TABLE t (x int); INSERT INTO t VALUES (1)")
        .await
        .unwrap();

    server.stop().await;
    let lost = client.batch_execute("SELECT 1").await.unwrap_err();
    assert!(lost.is_closed() || lost.code().is_some(), "{lost}");
    assert!(connect(&url).await.is_err(), "a stopped server accepted");
    assert!(!listening(server.port()).await);

    server.restart().await;
    let client = connect(&url).await.unwrap();
    assert_eq!(count_rows(&client).await.unwrap(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_immediate_stop_is_recovered_on_restart() {
    let server = DisposableServer::start().await;
    let url = server.create_database("app").await;
    let client = connect(&url).await.unwrap();
    client.batch_execute("SELECT 1").await.unwrap();

    server.stop_immediately().await;
    assert!(client.batch_execute("SELECT 1").await.is_err());
    assert!(connect(&url).await.is_err(), "a stopped server accepted");

    // Crash recovery; the database (CREATE DATABASE checkpoints) is still there. Rows
    // committed just before the crash may be lost: `synchronous_commit` is off.
    server.restart().await;
    let client = connect(&url).await.unwrap();
    client.batch_execute("SELECT 1").await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dropped_server_is_gone() {
    let server = DisposableServer::start().await;
    let port = server.port();
    let client = connect(&server.url("postgres")).await.unwrap();
    let data_dir: String = client
        .query_one("SELECT current_setting('data_directory')", &[])
        .await
        .unwrap()
        .get(0);
    assert!(std::path::Path::new(&data_dir).is_dir(), "{data_dir}");

    drop(server);
    // The destructor waited for the stop and the removal.
    assert!(!listening(port).await, "port {port} still accepts");
    assert!(
        !std::path::Path::new(&data_dir).exists(),
        "{data_dir} is left"
    );
    let lost = tokio::time::timeout(Duration::from_secs(5), client.batch_execute("SELECT 1"))
        .await
        .expect("an answer");
    assert!(lost.is_err());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_disposable_server_is_not_the_shared_one() {
    let server = DisposableServer::start().await;
    let shared = server_url().await;
    assert_ne!(server.url("postgres"), shared);
    server.stop().await;
    // The shared server still answers.
    let client = connect(&shared).await.unwrap();
    client.batch_execute("SELECT 1").await.unwrap();
}
