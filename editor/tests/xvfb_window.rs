//! The real window, under Xvfb: `editor/xvfb/new-game.sh` starts the editor binary on
//! the AHD module, clicks through a new game and a first march, checks the window title
//! and saves a screenshot. It needs Xvfb, xdotool and ImageMagick (`.ci/run` installs
//! them); `MUSTER_SKIP_XVFB=1` skips it on a machine without them.

use std::path::Path;
use std::process::Command;

#[test]
fn the_real_window_under_xvfb_starts_a_game_and_marches() {
    if std::env::var_os("MUSTER_SKIP_XVFB").is_some() {
        eprintln!("skipped: MUSTER_SKIP_XVFB is set");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("xvfb/new-game.sh");
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("xvfb/new-game.png");
    let _ = std::fs::remove_file(&shot);
    let run = Command::new("bash")
        .arg(&script)
        .arg(&shot)
        .env("MUSTER_EDITOR_BIN", env!("CARGO_BIN_EXE_muster-editor"))
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "the Xvfb run failed (set MUSTER_SKIP_XVFB=1 where Xvfb, xdotool and ImageMagick \
         cannot be installed):\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("Washington is marching"), "{stdout}");
    assert!(stdout.contains("the computer played"), "{stdout}");
    let image = image::open(&shot).expect("the screenshot is a PNG");
    assert_eq!(
        (image.width(), image.height()),
        (1400, 900),
        "the window's size"
    );
}
