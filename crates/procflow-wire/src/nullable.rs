//! Fields where absent and `null` mean different things (`assignee: null` unassigns, an
//! absent `assignee` leaves it; `file_url` is absent on elements that are no file elements):
//! `Option<Option<T>>`, read with [`present`] and written with `skip_serializing_if =
//! "Option::is_none"`.

use serde::{Deserialize, Deserializer};

/// Reads a present field: `null` → `Some(None)`, a value → `Some(Some(v))`. With
/// `#[serde(default)]` an absent field stays `None`.
///
/// # Errors
/// Those of `T`'s deserializer.
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}
