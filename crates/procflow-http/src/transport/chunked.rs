//! Where a chunked body ends, read with the grammar actix's decoder reads it (`h1/chunked.rs`
//! of actix-http): the transport guard needs to know where the next request's head starts, and
//! to stop a malformed body before actix answers it with an empty 400 of its own.

/// The state of a chunked body being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    SizeFirst,
    SizeRest,
    SizeLws,
    Extension,
    SizeLf,
    Body,
    BodyCr,
    BodyLf,
    Trailer,
    TrailerLf,
    EndCr,
    EndLf,
    End,
}

/// What the bytes read so far make of the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// More of it is to come.
    More,
    /// It ended (its last chunk and trailers read).
    End,
    /// It breaks the grammar here.
    Malformed(&'static str),
}

/// A chunked body, followed byte by byte (chunk data in one step).
#[derive(Clone, Debug)]
pub(crate) struct Chunked {
    state: State,
    size: u64,
}

impl Default for Chunked {
    fn default() -> Self {
        Self {
            state: State::SizeFirst,
            size: 0,
        }
    }
}

fn hex(byte: u8) -> Option<u64> {
    match byte {
        b'0'..=b'9' => Some(u64::from(byte - b'0')),
        b'a'..=b'f' => Some(u64::from(byte - b'a' + 10)),
        b'A'..=b'F' => Some(u64::from(byte - b'A' + 10)),
        _ => None,
    }
}

impl Chunked {
    /// Reads as much of `input` as belongs to the body: how many bytes, and what they make of
    /// it (on [`Step::End`], the rest of `input` is the next request's).
    pub(crate) fn advance(&mut self, input: &[u8]) -> (usize, Step) {
        let mut at = 0;
        while at < input.len() {
            if self.state == State::End {
                return (at, Step::End);
            }
            if self.state == State::Body {
                let available = (input.len() - at) as u64;
                let take = available.min(self.size);
                at += usize::try_from(take).unwrap_or(usize::MAX);
                self.size -= take;
                if self.size == 0 {
                    self.state = State::BodyCr;
                }
                continue;
            }
            let byte = input[at];
            at += 1;
            match self.next(byte) {
                Ok(state) => self.state = state,
                Err(why) => return (at, Step::Malformed(why)),
            }
        }
        let step = if self.state == State::End {
            Step::End
        } else {
            Step::More
        };
        (at, step)
    }

    fn next(&mut self, byte: u8) -> Result<State, &'static str> {
        use State as S;
        match (self.state, byte) {
            (S::SizeFirst, _) => {
                self.size = hex(byte).ok_or("a chunk size that is no hexadecimal number")?;
                Ok(S::SizeRest)
            }
            (S::SizeRest, b'\t' | b' ') => Ok(S::SizeLws),
            (S::SizeRest, b';') => Ok(S::Extension),
            (S::SizeRest, b'\r') => Ok(S::SizeLf),
            (S::SizeRest, _) => {
                let digit = hex(byte).ok_or("a chunk size that is no hexadecimal number")?;
                self.size = self
                    .size
                    .checked_mul(16)
                    .and_then(|size| size.checked_add(digit))
                    .ok_or("a chunk size too large")?;
                Ok(S::SizeRest)
            }
            (S::SizeLws, b'\t' | b' ') => Ok(S::SizeLws),
            (S::SizeLws, b';') => Ok(S::Extension),
            (S::SizeLws, b'\r') => Ok(S::SizeLf),
            (S::SizeLws, _) => Err("a chunk size followed by something else"),
            (S::Extension, b'\r') => Ok(S::SizeLf),
            (S::Extension, 0x00..=0x08 | 0x0a..=0x1f | 0x7f) => {
                Err("a control character in a chunk extension")
            }
            (S::Extension, _) => Ok(S::Extension),
            (S::SizeLf, b'\n') if self.size > 0 => Ok(S::Body),
            (S::SizeLf, b'\n') => Ok(S::EndCr),
            (S::SizeLf, _) => Err("a chunk size line without its LF"),
            (S::BodyCr, b'\r') => Ok(S::BodyLf),
            (S::BodyCr, _) => Err("a chunk longer than its size"),
            (S::BodyLf, b'\n') => Ok(S::SizeFirst),
            (S::BodyLf, _) => Err("a chunk without its LF"),
            (S::Trailer, b'\r') => Ok(S::TrailerLf),
            (S::Trailer, _) => Ok(S::Trailer),
            (S::TrailerLf, b'\n') => Ok(S::EndCr),
            (S::TrailerLf, _) => Err("a trailer without its LF"),
            (S::EndCr, b'\r') => Ok(S::EndLf),
            (S::EndCr, _) => Ok(S::Trailer),
            (S::EndLf, b'\n') => Ok(S::End),
            (S::EndLf, _) => Err("a chunked body without its last LF"),
            // Body and End are handled before a byte is taken.
            (S::Body | S::End, _) => Ok(self.state),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &[u8], piece: usize) -> (usize, Step) {
        let mut chunked = Chunked::default();
        let mut at = 0;
        for part in input.chunks(piece) {
            let (used, step) = chunked.advance(part);
            at += used;
            if step != Step::More {
                return (at, step);
            }
        }
        (at, Step::More)
    }

    #[test]
    fn a_body_ends_after_its_last_chunk_and_trailers_whatever_the_pieces() {
        let body = b"4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\nX-Trailer: 1\r\n\r\nGET /next";
        let end = body.len() - b"GET /next".len();
        for piece in [1, 2, 3, 7, body.len()] {
            assert_eq!(read_all(body, piece), (end, Step::End), "pieces of {piece}");
        }
        assert_eq!(read_all(b"0\r\n\r\n", 1), (5, Step::End));
        assert_eq!(read_all(b"A\r\n0123", 2), (7, Step::More));
    }

    #[test]
    fn what_actix_refuses_is_malformed() {
        for bad in [
            &b"x\r\n"[..],
            b"4\nWiki",
            b"4\r\nWikipedia\r\n",
            b"4 5\r\n",
            b"4;a\x01\r\n",
            b"ffffffffffffffffff\r\n",
            b"0\r\n\r\r",
        ] {
            assert!(
                matches!(read_all(bad, 1).1, Step::Malformed(_)),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
