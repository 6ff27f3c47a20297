//! The app on a machine without a display (a server, a container, a CI job) says in one
//! line that it needs one, how to run it under Xvfb and how to play at the terminal, and
//! fails; it used to print winit's error with a path into the cargo registry.

use crate::common;

use std::process::{Command, Output};

/// The editor binary on the AHD module with `display` as its only display variable.
fn run_without_a_display(display: Option<&str>) -> Output {
    let mut app = Command::new(env!("CARGO_BIN_EXE_muster-editor"));
    app.arg(common::ahd())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET");
    if let Some(display) = display {
        app.env("DISPLAY", display);
    }
    app.output().expect("the editor binary runs")
}

/// The message of a run that must fail for want of a display.
fn one_line_message(run: &Output) -> String {
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        !run.status.success(),
        "no window, so no success: {:?}\n{stderr}",
        run.status
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    let line = lines[0].to_owned();
    for words in [
        "it needs an X11 or Wayland display",
        "xvfb-run",
        "apt-get install xvfb",
        "play at the terminal",
    ] {
        assert!(line.contains(words), "{words:?} in {line}");
    }
    let terminal = format!("`muster play {} ", common::ahd().display());
    assert!(line.contains(&terminal), "{terminal:?} in {line}");
    assert!(
        !line.contains("os error at") && !line.contains(".rs:"),
        "no source path of winit: {line}"
    );
    line
}

#[test]
fn without_any_display_variable_the_app_says_what_it_needs_and_fails() {
    let line = one_line_message(&run_without_a_display(None));
    assert!(
        line.contains("neither WAYLAND_DISPLAY nor WAYLAND_SOCKET nor DISPLAY is set"),
        "the cause: {line}"
    );
}

#[test]
fn with_a_display_nobody_serves_the_app_says_what_it_needs_and_fails() {
    // No X server answers at display 4999 (nor its socket, on any machine of ours).
    one_line_message(&run_without_a_display(Some(":4999")));
}
