//! Case-insensitive name lookup with "did you mean" for misspellings.

use rustc_hash::FxHashMap;

use crate::suggest;

/// Maps names (and aliases) to indices; names are compared without case.
#[derive(Clone, Debug, Default)]
pub struct NameIndex {
    map: FxHashMap<String, usize>,
    names: Vec<String>,
}

impl NameIndex {
    /// Adds a name; returns the index already holding it on a clash.
    pub fn insert(&mut self, name: &str, index: usize) -> Result<(), usize> {
        let key = name.trim().to_lowercase();
        if let Some(&existing) = self.map.get(&key) {
            return Err(existing);
        }
        self.map.insert(key, index);
        self.names.push(name.to_string());
        Ok(())
    }

    pub fn get(&self, name: &str) -> Option<usize> {
        if is_key(name) {
            // Already as the map keeps it: looked up without a lowered copy (the rules
            // name a resource or seat in every offer they list, always in lower case).
            return self.map.get(name).copied();
        }
        self.map.get(&name.trim().to_lowercase()).copied()
    }

    /// `did you mean 'X'?` for a name that is not here, or else the names sharing its
    /// start.
    pub fn hint(&self, name: &str) -> Option<String> {
        suggest::hint(name, self.names.iter().map(String::as_str))
    }

    /// The first name given for an index.
    pub fn name_of(&self, index: usize) -> Option<&str> {
        self.names
            .iter()
            .find(|n| self.map.get(&n.to_lowercase()) == Some(&index))
            .map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }
}

/// Whether `name` is its own key: ASCII with no capital, no white space at either end
/// (what `trim` and `to_lowercase` would leave as it is).
fn is_key(name: &str) -> bool {
    let bytes = name.as_bytes();
    let edge = |b: Option<&u8>| b.is_some_and(|&b| char::from(b).is_whitespace());
    name.is_ascii()
        && !bytes.iter().any(u8::is_ascii_uppercase)
        && !edge(bytes.first())
        && !edge(bytes.last())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_found_whatever_its_case_and_padding() {
        let mut names = NameIndex::default();
        names.insert("Marches", 0).unwrap();
        names.insert("Ärmel", 1).unwrap();
        names.insert("recruitment-points", 2).unwrap();
        for (asked, found) in [
            ("marches", Some(0)),
            ("MARCHES", Some(0)),
            (" marches", Some(0)),
            ("marches\x0b", Some(0)),
            ("\tmarches\n", Some(0)),
            ("ärmel", Some(1)),
            ("ÄRMEL", Some(1)),
            ("recruitment-points", Some(2)),
            ("recruitment points", None),
            ("", None),
            (" ", None),
        ] {
            assert_eq!(names.get(asked), found, "{asked:?}");
            assert_eq!(
                names.get(asked),
                names.map.get(&asked.trim().to_lowercase()).copied(),
                "{asked:?}"
            );
        }
    }
}
