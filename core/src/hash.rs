//! A stable content hash of a module's files, so a save can tell it is being replayed
//! against different rules or data. FNV-1a 64: small, fixed forever, no dependency.

use std::path::{Path, PathBuf};

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0100_0000_01b3;

#[derive(Clone, Copy, Debug)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(OFFSET)
    }
}

impl Fnv {
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(PRIME);
        }
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}

/// Hashes every `.xml` and `.luau` file under each folder (sorted by relative path,
/// which is hashed too), except the module's own `tests/` (`muster test`'s files: they
/// change no game, so a save stays good when a test is added). Unreadable files count
/// as empty: loading reports them anyway.
pub fn module_hash(dirs: &[PathBuf]) -> u64 {
    let mut h = Fnv::default();
    for dir in dirs {
        let mut files = Vec::new();
        collect(dir, dir, &mut files, 0);
        files.sort();
        for rel in files {
            h.write(rel.as_bytes());
            h.write(&[0]);
            h.write(&std::fs::read(dir.join(&rel)).unwrap_or_default());
            h.write(&[0]);
        }
    }
    h.finish()
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<String>, depth: usize) {
    if depth > 16 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            // A module's tests, at its top level only: a `tests` folder deeper down
            // (say, of rule scripts) is part of the game.
            if depth == 0 && e.file_name() == "tests" {
                continue;
            }
            collect(root, &path, out, depth + 1);
        } else if path.extension().is_some_and(|x| x == "xml" || x == "luau")
            && let Ok(rel) = path.strip_prefix(root)
        {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module's `tests/` folder is not part of its hash; the rest is.
    #[test]
    fn tests_do_not_change_the_hash() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().to_path_buf();
        std::fs::write(root.join("map.xml"), "<map/>").expect("write");
        let before = module_hash(std::slice::from_ref(&root));
        std::fs::create_dir(root.join("tests")).expect("mkdir");
        std::fs::write(root.join("tests/a.luau"), "-- a test").expect("write");
        assert_eq!(module_hash(std::slice::from_ref(&root)), before);
        std::fs::create_dir(root.join("rules")).expect("mkdir");
        std::fs::write(root.join("rules/init.luau"), "-- a rule").expect("write");
        assert_ne!(module_hash(std::slice::from_ref(&root)), before);
    }

    #[test]
    fn fnv1a_reference_values() {
        let mut h = Fnv::default();
        h.write(b"");
        assert_eq!(h.finish(), 0xcbf2_9ce4_8422_2325);
        let mut h = Fnv::default();
        h.write(b"a");
        assert_eq!(h.finish(), 0xaf63_dc4c_8601_ec8c);
        let mut h = Fnv::default();
        h.write(b"foobar");
        assert_eq!(h.finish(), 0x8594_4171_f739_67e8);
    }
}
