//! A section colour: `#RRGGBB`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::ValidationError;

/// A hex colour of the form `#RRGGBB`, kept as written.
///
/// ```
/// use procflow_domain::values::Color;
///
/// assert_eq!("#EC4899".parse::<Color>().unwrap().as_str(), "#EC4899");
/// assert!("pink".parse::<Color>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Color(String);

impl Color {
    /// The colour as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Color {
    fn is_valid(text: &str) -> bool {
        text.len() == 7 && text.starts_with('#') && text[1..].bytes().all(|b| b.is_ascii_hexdigit())
    }

    fn invalid(text: &str) -> ValidationError {
        ValidationError::field(
            "color",
            format!(
                "{} is not a colour of the form #RRGGBB",
                crate::quote::quote(text)
            ),
        )
    }
}

impl FromStr for Color {
    type Err = ValidationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if Self::is_valid(text) {
            Ok(Self(text.to_owned()))
        } else {
            Err(Self::invalid(text))
        }
    }
}

/// Keeps the text it is given: a colour read from a row or a body is not copied again.
///
/// ```
/// use procflow_domain::values::Color;
///
/// assert_eq!(Color::try_from(String::from("#ec4899")).unwrap().as_str(), "#ec4899");
/// assert!(Color::try_from(String::from("#EC489")).is_err());
/// ```
impl TryFrom<String> for Color {
    type Error = ValidationError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        if Self::is_valid(&text) {
            Ok(Self(text))
        } else {
            Err(Self::invalid(&text))
        }
    }
}

impl From<Color> for String {
    fn from(color: Color) -> Self {
        color.0
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_six_hex_digits_after_a_hash_make_a_colour() {
        for good in ["#000000", "#ec4899", "#AbCdEf"] {
            assert!(good.parse::<Color>().is_ok(), "{good}");
            assert_eq!(Color::try_from(good.to_owned()).unwrap().as_str(), good);
        }
        for bad in [
            "", "#", "EC4899", "#EC489", "#EC48999", "#GG0000", "#ec 899", "#é00000",
        ] {
            assert!(bad.parse::<Color>().is_err(), "{bad}");
            assert_eq!(
                Color::try_from(bad.to_owned()),
                bad.parse::<Color>(),
                "the same refusal both ways: {bad}"
            );
        }
    }
}
