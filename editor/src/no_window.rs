//! What the app says when it cannot open its window. eframe's own errors name a source
//! file of winit in the cargo registry and say nothing of what to do; a person on a
//! machine without a display (a server, a container, a CI job) needs to hear that the
//! app needs one, how to give it one, and that the whole game also plays at the terminal.

/// The one-line message for an error of `eframe::run_native` that comes from the display
/// (none, unreachable) or its renderer (no OpenGL, neither a GPU's nor a software one);
/// `None` for the others, which are the app's own. `module` is the folder the app was
/// asked to open, for the terminal command.
pub fn message(error: &eframe::Error, module: &std::path::Path) -> Option<String> {
    use winit::error::EventLoopError;
    let xvfb = format!(
        "run it under Xvfb (`xvfb-run -s '-screen 0 1400x900x24' muster-editor {}`, apt-get \
         install xvfb) or play at the terminal (`muster play {} --union human --confederate ai`)",
        module.display(),
        module.display()
    );
    let display = |e: &dyn std::fmt::Display| (false, e.to_string());
    let renderer = |e: &dyn std::fmt::Display| (true, e.to_string());
    let (no_renderer, cause) = match error {
        eframe::Error::WinitEventLoop(
            e @ (EventLoopError::Os(_) | EventLoopError::NotSupported(_)),
        ) => display(e),
        eframe::Error::Winit(e) => display(e),
        eframe::Error::Glutin(e) => renderer(e),
        eframe::Error::NoGlutinConfigs(_, e) => renderer(e),
        eframe::Error::OpenGL(e) => renderer(e),
        _ => return None,
    };
    let cause = one_line(&cause);
    Some(if no_renderer {
        format!(
            "muster-editor: cannot open the window: the display gives no OpenGL renderer, \
             neither a GPU's nor a software one ({cause}); install Mesa's (apt-get install \
             libgl1-mesa-dri libegl1), {xvfb}"
        )
    } else {
        format!(
            "muster-editor: cannot open the window: it needs an X11 or Wayland display \
             ({cause}); {xvfb}"
        )
    })
}

/// `cause` on one line, without winit's "os error at FILE:LINE: " (a path in the cargo
/// registry means nothing to a player) or a closing full stop.
fn one_line(cause: &str) -> String {
    const AT: &str = "os error at ";
    let mut text = cause.to_owned();
    if let Some(start) = text.find(AT)
        && let Some(end) = text[start + AT.len()..].find(": ")
    {
        text.replace_range(start..start + AT.len() + end + 2, "");
    }
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    text.trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cause_loses_winit_s_source_path_and_stays_on_one_line() {
        assert_eq!(
            one_line(
                "os error at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/\
                 winit-0.30.13/src/platform_impl/linux/mod.rs:766: neither WAYLAND_DISPLAY \
                 nor WAYLAND_SOCKET nor DISPLAY is set."
            ),
            "neither WAYLAND_DISPLAY nor WAYLAND_SOCKET nor DISPLAY is set"
        );
        assert_eq!(
            one_line("failed to open display\n  :99"),
            "failed to open display :99"
        );
    }

    #[test]
    fn the_app_s_own_errors_are_not_the_display_s() {
        let error = eframe::Error::AppCreation("the module did not load".into());
        assert_eq!(message(&error, std::path::Path::new("mods/ahd")), None);
        let error = eframe::Error::WinitEventLoop(winit::error::EventLoopError::RecreationAttempt);
        assert_eq!(message(&error, std::path::Path::new("mods/ahd")), None);
    }
}
