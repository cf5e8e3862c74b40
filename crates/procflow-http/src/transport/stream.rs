//! The connection as actix sees it: the client's bytes passed on a whole request head at a
//! time (checked first: a refused head reaches actix as a request for the refusal's answer),
//! bodies within their time limit, and writes that the client must take within theirs.

use std::io;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Buf, BufMut, BytesMut};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Sleep, sleep};

use super::chunked::{Chunked, Step};
use super::head::{Framing, Inspection, Refusal, inspect};
use super::low_water::LowWater;
use super::{BodyFault, Connection, Limits, REFUSAL_PATH};

/// Where the reading of the client's bytes stands.
enum Reading {
    /// Gathering a request head.
    Head,
    /// In a body of this many more bytes.
    Length(u64),
    /// In a chunked body.
    Chunked(Chunked),
    /// In a body that lasts until the connection ends.
    Rest,
    /// Nothing more is passed on: after a refusal, or a body that broke its rules.
    Ended,
}

/// A client's connection, guarded (see the module's doc).
pub struct Guarded<S> {
    io: S,
    /// The socket's receive low-water mark as last set (1, the kernel's, until a large body).
    low_water: usize,
    limits: Arc<Limits>,
    connection: Arc<Connection>,
    reading: Reading,
    /// The head being gathered.
    head: Vec<u8>,
    /// Bytes checked and ready for actix, from `ready_at`.
    ready: Vec<u8>,
    ready_at: usize,
    /// Bytes of a body of declared length, read straight into it (see [`BODY_READ`]); passed
    /// on after `ready`.
    body: BytesMut,
    head_timer: Option<Pin<Box<Sleep>>>,
    body_timer: Option<Pin<Box<Sleep>>>,
    write_timer: Option<Pin<Box<Sleep>>>,
    /// Set once the sending side is shut: how long what the client still sends is drained.
    linger: Option<Pin<Box<Sleep>>>,
}

/// How much is read from the client at once. actix asks for 8 KiB at a time; a body read in
/// pieces that small costs a system call each (1,280 for a 10 MiB upload), so bigger pieces are
/// read here and actix's reads are served from memory.
const READ_CHUNK: usize = 64 * 1024;

/// What the buffer of bytes ready for actix may keep between reads: a connection does not hold
/// on to a body's read buffer once the body has passed.
const READY_KEPT: usize = 8 * 1024;

/// How much of a body of declared length is read at once, straight into a buffer actix reads
/// from: a 10 MiB upload was read in 160 system calls and copied once more, from the read
/// buffer into `ready`. The buffer lives only while the client's bytes keep coming: a read
/// that finds nothing drops it, so that an idle or trickling connection holds none between
/// its reads.
const BODY_READ: usize = 256 * 1024;

/// A body with more than this to come has the kernel gather a read's worth before it wakes the
/// connection (see `low_water.rs`); a smaller one arrives in a piece or two, not worth the
/// system calls that set and reset the mark.
const GATHERED_FROM: u64 = READ_CHUNK as u64;

/// How long a connection being closed drains what its client still sends: actix's own
/// `client_disconnect_timeout`.
const LINGER: std::time::Duration = std::time::Duration::from_secs(1);

impl<S> Guarded<S> {
    /// The connection `io`, guarded by `limits`; its first head must arrive within the head
    /// time limit from now.
    pub fn new(io: S, limits: Arc<Limits>) -> Self {
        let head_timer = Some(Box::pin(sleep(limits.head_timeout)));
        Self {
            io,
            low_water: 1,
            limits,
            connection: Arc::new(Connection::default()),
            reading: Reading::Head,
            head: Vec::new(),
            ready: Vec::new(),
            ready_at: 0,
            body: BytesMut::new(),
            head_timer,
            body_timer: None,
            write_timer: None,
            linger: None,
        }
    }

    /// What the connection's requests may learn of it (a refusal, a body's fault).
    #[must_use]
    pub fn connection(&self) -> Arc<Connection> {
        self.connection.clone()
    }

    /// Takes in bytes the client sent.
    fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            match &mut self.reading {
                Reading::Head => {
                    if self.head.is_empty() && self.head_timer.is_none() {
                        self.head_timer = Some(Box::pin(sleep(self.limits.head_timeout)));
                    }
                    self.head.extend_from_slice(bytes);
                    bytes = &[];
                    if let Some(rest) = self.examine() {
                        self.feed(&rest);
                    }
                }
                Reading::Length(remaining) => {
                    let take = bytes
                        .len()
                        .min(usize::try_from(*remaining).unwrap_or(usize::MAX));
                    self.ready.extend_from_slice(&bytes[..take]);
                    bytes = &bytes[take..];
                    *remaining -= take as u64;
                    if *remaining == 0 {
                        self.body_done();
                    }
                }
                Reading::Chunked(chunked) => {
                    let (used, step) = chunked.advance(bytes);
                    self.ready.extend_from_slice(&bytes[..used]);
                    bytes = &bytes[used..];
                    match step {
                        Step::More => {}
                        Step::End => self.body_done(),
                        Step::Malformed(why) => {
                            tracing::warn!(
                                reason = why,
                                "a chunked request body broke its grammar; the connection ends"
                            );
                            self.connection.fault(BodyFault::Malformed(why));
                            self.end();
                            bytes = &[];
                        }
                    }
                }
                Reading::Rest => {
                    self.ready.extend_from_slice(bytes);
                    bytes = &[];
                }
                Reading::Ended => bytes = &[],
            }
        }
    }

    /// Looks at the head gathered: a whole one is passed on (answering the bytes after it), a
    /// refused one becomes the request for its refusal.
    fn examine(&mut self) -> Option<Vec<u8>> {
        match inspect(&self.head) {
            Inspection::Partial => None,
            Inspection::Refused(refusal) => {
                self.refuse(refusal);
                None
            }
            Inspection::Complete { len, framing } => {
                let rest = self.head.split_off(len);
                self.ready.append(&mut self.head);
                self.head_timer = None;
                self.reading = match framing {
                    Framing::None => Reading::Head,
                    Framing::Length(n) => Reading::Length(n),
                    Framing::Chunked => Reading::Chunked(Chunked::default()),
                    Framing::Rest => Reading::Rest,
                };
                if !matches!(self.reading, Reading::Head) {
                    self.body_timer = Some(Box::pin(sleep(self.limits.body_timeout)));
                }
                Some(rest)
            }
        }
    }

    fn body_done(&mut self) {
        self.reading = Reading::Head;
        self.body_timer = None;
    }

    /// Passes on the request for `refusal`'s answer, and nothing after it.
    fn refuse(&mut self, refusal: Refusal) {
        self.connection.refuse(refusal);
        self.head.clear();
        self.ready.extend_from_slice(
            format!("GET {REFUSAL_PATH} HTTP/1.1\r\nHost: procflow\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        );
        self.end();
    }

    fn end(&mut self) {
        self.reading = Reading::Ended;
        self.head_timer = None;
        self.body_timer = None;
    }

    /// Whether the time of the head or of the body being read has run out (and if not, wakes
    /// the task when it does).
    fn check_timers(&mut self, cx: &mut Context<'_>) {
        if let Some(timer) = self.head_timer.as_mut()
            && timer.as_mut().poll(cx).is_ready()
        {
            self.refuse(Refusal::head_timeout(self.limits.head_timeout));
            return;
        }
        if let Some(timer) = self.body_timer.as_mut()
            && timer.as_mut().poll(cx).is_ready()
        {
            let limit = self.limits.body_timeout;
            tracing::warn!(
                timeout_ms = limit.as_millis() as u64,
                "a request body did not arrive in time; the connection ends"
            );
            self.connection.fault(BodyFault::TimedOut(limit));
            self.end();
        }
    }

    /// Sets the socket's low-water mark to `mark` if it has another.
    fn set_low_water(&mut self, mark: usize) -> io::Result<()>
    where
        S: LowWater,
    {
        if mark != self.low_water {
            self.io.set_low_water(mark)?;
            self.low_water = mark;
        }
        Ok(())
    }

    /// Reads up to [`BODY_READ`] bytes of a body with `remaining` bytes to come into `body`,
    /// which is empty; the kernel wakes the connection once that much (or the rest of the
    /// body) is there.
    fn read_body(&mut self, cx: &mut Context<'_>, remaining: u64) -> Poll<io::Result<()>>
    where
        S: AsyncRead + Unpin + LowWater,
    {
        let ask = usize::try_from(remaining).map_or(BODY_READ, |r| r.min(BODY_READ));
        if (remaining > GATHERED_FROM || self.low_water > 1)
            && let Err(error) = self.set_low_water(ask)
        {
            // A mark left above what is to come would hold the body's end back.
            if self.low_water > ask {
                return Poll::Ready(Err(error));
            }
            // Only the wake-ups it saves are lost: the body is read as it comes.
            tracing::debug!(%error, "could not set a socket's receive low-water mark");
        }
        self.body.reserve(ask);
        let mut into = (&mut self.body).limit(ask);
        let n = match tokio_util::io::poll_read_buf(Pin::new(&mut self.io), cx, &mut into) {
            Poll::Pending => {
                self.body = BytesMut::new();
                return Poll::Pending;
            }
            Poll::Ready(read) => read?,
        };
        if n == 0 {
            // The client is done, its body unfinished.
            self.end();
            return Poll::Ready(Ok(()));
        }
        let left = remaining - n as u64;
        self.reading = Reading::Length(left);
        if left == 0 {
            self.body_done();
        }
        Poll::Ready(Ok(()))
    }

    /// A write that waits for the client: pending until the write time limit, then an error
    /// that ends the connection.
    fn stalled<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let limit = self.limits.write_timeout;
        let timer = self
            .write_timer
            .get_or_insert_with(|| Box::pin(sleep(limit)));
        if timer.as_mut().poll(cx).is_ready() {
            tracing::warn!(
                timeout_ms = limit.as_millis() as u64,
                "a client did not take its response in time; the connection ends"
            );
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client did not take its response in time",
            )));
        }
        Poll::Pending
    }
}

impl<S: AsyncRead + Unpin + LowWater> AsyncRead for Guarded<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.ready_at < this.ready.len() {
                let n = buf.remaining().min(this.ready.len() - this.ready_at);
                buf.put_slice(&this.ready[this.ready_at..this.ready_at + n]);
                this.ready_at += n;
                if this.ready_at == this.ready.len() {
                    this.ready.clear();
                    this.ready.shrink_to(READY_KEPT);
                    this.ready_at = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if !this.body.is_empty() {
                let n = buf.remaining().min(this.body.len());
                buf.put_slice(&this.body[..n]);
                this.body.advance(n);
                // Kept for the body's next read, which drops it if it finds nothing.
                if this.body.is_empty() && !matches!(this.reading, Reading::Length(_)) {
                    this.body = BytesMut::new();
                }
                return Poll::Ready(Ok(()));
            }
            if matches!(this.reading, Reading::Ended) {
                // The end of the stream, as far as actix is concerned.
                return Poll::Ready(Ok(()));
            }
            this.check_timers(cx);
            if this.ready_at < this.ready.len() || matches!(this.reading, Reading::Ended) {
                continue;
            }
            if let Reading::Length(remaining @ 1..) = this.reading {
                std::task::ready!(this.read_body(cx, remaining))?;
                continue;
            }
            // A head, or a body not of declared length: every byte counts at once again. A mark
            // left high would hold a short head back until its time ran out.
            this.set_low_water(1)?;
            // Uninitialised: zeroing it was 3 % of a read request's instructions.
            let mut chunk = [MaybeUninit::<u8>::uninit(); READ_CHUNK];
            let mut read = ReadBuf::uninit(&mut chunk);
            match Pin::new(&mut this.io).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Ready(Ok(())) if read.filled().is_empty() => {
                    // The client is done: whatever head it left unfinished goes nowhere.
                    this.end();
                }
                Poll::Ready(Ok(())) => this.feed(read.filled()),
            }
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Guarded<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.io).poll_write(cx, buf) {
            Poll::Pending => this.stalled(cx),
            done => done,
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.io).poll_flush(cx) {
            // Everything written was taken: the next wait starts its own clock.
            Poll::Ready(Ok(())) => {
                this.write_timer = None;
                Poll::Ready(Ok(()))
            }
            Poll::Pending => this.stalled(cx),
            failed => failed,
        }
    }

    /// Ends the sending side, then reads and drops what the client still sends (for at most
    /// 1 s, actix's own `client_disconnect_timeout`), so that closing with its bytes unread
    /// does not reset the connection before the client has read the answer (a refusal of a
    /// head it had not finished sending, say).
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.linger.is_none() {
            std::task::ready!(Pin::new(&mut this.io).poll_shutdown(cx))?;
            this.linger = Some(Box::pin(sleep(LINGER)));
        }
        loop {
            if let Some(linger) = this.linger.as_mut()
                && linger.as_mut().poll(cx).is_ready()
            {
                return Poll::Ready(Ok(()));
            }
            // Uninitialised: zeroing it was 3 % of a read request's instructions.
            let mut chunk = [MaybeUninit::<u8>::uninit(); READ_CHUNK];
            let mut read = ReadBuf::uninit(&mut chunk);
            match Pin::new(&mut this.io).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok(())) if !read.filled().is_empty() => {}
                // The client closed (or broke) its side: done.
                Poll::Ready(_) => return Poll::Ready(Ok(())),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, duplex};
    use tokio::net::{TcpListener, TcpStream};
    use tokio::time::timeout;

    use super::super::low_water::low_water;
    use super::*;

    fn guarded<S>(server: S) -> Guarded<S> {
        let second = Duration::from_secs(1);
        Guarded::new(
            server,
            Arc::new(Limits {
                head_timeout: second,
                body_timeout: second,
                write_timeout: second,
            }),
        )
    }

    /// The head of the request after a body.
    const NEXT_HEAD: &[u8] = b"GET /next HTTP/1.1\r\nHost: x\r\n\r\n";

    /// The head of a POST with a body of `length` bytes.
    fn post_head(length: usize) -> Vec<u8> {
        format!("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n").into_bytes()
    }

    /// A connection whose client has sent the head of a POST with a body of `length` bytes,
    /// the head already passed on.
    async fn in_body(length: usize) -> (DuplexStream, Guarded<DuplexStream>) {
        let (mut client, server) = duplex(4 * BODY_READ);
        let mut guarded = guarded(server);
        let head = post_head(length);
        client.write_all(&head).await.unwrap();
        assert_eq!(take(&mut guarded, head.len()).await, head);
        (client, guarded)
    }

    /// Reads `n` bytes through the guard in actix's 8 KiB pieces.
    async fn take<S: AsyncRead + Unpin + LowWater>(guarded: &mut Guarded<S>, n: usize) -> Vec<u8> {
        let mut taken = Vec::new();
        while taken.len() < n {
            let mut piece = vec![0_u8; (8 * 1024).min(n - taken.len())];
            let read = guarded.read(&mut piece).await.expect("a read");
            assert!(read > 0, "the stream ended after {} bytes", taken.len());
            taken.extend_from_slice(&piece[..read]);
        }
        taken
    }

    #[tokio::test]
    async fn a_body_read_straight_reaches_actix_whole_and_the_request_after_it_too() {
        let (mut client, server) = duplex(4 * BODY_READ);
        let mut guarded = guarded(server);
        let body: Vec<u8> = (0..3 * BODY_READ + 12_345)
            .map(|i| (i % 251) as u8)
            .collect();
        let mut sent = post_head(body.len());
        sent.extend_from_slice(&body);
        sent.extend_from_slice(NEXT_HEAD);
        let expected = sent.clone();
        let writing = tokio::spawn(async move {
            // In pieces that cross the body's reads, as a socket delivers them.
            for piece in sent.chunks(100_000) {
                client.write_all(piece).await.unwrap();
            }
            client
        });
        let taken = take(&mut guarded, expected.len()).await;
        assert!(
            taken == expected,
            "the bytes passed on differ from those sent"
        );
        assert!(matches!(guarded.reading, Reading::Head));
        assert_eq!(
            guarded.body.capacity(),
            0,
            "the body's buffer outlived the body"
        );
        drop(writing.await.unwrap());
    }

    /// Polls a read once, with nobody to wake: whether it found bytes.
    fn poll_once<S: AsyncRead + Unpin + LowWater>(
        guarded: &mut Guarded<S>,
    ) -> Poll<io::Result<()>> {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut piece = [0_u8; 64];
        Pin::new(guarded).poll_read(&mut cx, &mut ReadBuf::new(&mut piece))
    }

    #[tokio::test]
    async fn a_body_waited_for_holds_no_read_buffer() {
        let (mut client, mut guarded) = in_body(1_000_000).await;
        // A trickle, a burst larger than one read, a trickle: each taken, then waited for.
        for (round, size) in [10, BODY_READ + 1_000, 10].into_iter().enumerate() {
            let bytes: Vec<u8> = (0..size).map(|i| (i % 7) as u8).collect();
            client.write_all(&bytes).await.unwrap();
            assert!(take(&mut guarded, size).await == bytes, "round {round}");
            assert!(matches!(guarded.reading, Reading::Length(_)));
            assert!(poll_once(&mut guarded).is_pending(), "round {round}");
            assert_eq!(guarded.body.capacity(), 0, "round {round}");
        }
    }

    #[tokio::test]
    async fn a_body_cut_short_ends_the_stream() {
        let (mut client, mut guarded) = in_body(1_000).await;
        client.write_all(&[b'x'; 600]).await.unwrap();
        drop(client);
        assert_eq!(take(&mut guarded, 600).await, vec![b'x'; 600]);
        let mut rest = [0_u8; 16];
        assert_eq!(guarded.read(&mut rest).await.unwrap(), 0);
        assert!(matches!(guarded.reading, Reading::Ended));
    }

    /// A loopback connection: the client's end, and the server's, guarded.
    async fn tcp_pair() -> (TcpStream, Guarded<TcpStream>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        (client, guarded(server))
    }

    /// Sends a POST of `length` bytes on a loopback connection and reads it through the guard,
    /// then a GET after it: the socket's mark before the body came, once the body was read,
    /// and whether the GET's head got through.
    async fn body_then_head(length: usize) -> (usize, usize) {
        // Only reached when a regression holds bytes back: the test fails instead of hanging.
        let within = Duration::from_secs(5);
        let (mut client, mut guarded) = tcp_pair().await;
        let head = post_head(length);
        client.write_all(&head).await.unwrap();
        assert_eq!(take(&mut guarded, head.len()).await, head);
        assert_eq!(
            low_water(&guarded.io).unwrap(),
            1,
            "a head counts every byte"
        );
        // Nothing of the body has been sent: what the read waits for is the mark.
        assert!(poll_once(&mut guarded).is_pending());
        let before = low_water(&guarded.io).unwrap();
        let body: Vec<u8> = (0..length).map(|i| (i % 253) as u8).collect();
        let sent = body.clone();
        let writing = tokio::spawn(async move {
            client.write_all(&sent).await.unwrap();
            client
        });
        let taken = timeout(within, take(&mut guarded, length)).await;
        assert!(taken.expect("the body") == body);
        let mut client = writing.await.unwrap();
        // Waiting for the next head, shorter than any mark a body set: it wakes the read
        // only if the mark is back at one byte.
        assert!(poll_once(&mut guarded).is_pending());
        let after = low_water(&guarded.io).unwrap();
        client.write_all(NEXT_HEAD).await.unwrap();
        let taken = timeout(within, take(&mut guarded, NEXT_HEAD.len())).await;
        assert_eq!(taken.expect("the next head"), NEXT_HEAD);
        (before, after)
    }

    #[tokio::test]
    async fn a_large_body_is_gathered_a_read_at_a_time_and_the_next_head_read_at_once() {
        assert_eq!(body_then_head(3 * BODY_READ + 1_000).await, (BODY_READ, 1));
    }

    #[tokio::test]
    async fn a_body_shorter_than_a_read_is_gathered_whole() {
        let length = BODY_READ / 2;
        assert!(length as u64 > GATHERED_FROM);
        assert_eq!(body_then_head(length).await, (length, 1));
    }

    #[tokio::test]
    async fn a_small_body_leaves_the_mark_alone() {
        let length = usize::try_from(GATHERED_FROM).unwrap();
        assert_eq!(body_then_head(length).await, (1, 1));
    }

    /// The body of the refusal tests: two reads' worth and a tail.
    const REFUSED_LENGTH: usize = 2 * BODY_READ + 1_000;

    /// An in-memory stream whose mark can be set `allowed` more times; then the system refuses.
    struct Refusing {
        io: DuplexStream,
        allowed: std::cell::Cell<usize>,
    }

    impl AsyncRead for Refusing {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            Pin::new(&mut self.io).poll_read(cx, buf)
        }
    }

    impl LowWater for Refusing {
        fn set_low_water(&self, _bytes: usize) -> io::Result<()> {
            match self.allowed.get() {
                0 => Err(io::Error::from_raw_os_error(12)),
                n => {
                    self.allowed.set(n - 1);
                    Ok(())
                }
            }
        }
    }

    /// A POST of `length` bytes, its body and a GET after it, all sent at once to a guard whose
    /// mark can be set `allowed` times: the bytes read through it up to its first error.
    async fn through_refusing(length: usize, allowed: usize) -> (Vec<u8>, Vec<u8>, io::Result<()>) {
        let (mut client, server) = duplex(4 * BODY_READ);
        let mut guarded = guarded(Refusing {
            io: server,
            allowed: std::cell::Cell::new(allowed),
        });
        let mut sent = post_head(length);
        sent.extend((0..length).map(|i| (i % 251) as u8));
        sent.extend_from_slice(NEXT_HEAD);
        client.write_all(&sent).await.unwrap();
        drop(client);
        let mut taken = Vec::new();
        let outcome = loop {
            let mut piece = [0_u8; 8 * 1024];
            match guarded.read(&mut piece).await {
                Ok(0) => break Ok(()),
                Ok(read) => taken.extend_from_slice(&piece[..read]),
                Err(error) => break Err(error),
            }
        };
        (sent, taken, outcome)
    }

    #[tokio::test]
    async fn a_mark_the_system_refuses_to_raise_leaves_the_body_read_as_it_comes() {
        let (sent, taken, outcome) = through_refusing(REFUSED_LENGTH, 0).await;
        assert!(outcome.is_ok());
        assert!(taken == sent, "every byte sent is passed on");
    }

    /// [`through_refusing`] a body of [`REFUSED_LENGTH`] bytes, which must end with the
    /// system's refusal: the bytes sent and those read.
    async fn ended_by_refusal(allowed: usize) -> (Vec<u8>, Vec<u8>) {
        let (sent, taken, outcome) = through_refusing(REFUSED_LENGTH, allowed).await;
        let error = outcome.expect_err("the connection ends");
        assert_eq!(error.raw_os_error(), Some(12));
        (sent, taken)
    }

    #[tokio::test]
    async fn a_mark_the_system_refuses_to_lower_ends_the_connection_with_its_error() {
        // The raise to a read's worth is let through, the lowering to the body's tail refused.
        let (sent, taken) = ended_by_refusal(1).await;
        assert!(taken.len() <= sent.len() - 1_000, "the tail is never read");
    }

    #[tokio::test]
    async fn a_mark_the_system_refuses_to_reset_ends_the_connection_before_the_next_head() {
        // The raise and the lowering to the tail are let through, the reset to a byte refused.
        let (sent, taken) = ended_by_refusal(2).await;
        let post = post_head(REFUSED_LENGTH).len() + REFUSED_LENGTH;
        assert!(
            taken == sent[..post],
            "the body whole, nothing of the next head"
        );
    }
}
