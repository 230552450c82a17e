//! Closed sets of choices with fixed lowercase names (retrievers, answerers, how evidence was
//! found): one definition gives the enum, its names, `Display`, `FromStr` and serde, so a name
//! is written once and an unknown one is refused with the list of known ones.

/// `named_enum!(pub enum Retriever("retriever") { Bm25 = "bm25", ... })`; other crates use it
/// as `lens_core::named_enum!` (they need `serde`).
#[macro_export]
macro_rules! named_enum {
    ($(#[$m:meta])* pub enum $name:ident ($what:literal) { $($(#[$vm:meta])* $v:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vm])* $v),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$v),+];
            pub fn name(self) -> &'static str {
                match self { $($name::$v => $s),+ }
            }
            pub fn names() -> Vec<&'static str> {
                Self::ALL.iter().map(|v| v.name()).collect()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::error::LensError;
            fn from_str(s: &str) -> $crate::error::Result<Self> {
                match s.trim().to_ascii_lowercase().as_str() {
                    $($s => Ok($name::$v),)+
                    _ => Err($crate::error::LensError::BadInput(format!(
                        "{} `{}` is not available in this build (available: {})", $what, s, Self::names().join(", ")
                    ))),
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    named_enum!(
        /// A test set.
        pub enum Colour("colour") { Red = "red", DarkBlue = "dark-blue" }
    );

    #[test]
    fn names_parse_print_and_refuse() {
        assert_eq!(Colour::names(), vec!["red", "dark-blue"]);
        assert_eq!("Dark-Blue".parse::<Colour>().unwrap(), Colour::DarkBlue);
        assert_eq!(Colour::Red.to_string(), "red");
        assert_eq!(serde_json::to_string(&Colour::DarkBlue).unwrap(), "\"dark-blue\"");
        let e = "green".parse::<Colour>().unwrap_err().to_string();
        assert_eq!(e, "colour `green` is not available in this build (available: red, dark-blue)");
        let e = serde_json::from_str::<Colour>("\"green\"").unwrap_err().to_string();
        assert!(e.contains("available: red, dark-blue"), "{e}");
    }
}
