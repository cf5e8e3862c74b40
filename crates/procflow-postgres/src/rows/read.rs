//! Rows read column by column, straight into their structs.
//!
//! diesel's derived `Queryable` reads a row through a tuple of its columns: for each column a
//! partial row over it, its value in a `Result` moved into the tuple, then the tuple moved into
//! the struct. For a page of 50 run tasks (23 columns each) that machinery took 85,000 of the
//! request's 748,000 instructions; reading each column by its index, in place, the same rows
//! take 30,000 (`docs/performance.md`, "Rows read column by column; ids and moments written
//! from tables"). The rows that listings read in numbers (run tasks, runs, run sections) are
//! read so.
//!
//! Each such row declares its fields' SQL types once, in the selection's order ([`row_reader!`]
//! makes both the tuple of SQL types and the reader of them), written out rather than projected
//! from the selection (coherence cannot tell a projection apart from the single values diesel
//! reads itself), with a constant beside it that compiles only while the tuple is the
//! selection's type, and a test comparing the columns the reader names with the selection's
//! SQL. What the columns hold is proved by the store's tests, which read every kind of row
//! back.

use std::error::Error;
use std::fmt;

use diesel::deserialize::{self, FromSql};
use diesel::pg::Pg;
use diesel::result::{UnexpectedEndOfRow, UnexpectedNullError};
use diesel::row::{Field, Row};

/// A row as diesel reads it for a `Queryable` whose `Row` is this: the row itself, built by
/// [`read_in_place!`].
pub(crate) struct InPlace<T>(pub T);

/// `Queryable<$columns, Pg>` for `$row`, read by `$read` (a function of a diesel row to
/// `deserialize::Result<$row>`). One impl per row type: a generic one would overlap diesel's
/// own for single values.
macro_rules! read_in_place {
    ($row:ty, $columns:ty, $read:expr) => {
        impl diesel::deserialize::Queryable<$columns, diesel::pg::Pg> for $row {
            type Row = $crate::rows::read::InPlace<$row>;

            fn build(row: Self::Row) -> diesel::deserialize::Result<Self> {
                Ok(row.0)
            }
        }

        impl diesel::deserialize::FromStaticSqlRow<$columns, diesel::pg::Pg>
            for $crate::rows::read::InPlace<$row>
        {
            fn build_from_row<'a>(
                row: &impl diesel::row::Row<'a, diesel::pg::Pg>,
            ) -> diesel::deserialize::Result<Self> {
                $read(row).map(Self)
            }
        }
    };
}
pub(crate) use read_in_place;

/// A row's columns and its reader, from each field's SQL type written once, in the
/// selection's order: `$columns`, the tuple of the SQL types; `$reader`, which reads the
/// fields from the columns of the row from `*at` on, in that order, and moves `at` past them;
/// and, in tests, `$names`, the columns as `$table.$field`, which is also how a column that
/// cannot be read names itself (so each field must be named after its column). Being written
/// once, the tuple and the reader cannot disagree, and the indexes are counted rather than
/// written; a test compares the names with the selection's SQL, which catches two fields of
/// the same type out of order.
macro_rules! row_reader {
    (
        $(#[$doc:meta])*
        $columns:ident, $names:ident,
        fn $reader:ident $(<$param:ident: $bound:path>)? -> $row:ident $(<$arg:ident>)?,
        $table:ident { $($field:ident: $sql:ty),+ $(,)? }
    ) => {
        $(#[$doc])*
        type $columns = ($($sql,)+);

        /// The columns the reader names, in the order it reads them: the tests compare them
        /// with the selection's.
        #[cfg(test)]
        const $names: &[&str] = &[$(concat!(stringify!($table), ".", stringify!($field))),+];

        // Inlined where it is called with `&mut 0`, so that the indexes are constants again.
        #[inline(always)]
        fn $reader<'a $(, $param: $bound)?>(
            row: &impl diesel::row::Row<'a, diesel::pg::Pg>,
            at: &mut usize,
        ) -> diesel::deserialize::Result<$row $(<$arg>)?> {
            // Fields are evaluated in the order written, which is the selection's.
            Ok($row {
                $($field: {
                    let value = $crate::rows::read::column::<$sql, _>(
                        row,
                        *at,
                        concat!(stringify!($table), ".", stringify!($field)),
                    )?;
                    *at += 1;
                    value
                },)+
            })
        }
    };
}
pub(crate) use row_reader;

/// The column at `index` of `row`, of SQL type `ST`; `name` (the table's and the column's)
/// tells which in an error.
#[inline(always)]
pub(crate) fn column<'a, ST, T: FromSql<ST, Pg>>(
    row: &impl Row<'a, Pg>,
    index: usize,
    name: &'static str,
) -> deserialize::Result<T> {
    let field = row.get(index).ok_or(UnexpectedEndOfRow)?;
    T::from_nullable_sql(field.value()).map_err(|error| column_error(name, error))
}

/// `error` with the column's name, but for a null in a column that allows none, which passes
/// as it is: diesel reads that error as a missing row of an outer join.
#[cold]
fn column_error(
    column: &'static str,
    error: Box<dyn Error + Send + Sync>,
) -> Box<dyn Error + Send + Sync> {
    if error.is::<UnexpectedNullError>() {
        return error;
    }
    Box::new(ColumnError { column, error })
}

/// A column that could not be read, by name.
#[derive(Debug)]
struct ColumnError {
    column: &'static str,
    error: Box<dyn Error + Send + Sync>,
}

impl fmt::Display for ColumnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.column, self.error)
    }
}

impl Error for ColumnError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&*self.error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_error_names_its_column_and_keeps_its_cause() {
        let error = column_error("run_tasks.title", "invalid UTF-8".into());
        assert_eq!(error.to_string(), "run_tasks.title: invalid UTF-8");
        assert_eq!(error.source().unwrap().to_string(), "invalid UTF-8");
    }

    #[test]
    fn a_null_in_a_column_that_allows_none_passes_unwrapped() {
        let error = column_error("runs.title", Box::new(UnexpectedNullError));
        assert!(error.is::<UnexpectedNullError>());
    }
}
