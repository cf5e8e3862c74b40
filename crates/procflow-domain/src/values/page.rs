//! Keyset pagination: page size, cursor and a page of results.

use std::fmt;
use std::str::FromStr;

use uuid::Uuid;

use crate::error::ValidationError;

/// A page size: 1 to 100, 20 when not given.
///
/// ```
/// use procflow_domain::values::Limit;
///
/// assert_eq!(Limit::default().get(), 20);
/// assert_eq!(Limit::new(100).unwrap().get(), 100);
/// assert!(Limit::new(0).is_err());
/// assert!(Limit::new(101).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit(u8);

impl Limit {
    /// The smallest page.
    pub const MIN: u8 = 1;
    /// The largest page.
    pub const MAX: u8 = 100;
    /// The page size when none is asked for.
    pub const DEFAULT: u8 = 20;

    /// A limit, if it lies in `1..=100`.
    ///
    /// # Errors
    /// A [`ValidationError`] naming `limit` when it lies outside the range.
    pub fn new(limit: i64) -> Result<Self, ValidationError> {
        u8::try_from(limit)
            .ok()
            .filter(|l| (Self::MIN..=Self::MAX).contains(l))
            .map(Self)
            .ok_or_else(|| {
                ValidationError::field(
                    "limit",
                    format!("must be an integer from {} to {}", Self::MIN, Self::MAX),
                )
            })
    }

    /// The largest page, [`Limit::MAX`] items.
    #[must_use]
    pub const fn largest() -> Self {
        Self(Self::MAX)
    }

    /// The size.
    #[must_use]
    pub fn get(self) -> usize {
        usize::from(self.0)
    }
}

impl Default for Limit {
    fn default() -> Self {
        Self(Self::DEFAULT)
    }
}

impl FromStr for Limit {
    type Err = ValidationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let limit = text.parse::<i64>().map_err(|_| {
            ValidationError::field(
                "limit",
                format!("must be an integer from {} to {}", Self::MIN, Self::MAX),
            )
        })?;
        Self::new(limit)
    }
}

/// The id of the last item of the previous page (`next_cursor`), passed back as `cursor`.
///
/// A cursor that is not an id is refused at parse time; one that names no item of the list
/// is refused by the store with the same message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cursor(Uuid);

impl Cursor {
    /// The cursor pointing after the item with this id.
    #[must_use]
    pub const fn after(id: Uuid) -> Self {
        Self(id)
    }

    /// The id of the item the next page starts after.
    #[must_use]
    pub const fn id(self) -> Uuid {
        self.0
    }

    /// The error for a cursor that names no item of the list.
    #[must_use]
    pub fn unknown() -> ValidationError {
        ValidationError::field(
            "cursor",
            "names no item of this list; pass the next_cursor of the previous page",
        )
    }
}

impl FromStr for Cursor {
    type Err = ValidationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        uuid::fmt::Hyphenated::from_str(text)
            .map(|h| Self(h.into_uuid()))
            .map_err(|_| Self::unknown())
    }
}

impl fmt::Display for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The most bytes a list page's body may hold (API contract 4, `docs/api.md`): a page that
/// would hold more is cut short after the last item that fits, and says so through its
/// pagination (`has_more` true, `next_cursor` that item's id). A page always holds at least one
/// item, however large, so that every list can be read to its end.
pub const MAX_PAGE_BYTES: usize = 4 * 1024 * 1024;

/// Which page of a list to read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageRequest {
    /// How many items at most.
    pub limit: Limit,
    /// Start after this item; the first page when `None`.
    pub cursor: Option<Cursor>,
}

/// One page of a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page<T> {
    /// The items, in the list's order.
    pub items: Vec<T>,
    /// The id of the last item (`None` on an empty page).
    pub next_cursor: Option<Cursor>,
    /// Whether more items follow.
    pub has_more: bool,
}

impl<T> Page<T> {
    /// Builds a page from up to `limit + 1` fetched items: the extra one only says that more follow.
    ///
    /// ```
    /// use procflow_domain::values::{Limit, Page};
    /// use uuid::Uuid;
    ///
    /// let ids: Vec<Uuid> = (0..3).map(|_| Uuid::new_v4()).collect();
    /// let page = Page::from_fetched(ids.clone(), Limit::new(2).unwrap(), |id| *id);
    /// assert_eq!(page.items, ids[..2]);
    /// assert!(page.has_more);
    /// assert_eq!(page.next_cursor.unwrap().id(), ids[1]);
    /// ```
    pub fn from_fetched(mut fetched: Vec<T>, limit: Limit, id: impl Fn(&T) -> Uuid) -> Self {
        let has_more = fetched.len() > limit.get();
        fetched.truncate(limit.get());
        let next_cursor = fetched.last().map(|last| Cursor::after(id(last)));
        Self {
            items: fetched,
            next_cursor,
            has_more,
        }
    }

    /// The same page with every item converted.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            next_cursor: self.next_cursor,
            has_more: self.has_more,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_outside_one_to_a_hundred_are_refused() {
        for bad in ["0", "101", "-1", "", "ten", "1.5", "99999999999999999999"] {
            assert!(bad.parse::<Limit>().is_err(), "{bad}");
        }
        assert_eq!("1".parse::<Limit>().unwrap().get(), 1);
        assert_eq!("100".parse::<Limit>().unwrap().get(), 100);
    }

    #[test]
    fn a_cursor_that_is_not_an_id_is_refused() {
        assert!("abc".parse::<Cursor>().is_err());
        assert!("".parse::<Cursor>().is_err());
    }

    #[test]
    fn a_short_fetch_is_the_last_page() {
        let ids = vec![Uuid::nil()];
        let page = Page::from_fetched(ids, Limit::new(2).unwrap(), |id| *id);
        assert!(!page.has_more);
        assert_eq!(page.items.len(), 1);
        let empty = Page::from_fetched(Vec::<Uuid>::new(), Limit::default(), |id| *id);
        assert_eq!(empty.next_cursor, None);
        assert!(!empty.has_more);
    }
}
