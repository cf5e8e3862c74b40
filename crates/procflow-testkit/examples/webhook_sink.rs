//! A webhook receiver for the bench: answers 200 to every request on `127.0.0.1:<port>` (the
//! first argument, 0 for any) and prints the port, then the count of requests each second.
//!
//! `cargo run --release -p procflow-testkit --example webhook_sink -- 0`

use std::io::Write as _;
use std::time::Duration;

use procflow_testkit::receiver::Receiver;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let port = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let receiver = Receiver::start_on(port).await;
    receiver.discard_requests();
    let mut out = std::io::stdout();
    let _ = writeln!(out, "port {}", receiver.port());
    loop {
        let _ = out.flush();
        tokio::time::sleep(Duration::from_secs(1)).await;
        let _ = writeln!(out, "received {}", receiver.count());
    }
}
