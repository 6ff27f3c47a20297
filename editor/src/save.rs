//! Writing a file atomically: a temporary file beside it, flushed, then renamed over it,
//! so a crash or a full disk never leaves half a map behind.

use std::io::Write as _;
use std::path::Path;

/// Writes `text` to `path` atomically. A file replaced keeps its permissions (the
/// temporary file is created owner-only, 0600, which a rename would otherwise leave on a
/// module file others read); a new one gets a new file's usual ones.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    let permissions = match std::fs::metadata(path) {
        Ok(m) => Some(m.permissions()),
        Err(_) => usual_permissions(),
    };
    if let Some(p) = permissions {
        tmp.as_file().set_permissions(p)?;
    }
    tmp.write_all(text.as_bytes())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A new file's permissions as `File::create` would make them (0666 less the umask):
/// those of a file created and removed beside nothing, read off the system temp folder.
fn usual_permissions() -> Option<std::fs::Permissions> {
    let probe = tempfile::Builder::new().tempfile().ok()?;
    let path = probe.path().to_path_buf();
    drop(probe);
    let file = std::fs::File::create(&path).ok()?;
    let permissions = file.metadata().ok()?.permissions();
    let _ = std::fs::remove_file(&path);
    Some(permissions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("map.xml");
        std::fs::write(&path, "old").unwrap();
        write_atomic(&path, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(files.len(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_permissions_and_a_new_one_is_not_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("map.xml");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_atomic(&path, "new").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o644);
        let fresh = dir.path().join("new.xml");
        write_atomic(&fresh, "x").unwrap();
        let made = dir.path().join("made.xml");
        std::fs::write(&made, "x").unwrap();
        assert_eq!(mode(&fresh), mode(&made));
    }

    #[test]
    fn a_missing_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nope").join("map.xml");
        assert!(write_atomic(&path, "x").is_err());
    }
}
