//! One page of one document, written `DOC#PAGE` everywhere it crosses a boundary (JSON, the log,
//! eval rows, the CLI). Pages count from 1, as PDF viewers show them. A document id may itself
//! hold `#`: the page number is what follows the last one.

use crate::error::{LensError, Result};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PageRef {
    pub doc_id: String,
    pub page: u32,
}

impl PageRef {
    pub fn new(doc_id: impl Into<String>, page: u32) -> PageRef {
        PageRef { doc_id: doc_id.into(), page }
    }
}

impl fmt::Display for PageRef {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}#{}", self.doc_id, self.page)
    }
}

impl FromStr for PageRef {
    type Err = LensError;
    fn from_str(s: &str) -> Result<PageRef> {
        let bad = || LensError::BadInput(format!("`{s}` is not a page reference (DOC#PAGE, pages from 1)"));
        let (doc, page) = s.rsplit_once('#').ok_or_else(bad)?;
        let page: u32 = page.trim().parse().map_err(|_| bad())?;
        if doc.is_empty() || page == 0 {
            return Err(bad());
        }
        Ok(PageRef::new(doc, page))
    }
}

impl Serialize for PageRef {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PageRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<PageRef, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_as_doc_hash_page() {
        let p: PageRef = "3M_2018_10K#60".parse().unwrap();
        assert_eq!(p, PageRef::new("3M_2018_10K", 60));
        assert_eq!(p.to_string(), "3M_2018_10K#60");
        assert_eq!("a#b#3".parse::<PageRef>().unwrap(), PageRef::new("a#b", 3));
        assert_eq!(serde_json::to_string(&p).unwrap(), "\"3M_2018_10K#60\"");
        assert_eq!(serde_json::from_str::<PageRef>("\"x#2\"").unwrap(), PageRef::new("x", 2));
        for bad in ["nope", "#3", "x#0", "x#", "x#-1", "x#two"] {
            let e = bad.parse::<PageRef>().unwrap_err();
            assert_eq!(e.code(), "bad_input", "{bad}");
        }
        assert!(serde_json::from_str::<PageRef>("\"nope\"").is_err());
    }
}
