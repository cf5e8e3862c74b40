//! A `jsonb` column read and written straight from and to a domain type with serde, as
//! [`Elements`](super::elements::Elements) does for custom elements: no `serde_json::Value`
//! in between.

use std::io::Write;

use diesel::deserialize::{self, FromSql, FromSqlRow};
use diesel::expression::AsExpression;
use diesel::pg::{Pg, PgValue};
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::Jsonb;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The only binary `jsonb` format PostgreSQL has defined so far.
const JSONB_VERSION: u8 = 1;

/// A value stored as `jsonb`.
#[derive(Debug, Clone, PartialEq, AsExpression, FromSqlRow)]
#[diesel(sql_type = Jsonb)]
pub(crate) struct Json<T: std::fmt::Debug + 'static>(pub T);

impl<T: DeserializeOwned + std::fmt::Debug> FromSql<Jsonb, Pg> for Json<T> {
    fn from_sql(value: PgValue<'_>) -> deserialize::Result<Self> {
        match value.as_bytes().split_first() {
            // Checked as UTF-8 once, whole: read from a byte slice, serde_json checks every
            // string again on its own (5 % of a list of tasks' instructions).
            Some((&JSONB_VERSION, json)) => {
                Ok(Self(serde_json::from_str(std::str::from_utf8(json)?)?))
            }
            _ => Err("unsupported jsonb format".into()),
        }
    }
}

impl<T: Serialize + std::fmt::Debug> ToSql<Jsonb, Pg> for Json<T> {
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
        out.write_all(&[JSONB_VERSION])?;
        serde_json::to_writer(out, &self.0)?;
        Ok(IsNull::No)
    }
}

/// JSON already written as text (by serde, from a domain type), stored as `jsonb`: bound as it
/// is, where a `serde_json::Value` would be built as a tree first and then written out.
#[derive(Debug, Clone, PartialEq, AsExpression)]
#[diesel(sql_type = Jsonb)]
pub(crate) struct JsonText(pub String);

impl JsonText {
    /// `value` written as JSON.
    pub(crate) fn of(value: &impl Serialize) -> serde_json::Result<Self> {
        serde_json::to_string(value).map(Self)
    }
}

impl ToSql<Jsonb, Pg> for JsonText {
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
        out.write_all(&[JSONB_VERSION])?;
        out.write_all(self.0.as_bytes())?;
        Ok(IsNull::No)
    }
}
