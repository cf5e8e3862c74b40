//! The webhook URL grammar and its OpenAPI pattern accept exactly the same text: a schema
//! fuzzer that sends what the pattern allows is never refused, and what it refuses never passes.

#![expect(clippy::unwrap_used, reason = "test set-up")]

use procflow_domain::webhook::WebhookUrl;
use proptest::prelude::*;

fn pattern() -> regex::Regex {
    regex::Regex::new(WebhookUrl::PATTERN).unwrap()
}

fn accepted(text: &str) -> bool {
    text.parse::<WebhookUrl>().is_ok()
}

/// Text built from the pieces URLs are made of, so that near misses are common.
fn near_urls() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("http://".to_owned()),
        Just("https://".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("::".to_owned()),
        Just(":".to_owned()),
        Just(".".to_owned()),
        Just("/".to_owned()),
        Just("?".to_owned()),
        Just("#".to_owned()),
        Just("@".to_owned()),
        Just(" ".to_owned()),
        Just("-".to_owned()),
        "[0-9]{1,5}",
        "[a-fA-F]{1,4}",
        "[a-z]{1,6}",
        "[\\x00-\\x7f]",
        "\\PC",
    ];
    (
        prop_oneof![Just("http://"), Just("https://"), Just("")],
        proptest::collection::vec(piece, 0..10),
    )
        .prop_map(|(scheme, pieces)| format!("{scheme}{}", pieces.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn what_the_pattern_generates_is_accepted(
        url in proptest::string::string_regex(
            WebhookUrl::PATTERN.trim_start_matches('^').trim_end_matches('$')
        ).unwrap()
    ) {
        prop_assume!(url.chars().count() <= 2048);
        prop_assert!(accepted(&url), "{url:?} matches the pattern but is refused");
    }

    #[test]
    fn the_pattern_and_the_grammar_agree_on_near_misses(url in near_urls()) {
        prop_assert_eq!(pattern().is_match(&url), accepted(&url), "{:?}", url);
    }
}
