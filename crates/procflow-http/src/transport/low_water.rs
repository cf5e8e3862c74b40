//! The receive low-water mark of a client's socket (`SO_RCVLOWAT`): how many bytes the kernel
//! gathers before it reports the connection readable.
//!
//! During a body of declared length the transport reads up to 256 KiB at a time; with the mark
//! at that size (or at the rest of the body, when less is to come) the kernel reports the socket
//! readable once a whole read's worth is there. Measured on a 10 MiB upload: 7 to 14 % more
//! MB/s (medians of two series), higher in 15 pairs of 16 against the same server without it
//! (`docs/performance.md`, "A body gathered by the kernel"). Most reads were whole 256 KiB ones
//! before too, so the wake-ups it saves are few. What else it changes is the likely cause, not a
//! measured one: the kernel sizes the socket's receive buffer for the mark at once (from 128 KiB
//! to 512 KiB here), where it otherwise grows it as the body comes.
//!
//! nix, which the workspace already builds, names no such option; its `sockopt_impl!` macro is
//! how it lets a caller define one. The one system call here is thus nix's code (the workspace
//! forbids `unsafe` of its own).

use std::io;

use nix::sys::socket::setsockopt;
use nix::{getsockopt_impl, setsockopt_impl, sockopt_impl};

sockopt_impl!(
    /// `SO_RCVLOWAT`: the bytes a stream socket gathers before it is reported readable.
    RcvLowWater,
    Both,
    libc::SOL_SOCKET,
    libc::SO_RCVLOWAT,
    usize
);

/// A stream whose readiness can wait for a number of bytes.
pub trait LowWater {
    /// Reports the stream readable only once `bytes` (at least 1) have arrived, or it ended.
    ///
    /// # Errors
    /// When the system refuses the setting.
    fn set_low_water(&self, bytes: usize) -> io::Result<()>;
}

impl LowWater for tokio::net::TcpStream {
    fn set_low_water(&self, bytes: usize) -> io::Result<()> {
        setsockopt(self, RcvLowWater, &bytes.max(1)).map_err(io::Error::from)
    }
}

/// The mark `stream` has now.
#[cfg(test)]
pub(super) fn low_water(stream: &tokio::net::TcpStream) -> io::Result<usize> {
    nix::sys::socket::getsockopt(stream, RcvLowWater).map_err(io::Error::from)
}

/// An in-memory stream has no mark: every byte written is readable.
#[cfg(test)]
impl LowWater for tokio::io::DuplexStream {
    fn set_low_water(&self, _bytes: usize) -> io::Result<()> {
        Ok(())
    }
}
