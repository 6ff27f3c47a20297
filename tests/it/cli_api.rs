//! `muster api`: the committed reference and type definitions are what the generator
//! writes now. When this fails, run `cargo run -- api` and commit `docs/`.

use std::path::Path;
use std::process::Command;

const FILES: [&str; 2] = ["luau-api.md", "muster.d.luau"];

#[test]
fn the_committed_reference_is_up_to_date() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = Command::new(env!("CARGO_BIN_EXE_muster"))
        .args(["api", "--out"])
        .arg(tmp.path())
        .output()
        .expect("run muster");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let mut stale = Vec::new();
    for name in FILES {
        let fresh = std::fs::read_to_string(tmp.path().join(name)).expect("generated");
        assert!(!fresh.is_empty(), "{name} is empty");
        match std::fs::read_to_string(docs.join(name)) {
            Ok(committed) if committed == fresh => {}
            Ok(_) => stale.push(format!("docs/{name} is stale")),
            Err(e) => stale.push(format!("docs/{name} is missing ({e})")),
        }
    }
    assert!(
        stale.is_empty(),
        "{}; run `cargo run -- api` and commit docs/",
        stale.join("; ")
    );
}

#[test]
fn an_unwritable_folder_is_an_error_not_a_panic() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "x").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_muster"))
        .args(["api", "--out"])
        .arg(&file)
        .output()
        .expect("run muster");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: cannot create the folder"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
