//! An S3-compatible server on loopback for the S3 adapter's tests: `scripts/s3-server.py`
//! (moto's server) started from the virtualenv `make s3-tools` makes, on a free port, with its
//! buckets made, stopped when dropped (its stdin closing stops it even if this process dies).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};

/// The running server.
pub struct S3Server {
    child: Child,
    stdin: Option<ChildStdin>,
    port: u16,
}

impl S3Server {
    /// Starts the server with `buckets` made; panics with what to run when the virtualenv is
    /// missing.
    pub fn start(buckets: &[&str]) -> Self {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let python = std::env::var_os("PROCFLOW_S3_PYTHON")
            .map_or_else(|| root.join("target/tools/s3/bin/python"), PathBuf::from);
        assert!(
            python.exists(),
            "{} is missing: run `make s3-tools` (the S3 adapter tests' server, moto)",
            python.display()
        );
        let mut child = Command::new(&python)
            .arg(root.join("scripts/s3-server.py"))
            .args(buckets)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the S3 server");
        let stdout = child.stdout.take().expect("its stdout");
        let mut first = String::new();
        BufReader::new(stdout)
            .read_line(&mut first)
            .expect("the port line");
        let port = first
            .strip_prefix("port ")
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("the S3 server said {first:?}, not its port"));
        let stdin = child.stdin.take();
        Self { child, stdin, port }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// What the server answers to a plain `GET` of `path` (it checks no signatures): the
    /// status line and the body.
    pub fn get(&self, path: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        write!(
            stream,
            "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{}\r\n\r\n",
            self.port
        )
        .expect("send");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("the answer");
        answer
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        // Its stdin closing stops it; killing makes sure.
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
