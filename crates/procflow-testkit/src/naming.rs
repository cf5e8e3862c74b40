//! Names the kit gives databases and locks, and the stable hash behind them.

use std::sync::atomic::{AtomicU64, Ordering};

/// Prefix of every test database; the sweep recognises leftovers by it.
pub(crate) const TEST_DB_PREFIX: &str = "procflow_test_";

/// Longest part of a template key kept in a template database's name.
const KEY_CHARS_IN_NAME: usize = 24;

/// 64-bit FNV-1a: stable across Rust versions and machines (unlike `DefaultHasher`).
pub(crate) fn fnv1a(bytes: impl IntoIterator<Item = u8>, seed: Option<u64>) -> u64 {
    bytes
        .into_iter()
        .fold(seed.unwrap_or(0xcbf2_9ce4_8422_2325), |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        })
}

/// `procflow_tpl_<key>_<hash>`: the key made identifier-safe and short, and a hash of the
/// whole key so that keys that sanitise alike still get different templates.
pub(crate) fn template_name(key: &str) -> String {
    let readable: String = key
        .chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9') => c,
            _ => '_',
        })
        .take(KEY_CHARS_IN_NAME)
        .collect();
    format!("procflow_tpl_{readable}_{:016x}", fnv1a(key.bytes(), None))
}

/// The advisory-lock id guarding the creation of one template database on a server.
pub(crate) fn template_lock_id(template: &str) -> i64 {
    let hash = fnv1a(
        "procflow-testkit template ".bytes().chain(template.bytes()),
        None,
    );
    i64::from_ne_bytes(hash.to_ne_bytes())
}

/// A new `procflow_test_<pid>_<counter>` name, never the same twice in this process.
pub(crate) fn next_test_db_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{TEST_DB_PREFIX}{}_{n}", std::process::id())
}

/// The pid in a test database's name, if the name is one of ours.
pub(crate) fn pid_of_test_db(name: &str) -> Option<u32> {
    let (pid, counter) = name.strip_prefix(TEST_DB_PREFIX)?.split_once('_')?;
    counter.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// `name` as a quoted SQL identifier.
pub(crate) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_names_are_identifier_safe_short_and_distinct() {
        let a = template_name("Procflow Store/v1");
        let b = template_name("procflow_store_v1");
        assert!(a.starts_with("procflow_tpl_procflow_store_v1_"), "{a}");
        assert_ne!(a, b);
        let long = template_name(&"x".repeat(500));
        assert!(long.len() <= 63, "{long}");
        assert!(
            long.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        );
    }

    #[test]
    fn the_hash_is_stable() {
        assert_eq!(fnv1a(*b"", None), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(*b"a", None), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn test_database_names_carry_the_pid_and_never_repeat() {
        let first = next_test_db_name();
        let second = next_test_db_name();
        assert_ne!(first, second);
        assert_eq!(pid_of_test_db(&first), Some(std::process::id()));
    }

    #[test]
    fn only_our_names_yield_a_pid() {
        assert_eq!(pid_of_test_db("procflow_test_42_7"), Some(42));
        assert_eq!(pid_of_test_db("procflow_test_42"), None);
        assert_eq!(pid_of_test_db("procflow_test_x_7"), None);
        assert_eq!(pid_of_test_db("procflow_tpl_a_1"), None);
        assert_eq!(pid_of_test_db("postgres"), None);
    }

    #[test]
    fn identifiers_are_quoted() {
        assert_eq!(quote_ident("a\"b"), "\"a\"\"b\"");
    }
}
