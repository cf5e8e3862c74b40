//! An id as a JSON string, from a table of each byte's two hex digits.
//!
//! `uuid`'s own hyphenated writer looks up each of the 32 nibbles; here each of the 16 bytes is
//! one lookup of its two digits, into a buffer that is copied into the answer once. A page of
//! 50 tasks writes 250 ids (`docs/performance.md`, "Rows read column by column; ids and moments
//! written from tables").

use uuid::Uuid;

/// Each byte's two lower-case hex digits.
const DIGITS: [[u8; 2]; 256] = {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut table = [[0; 2]; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = [HEX[byte >> 4], HEX[byte & 0xf]];
        byte += 1;
    }
    table
};

/// Where each of the id's bytes goes in `"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"`.
const AT: [usize; 16] = [1, 3, 5, 7, 10, 12, 15, 17, 20, 22, 25, 27, 29, 31, 33, 35];

/// Appends `id` as `Uuid`'s `Serialize` writes it: quoted, hyphenated, lower case.
pub(super) fn write_id(out: &mut Vec<u8>, id: Uuid) {
    // Every place but the quotes' and the hyphens' is written below.
    let mut quoted = [b'-'; 38];
    quoted[0] = b'"';
    quoted[37] = b'"';
    for (byte, at) in id.as_bytes().iter().zip(AT) {
        quoted[at..at + 2].copy_from_slice(&DIGITS[usize::from(*byte)]);
    }
    out.extend_from_slice(&quoted);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn written(id: Uuid) -> String {
        let mut out = Vec::new();
        write_id(&mut out, id);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn writes_what_serde_writes_for_the_edges() {
        for id in [
            Uuid::nil(),
            Uuid::max(),
            Uuid::from_u128(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210),
        ] {
            assert_eq!(written(id), serde_json::to_string(&id).unwrap());
        }
    }

    proptest! {
        #[test]
        fn writes_what_serde_writes(bits: u128) {
            let id = Uuid::from_u128(bits);
            prop_assert_eq!(written(id), serde_json::to_string(&id).unwrap());
        }
    }
}
