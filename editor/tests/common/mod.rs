//! Helpers shared by the editor's tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The AHD module of the repository.
pub fn ahd() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/ahd")
}

/// A fresh copy of the AHD module in a temporary folder (kept alive by the guard).
pub fn ahd_copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("ahd");
    copy_dir(&ahd(), &dir);
    (tmp, dir)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("dir entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}
