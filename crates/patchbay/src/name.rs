//! Format names: the contract strings (`search-replace`, `udiff`, ...) as
//! one enum, so a name is checked once, where it enters, and everything
//! after it matches on a value instead of comparing strings.

use serde::{Deserialize, Deserializer, Serialize};

/// The name of an edit format, or `auto` (detect it). Serialises as the
/// contract string; reads one through [`std::str::FromStr`], so an unknown
/// name is an [`UnknownFormat`] wherever it enters (JSON options, a flag, a
/// binding's argument).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum FormatName {
    #[serde(rename = "search-replace")]
    SearchReplace,
    #[serde(rename = "whole")]
    Whole,
    #[serde(rename = "udiff")]
    Udiff,
    #[serde(rename = "apply-patch")]
    ApplyPatch,
    #[serde(rename = "tool-call")]
    ToolCall,
    #[serde(rename = "hashline")]
    Hashline,
    #[serde(rename = "lines")]
    Lines,
    #[serde(rename = "auto")]
    #[default]
    Auto,
}

impl FormatName {
    /// Every name, in the format registry's order, `auto` last.
    pub const ALL: [FormatName; 8] = [
        FormatName::SearchReplace,
        FormatName::Whole,
        FormatName::ApplyPatch,
        FormatName::Hashline,
        FormatName::Lines,
        FormatName::ToolCall,
        FormatName::Udiff,
        FormatName::Auto,
    ];

    /// The contract string.
    pub const fn as_str(self) -> &'static str {
        match self {
            FormatName::SearchReplace => "search-replace",
            FormatName::Whole => "whole",
            FormatName::Udiff => "udiff",
            FormatName::ApplyPatch => "apply-patch",
            FormatName::ToolCall => "tool-call",
            FormatName::Hashline => "hashline",
            FormatName::Lines => "lines",
            FormatName::Auto => "auto",
        }
    }
}

impl std::fmt::Display for FormatName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for FormatName {
    type Err = UnknownFormat;
    fn from_str(s: &str) -> Result<Self, UnknownFormat> {
        FormatName::ALL
            .into_iter()
            .find(|n| n.as_str() == s)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}

impl<'de> Deserialize<'de> for FormatName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

impl PartialEq<str> for FormatName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for FormatName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// An unknown format name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFormat(pub String);

impl std::fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = FormatName::ALL.iter().map(|n| n.as_str()).collect();
        write!(
            f,
            "unknown format {:?}; expected one of: {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownFormat {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_registry_and_the_contract_strings() {
        let listed: Vec<&str> = FormatName::ALL.iter().map(|n| n.as_str()).collect();
        assert_eq!(listed, crate::formats::names());
        for n in FormatName::ALL {
            assert_eq!(n.as_str().parse::<FormatName>(), Ok(n));
            let json = serde_json::to_string(&n).unwrap();
            assert_eq!(json, format!("\"{}\"", n.as_str()));
            assert_eq!(serde_json::from_str::<FormatName>(&json).unwrap(), n);
        }
        assert_eq!(
            "diff".parse::<FormatName>(),
            Err(UnknownFormat("diff".into()))
        );
        let err = serde_json::from_str::<FormatName>("\"diff\"").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("unknown format \"diff\"; expected one of: search-replace, "),
            "{err}"
        );
    }
}
