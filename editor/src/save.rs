//! Writing a file atomically: a temporary file beside it, flushed, then renamed over it,
//! so a crash or a full disk never leaves half a map behind.

use std::io::Write as _;
use std::path::Path;

/// Writes `text` to `path` atomically. A file replaced keeps its permissions and a new
/// one gets a new file's usual ones (a temporary file is owner-only, 0600, which the
/// rename would otherwise leave on a module file others read).
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    // A new file: the mode `File::create` gives (0666, less the umask as the system
    // applies it), not tempfile's owner-only one.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    // A file replaced keeps its own, exactly (set, not masked by the umask).
    if let Ok(m) = std::fs::metadata(path) {
        tmp.as_file().set_permissions(m.permissions())?;
    }
    tmp.write_all(text.as_bytes())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
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
