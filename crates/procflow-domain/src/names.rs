//! The one spelling of each closed set of names (statuses, roles, types, ...): the API, the
//! store's columns and the command line all read and write them through `as_str` and
//! `FromStr`, which the `named!` macro writes from one list per enum.

use std::fmt;

/// Text that names no member of a closed set of names.
///
/// ```
/// use procflow_domain::run::RunStatus;
///
/// let refused = "paused".parse::<RunStatus>().unwrap_err();
/// assert_eq!(refused.to_string(), "\"paused\" is not a run status; use active or completed");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct UnknownName {
    /// What the names are of, such as `run status`.
    pub kind: &'static str,
    /// The text refused.
    pub text: String,
    /// Every accepted name.
    pub allowed: &'static [&'static str],
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let allowed = match self.allowed {
            [] => String::new(),
            [only] => (*only).to_owned(),
            [init @ .., last] => format!("{} or {last}", init.join(", ")),
        };
        write!(f, "{:?} is not a {}; use {allowed}", self.text, self.kind)
    }
}

/// A fieldless enum whose variants each have one name, written in one list: the enum with
/// serde renames, `ALL`, `NAMES`, `as_str`, `Display` and `FromStr` (refusing with
/// [`UnknownName`]).
macro_rules! named {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident as $kind:literal {
            $($(#[$variant_meta:meta])* $variant:ident = $text:tt,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        $vis enum $name {
            $($(#[$variant_meta])* #[serde(rename = $text)] $variant,)+
        }

        impl $name {
            /// Every name, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            /// Every value, in declaration order.
            pub const ALL: [Self; Self::NAMES.len()] = [$(Self::$variant),+];

            /// The name used in the API, the store and the command line.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)+
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::names::UnknownName;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                match text {
                    $($text => Ok(Self::$variant),)+
                    _ => Err($crate::names::UnknownName {
                        kind: $kind,
                        text: text.to_owned(),
                        allowed: Self::NAMES,
                    }),
                }
            }
        }
    };
}

pub(crate) use named;

#[cfg(test)]
mod tests {
    named! {
        /// A test set.
        enum Shade as "shade" {
            /// Light.
            Light = "light",
            /// Dark.
            Dark = "dark",
            /// Grey.
            MidGrey = "mid_grey",
        }
    }

    #[test]
    fn every_name_round_trips_through_text_and_serde() {
        for shade in Shade::ALL {
            assert_eq!(shade.as_str().parse::<Shade>(), Ok(shade));
            assert_eq!(
                serde_json::to_value(shade).unwrap(),
                serde_json::json!(shade.as_str())
            );
        }
        assert_eq!(Shade::NAMES, ["light", "dark", "mid_grey"]);
    }

    #[test]
    fn an_unknown_name_lists_the_allowed_ones() {
        let refused = "Light".parse::<Shade>().unwrap_err();
        assert_eq!(
            refused.to_string(),
            "\"Light\" is not a shade; use light, dark or mid_grey"
        );
    }
}
