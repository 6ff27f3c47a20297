//! The real window, under Xvfb: `editor/xvfb/new-game.sh` starts the editor binary on
//! the AHD module, clicks through a new game and a first march, checks the window title
//! and saves a screenshot. It needs Xvfb, xdotool and ImageMagick (`.ci/run` installs
//! them): on a developer's machine without them `editor/build.rs` marks it ignored;
//! under CI it fails.

use std::path::Path;
use std::process::Command;

#[test]
#[cfg_attr(
    muster_no_xvfb,
    ignore = "needs Xvfb, xdotool, ImageMagick: apt-get install xvfb xdotool imagemagick (README)"
)]
fn the_real_window_under_xvfb_starts_a_game_and_marches() {
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
        "the Xvfb run failed (it needs Xvfb, xdotool, ImageMagick and the X and Mesa \
         libraries of the README's apt-get line):\n{stdout}\n{stderr}"
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
