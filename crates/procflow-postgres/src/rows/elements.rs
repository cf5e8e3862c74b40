//! A task's custom elements as a `jsonb` column, read and written straight from and to the
//! domain's type.
//!
//! Going through `serde_json::Value` (diesel's own `jsonb` mapping) built a tree of maps and
//! strings for every element only to convert it again: on a list of 50 tasks that was a quarter
//! of the request's CPU time. PostgreSQL's binary `jsonb` format is a version byte (1) followed
//! by the JSON text, so serde reads and writes it in place.

use std::io::Write;

use diesel::deserialize::{self, FromSql, FromSqlRow};
use diesel::expression::AsExpression;
use diesel::pg::{Pg, PgValue};
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::Jsonb;
use procflow_domain::element::{CustomElement, StoredElements};

/// The only binary `jsonb` format PostgreSQL has defined so far.
const JSONB_VERSION: u8 = 1;

/// The custom elements of a template task or a run task, as stored.
#[derive(Debug, Clone, PartialEq, AsExpression, FromSqlRow)]
#[diesel(sql_type = Jsonb)]
pub(crate) struct Elements(pub Vec<CustomElement>);

/// The custom elements of a run task as a listing reads them: their JSON text, not parsed.
#[derive(Debug, Clone, PartialEq, FromSqlRow)]
pub(crate) struct ElementsText(pub StoredElements);

/// The custom elements of a run task where a decision needs none of them (a comment's, an
/// attachment's): the column's bytes are left unread. The statement still selects the column,
/// so that its text stays that of the task's other reads, and of the bench floor's script.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromSqlRow)]
pub(crate) struct ElementsUnread;

/// What a run task's row gives as its elements, for each form of
/// [`RunTaskRow`](super::run::RunTaskRow).
pub(crate) trait TaskElements {
    /// The domain's form.
    type Domain;

    fn into_domain(self) -> Self::Domain;
}

impl TaskElements for Elements {
    type Domain = Vec<CustomElement>;

    fn into_domain(self) -> Self::Domain {
        self.0
    }
}

impl TaskElements for ElementsText {
    type Domain = StoredElements;

    fn into_domain(self) -> Self::Domain {
        self.0
    }
}

impl TaskElements for ElementsUnread {
    type Domain = ();

    fn into_domain(self) -> Self::Domain {}
}

/// The JSON text of a `jsonb` value, checked as UTF-8 once, whole: read from a byte slice,
/// serde_json checks every string again on its own (5 % of a list of tasks' instructions).
fn json_text<'a>(value: &PgValue<'a>) -> deserialize::Result<&'a str> {
    match value.as_bytes().split_first() {
        Some((&JSONB_VERSION, json)) => Ok(std::str::from_utf8(json)?),
        _ => Err("custom elements: unsupported jsonb format".into()),
    }
}

impl FromSql<Jsonb, Pg> for Elements {
    fn from_sql(value: PgValue<'_>) -> deserialize::Result<Self> {
        Ok(Self(serde_json::from_str(json_text(&value)?)?))
    }
}

impl FromSql<Jsonb, Pg> for ElementsText {
    fn from_sql(value: PgValue<'_>) -> deserialize::Result<Self> {
        Ok(Self(StoredElements::from_json(
            json_text(&value)?.to_owned(),
        )))
    }
}

impl FromSql<Jsonb, Pg> for ElementsUnread {
    fn from_sql(_: PgValue<'_>) -> deserialize::Result<Self> {
        Ok(Self)
    }
}

impl ToSql<Jsonb, Pg> for Elements {
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
        out.write_all(&[JSONB_VERSION])?;
        serde_json::to_writer(out, &self.0)?;
        Ok(IsNull::No)
    }
}
