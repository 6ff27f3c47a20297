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
