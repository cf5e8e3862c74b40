//! Reading request JSON into typed values, strictly, naming the path of the field at fault.
//!
//! serde reads a struct from a JSON array of its fields in order as readily as from an object;
//! no client means `[["id", "value"]]` for `[{"id": ..., "value": ...}]`, and a schema fuzzer
//! finds such requests accepted although the API documents objects. [`read`] goes through a
//! deserializer of its own over the JSON value that reads structs from objects only, at every
//! depth. It also reads an integer from a number with no fraction written as a float
//! (`278.0`): JSON Schema's `integer` is any number with a zero fractional part, so the
//! documented integers must accept it.
//!
//! ```
//! use procflow_domain::json;
//! use serde::Deserialize;
//! use serde_json::json;
//!
//! #[derive(Deserialize)]
//! struct Write {
//!     id: String,
//! }
//! #[derive(Deserialize)]
//! struct Body {
//!     writes: Vec<Write>,
//! }
//!
//! let body: Body = json::read(&json!({"writes": [{"id": "a"}]})).unwrap();
//! assert_eq!(body.writes[0].id, "a");
//! let refused = json::read::<Body>(&json!({"writes": [["a"]]})).err().unwrap();
//! assert_eq!(
//!     refused.to_string(),
//!     "writes[0]: invalid type: sequence, expected struct Write"
//! );
//! ```

use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{self, DeserializeOwned, IntoDeserializer, Unexpected, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::Value;

use crate::error::ValidationError;

/// Reads `value` as a `T`: structs from objects only.
///
/// # Errors
/// A [`ValidationError`] naming the path of the first field at fault (such as
/// `custom_elements[2].value`), or `body` when the value as a whole is refused.
pub fn read<T: DeserializeOwned>(value: &Value) -> Result<T, ValidationError> {
    serde_path_to_error::deserialize(Strict(value)).map_err(|error| {
        let path = error.path().to_string();
        let field = if path == "." { "body".to_owned() } else { path };
        ValidationError::field(field, error.into_inner().to_string())
    })
}

/// A JSON value as a deserializer that refuses to read a struct from anything but an object.
#[derive(Clone, Copy)]
struct Strict<'a>(&'a Value);

impl Strict<'_> {
    fn unexpected(&self) -> Unexpected<'_> {
        match self.0 {
            Value::Null => Unexpected::Unit,
            Value::Bool(b) => Unexpected::Bool(*b),
            Value::Number(n) => n
                .as_f64()
                .map_or(Unexpected::Other("number"), Unexpected::Float),
            Value::String(s) => Unexpected::Str(s),
            Value::Array(_) => Unexpected::Seq,
            Value::Object(_) => Unexpected::Map,
        }
    }
}

/// The integer a float without a fraction stands for (`278.0` is 278), if it is one.
fn whole(value: &Value) -> Option<i64> {
    let float = value
        .as_f64()
        .filter(|f| value.is_f64() && f.fract() == 0.0)?;
    #[expect(
        clippy::cast_possible_truncation,
        reason = "the bounds are checked first: the float is whole and in range"
    )]
    if (-9_007_199_254_740_992.0..=9_007_199_254_740_992.0).contains(&float) {
        Some(float as i64)
    } else {
        None
    }
}

/// Integer methods that read a whole float as its integer, then go on as `deserialize_any`.
macro_rules! integers {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            match whole(self.0) {
                Some(integer) => visitor.visit_i64(integer),
                None => self.deserialize_any(visitor),
            }
        }
    )*};
}

impl<'a> IntoDeserializer<'a, serde_json::Error> for Strict<'a> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> de::Deserializer<'de> for Strict<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    // serde_json without arbitrary precision: every number is one of the three.
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => {
                visitor.visit_seq(SeqDeserializer::new(items.iter().map(Strict)))
            }
            Value::Object(map) => visitor.visit_map(MapDeserializer::new(
                map.iter().map(|(key, value)| (key.as_str(), Strict(value))),
            )),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Object(_) => self.deserialize_any(visitor),
            _ => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            // A unit variant, named by a string; other shapes are not variants of ours.
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            _ => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    integers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
    }

    forward_to_deserialize_any! {
        bool i128 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        id: String,
        #[serde(default)]
        value: Option<Value>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        Approved,
        Rejected,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        name: Option<String>,
        count: Option<i64>,
        ratio: Option<f64>,
        kind: Option<Kind>,
        #[serde(default)]
        items: Vec<Inner>,
        single: Option<Inner>,
    }

    #[test]
    fn objects_read_at_every_depth_with_every_kind_of_value() {
        let read: Outer = read(&json!({
            "name": "n", "count": -3, "ratio": 0.5, "kind": "approved",
            "items": [{"id": "a", "value": {"deep": [1, "x", null, true]}}],
            "single": {"id": "b"}
        }))
        .unwrap();
        assert_eq!(read.count, Some(-3));
        assert_eq!(read.kind, Some(Kind::Approved));
        assert_eq!(
            read.items[0].value,
            Some(json!({"deep": [1, "x", null, true]}))
        );
        assert_eq!(read.single.unwrap().id, "b");
    }

    #[test]
    fn a_struct_in_array_form_is_refused_at_any_depth_naming_its_path() {
        for (body, path) in [
            (json!(["n", 1]), "body"),
            (json!({"items": [["a", null]]}), "items[0]"),
            (json!({"single": ["b"]}), "single"),
        ] {
            let refused = read::<Outer>(&body).unwrap_err();
            let ValidationError::Field { field, message } = refused else {
                panic!("not a field error");
            };
            assert_eq!(field, path, "{body}");
            assert!(message.contains("sequence"), "{message}");
        }
    }

    #[test]
    fn an_integer_is_read_from_a_float_without_a_fraction_only() {
        let whole: Outer = read(&json!({"count": 278.0, "ratio": 2.0})).unwrap();
        assert_eq!((whole.count, whole.ratio), (Some(278), Some(2.0)));
        for refused in [json!(278.5), json!(1e300), json!("278")] {
            assert!(
                read::<Outer>(&json!({"count": refused})).is_err(),
                "{refused}"
            );
        }
    }

    #[test]
    fn type_errors_and_unknown_fields_name_the_field() {
        let refused = read::<Outer>(&json!({"count": "3"})).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "count: invalid type: string \"3\", expected i64"
        );
        let refused = read::<Outer>(&json!({"items": [{"id": "a", "x": 1}]})).unwrap_err();
        assert!(
            refused
                .to_string()
                .starts_with("items[0].x: unknown field `x`"),
            "{refused}"
        );
        let refused = read::<Outer>(&json!({"kind": "maybe"})).unwrap_err();
        assert!(
            refused
                .to_string()
                .starts_with("kind: unknown variant `maybe`"),
            "{refused}"
        );
    }
}
