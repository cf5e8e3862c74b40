//! Each form of the storage URL, and each refusal with its reason.
#![allow(clippy::unwrap_used, clippy::panic, reason = "tests fail loudly")]

use std::path::PathBuf;

use super::{StorageUrl, open};
use crate::s3::S3Settings;

fn refusal(text: &str) -> String {
    match StorageUrl::parse(text) {
        Ok(parsed) => panic!("{text} was read as {parsed:?}"),
        Err(error) => error.to_string(),
    }
}

fn s3(bucket: &str, endpoint: Option<&str>, region: Option<&str>) -> StorageUrl {
    StorageUrl::S3(S3Settings {
        bucket: bucket.into(),
        endpoint: endpoint.map(Into::into),
        region: region.map(Into::into),
        credentials: None,
    })
}

#[test]
fn a_file_url_names_an_absolute_directory() {
    assert_eq!(
        StorageUrl::parse("file:///var/lib/procflow/files").unwrap(),
        StorageUrl::Local(PathBuf::from("/var/lib/procflow/files"))
    );
    assert_eq!(
        "FILE:///srv/my%20files".parse::<StorageUrl>().unwrap(),
        StorageUrl::Local(PathBuf::from("/srv/my files"))
    );
}

#[test]
fn an_s3_url_names_a_bucket_its_endpoint_and_region() {
    assert_eq!(
        StorageUrl::parse("s3://procflow-files?endpoint=http://127.0.0.1:9000&region=us-east-1")
            .unwrap(),
        s3(
            "procflow-files",
            Some("http://127.0.0.1:9000"),
            Some("us-east-1")
        )
    );
    assert_eq!(
        StorageUrl::parse("s3://files.example-1/").unwrap(),
        s3("files.example-1", None, None)
    );
    // Percent-encoded parameters are decoded; a trailing slash of the endpoint is dropped.
    assert_eq!(
        StorageUrl::parse("s3://abc?region=eu-west-3&endpoint=https%3A%2F%2Fs3.example.com%2F")
            .unwrap(),
        s3("abc", Some("https://s3.example.com"), Some("eu-west-3"))
    );
}

#[test]
fn what_is_not_a_url_or_another_scheme_is_refused_with_the_forms() {
    for text in ["", "/var/files", "files", "bucket?region=x"] {
        let message = refusal(text);
        assert!(message.contains("is not a URL"), "{text}: {message}");
        assert!(message.contains("file:///absolute/path"), "{message}");
    }
    for text in ["http://host/files", "gs://bucket", "s3a://bucket"] {
        let message = refusal(text);
        assert!(message.contains("scheme"), "{text}: {message}");
        assert!(message.contains("s3://bucket?"), "{message}");
    }
}

#[test]
fn a_file_url_must_be_an_absolute_local_path_without_parameters() {
    for text in [
        "file:data/files",
        "file:/data/files",
        "file://host/data",
        "file://localhost/data",
    ] {
        assert!(
            refusal(text).contains("absolute path on this machine"),
            "{text}"
        );
    }
    assert!(refusal("file:///data?x=1").contains("no parameters"));
    assert!(refusal("file:///data#x").contains("no parameters"));
}

#[test]
fn an_s3_url_refuses_credentials_and_says_where_they_go() {
    for text in ["s3://key:secret@bucket", "s3://key@bucket"] {
        let message = refusal(text);
        assert!(message.contains("AWS_ACCESS_KEY_ID"), "{message}");
        assert!(
            !message.contains("secret@"),
            "the secret is echoed: {message}"
        );
    }
    let message = refusal("s3://abc?endpoint=http://key:secret@127.0.0.1:9000");
    assert!(message.contains("endpoint with credentials"), "{message}");
    assert!(!message.contains("secret@"), "{message}");
}

#[test]
fn an_s3_url_needs_a_well_formed_bucket_name() {
    assert!(refusal("s3://").contains("names no bucket"));
    assert!(refusal("s3:///path").contains("names no bucket"));
    for name in ["ab", "My-Bucket", "a_b_c", "-abc", "abc-", &"a".repeat(64)] {
        let message = refusal(&format!("s3://{name}"));
        assert!(
            message.contains("3 to 63 lower-case letters"),
            "{name}: {message}"
        );
    }
}

#[test]
fn an_s3_url_takes_no_port_path_or_fragment() {
    assert!(refusal("s3://abc:9000").contains("endpoint=http://host:port"));
    assert!(refusal("s3://abc/prefix").contains("path after the bucket"));
    assert!(refusal("s3://abc#x").contains("fragment"));
}

#[test]
fn an_s3_url_reads_only_endpoint_and_region_once_each_and_not_empty() {
    assert!(refusal("s3://abc?endpiont=http://h").contains("\"endpiont\""));
    assert!(refusal("s3://abc?allow_http=true").contains("only endpoint and region"));
    assert!(refusal("s3://abc?region=a&region=b").contains("region twice"));
    assert!(refusal("s3://abc?endpoint=").contains("empty endpoint"));
    assert!(refusal("s3://abc?region").contains("empty region"));
    assert!(refusal("s3://abc?region=us%20east").contains("letters, digits and hyphens"));
}

#[test]
fn an_s3_endpoint_is_an_http_base_url() {
    for endpoint in ["127.0.0.1:9000", "ftp://host", "localhost", "http%3A%2F%2F"] {
        let message = refusal(&format!("s3://abc?endpoint={endpoint}"));
        assert!(
            message.contains("not an http:// or https:// URL"),
            "{endpoint}: {message}"
        );
    }
    let message = refusal("s3://abc?endpoint=http%3A%2F%2Fhost%2F%3Fa%3D1");
    assert!(message.contains("query or a fragment"), "{message}");
}

#[test]
fn open_makes_a_missing_local_directory_and_reports_a_bad_url() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("made/here");
    open(&format!("file://{}", root.display())).unwrap();
    assert!(root.is_dir());
    let error = open("s3://x").err().unwrap();
    assert!(matches!(error, super::OpenError::Url(_)), "{error:?}");
    // A directory that cannot be made is the store's failure, not the URL's.
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"").unwrap();
    let error = open(&format!("file://{}/below", file.display()))
        .err()
        .unwrap();
    assert!(matches!(error, super::OpenError::Store(_)), "{error:?}");
}

#[test]
fn a_storage_url_shows_itself_canonically_and_reads_back() {
    for (text, shown) in [
        (
            "file:///var/lib/procflow/files",
            "file:///var/lib/procflow/files",
        ),
        ("file:///srv/my%20files", "file:///srv/my%20files"),
        ("s3://abc", "s3://abc"),
        (
            "s3://abc?region=eu-west-3&endpoint=http://127.0.0.1:9000/",
            "s3://abc?endpoint=http%3A%2F%2F127.0.0.1%3A9000&region=eu-west-3",
        ),
    ] {
        let parsed = StorageUrl::parse(text).unwrap();
        assert_eq!(parsed.to_string(), shown);
        assert_eq!(StorageUrl::parse(shown).unwrap(), parsed);
    }
}
