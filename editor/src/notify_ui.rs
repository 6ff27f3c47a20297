//! Toasts: short notices (saved, reloaded, an error) in the corner of the window,
//! drawn by `egui-notify`. Every notice is also kept in a short history, which the
//! tests read (toasts are painted, not widgets with accessible labels).
//!
//! The stack is timed here on the wall clock, not by `egui-notify`'s per-frame
//! countdown: that one asks for a repaint every frame while a toast shows, which
//! keeps a window busy (and a UI test from ever settling). The toasts stay until
//! [`SHOWN`] after the latest one, then go together.

use std::time::{Duration, Instant};

use egui::Context;
use egui_notify::Toasts;

/// How many past notices [`Notifier::recent`] keeps.
const HISTORY: usize = 32;
/// How long toasts stay after the latest one arrived.
pub const SHOWN: Duration = Duration::from_secs(6);
/// At most this many toasts on screen; older ones go first.
const STACK: usize = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Info,
    Success,
    Warning,
    Error,
}

/// One notice as it was shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub level: Level,
    pub text: String,
}

/// Where toasts sit: over the map's top-right corner, below the toolbars and the play
/// banner and left of the right-hand panel, so they never cover the Save and Load
/// buttons (top right of the toolbars) nor the action panel.
const MARGIN: egui::Vec2 = egui::vec2(400.0, 120.0);

/// The toast stack of the window.
pub struct Notifier {
    toasts: Toasts,
    recent: Vec<Notice>,
    /// When the toasts on screen go.
    expires: Option<Instant>,
}

impl Default for Notifier {
    fn default() -> Self {
        Self {
            toasts: Toasts::default()
                .with_anchor(egui_notify::Anchor::TopRight)
                .with_margin(MARGIN),
            recent: Vec::new(),
            expires: None,
        }
    }
}

impl Notifier {
    pub fn info(&mut self, text: impl Into<String>) {
        self.push(Level::Info, text.into());
    }

    pub fn success(&mut self, text: impl Into<String>) {
        self.push(Level::Success, text.into());
    }

    pub fn warning(&mut self, text: impl Into<String>) {
        self.push(Level::Warning, text.into());
    }

    pub fn error(&mut self, text: impl Into<String>) {
        self.push(Level::Error, text.into());
    }

    fn push(&mut self, level: Level, text: String) {
        let toast = match level {
            Level::Info => self.toasts.info(text.clone()),
            Level::Success => self.toasts.success(text.clone()),
            Level::Warning => self.toasts.warning(text.clone()),
            Level::Error => self.toasts.error(text.clone()),
        };
        toast.duration(None).closable(true);
        self.expires = Some(Instant::now() + SHOWN);
        if self.toasts.len() > STACK {
            self.toasts.dismiss_oldest_toast();
        }
        if self.recent.len() == HISTORY {
            self.recent.remove(0);
        }
        self.recent.push(Notice { level, text });
    }

    /// The last notices, oldest first.
    pub fn recent(&self) -> &[Notice] {
        &self.recent
    }

    /// Draws the toasts over everything else.
    pub fn show(&mut self, ctx: &Context) {
        if let Some(at) = self.expires {
            let now = Instant::now();
            if now >= at {
                self.toasts.dismiss_all_toasts();
                self.expires = None;
            } else {
                ctx.request_repaint_after(at - now);
            }
        }
        self.toasts.show(ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_keeps_the_latest_notices() {
        let mut n = Notifier::default();
        for i in 0..HISTORY + 3 {
            n.info(format!("n{i}"));
        }
        n.error("bad");
        assert_eq!(n.recent().len(), HISTORY);
        assert_eq!(
            n.recent().last(),
            Some(&Notice {
                level: Level::Error,
                text: "bad".into()
            })
        );
        assert_eq!(n.recent()[0].text, "n4");
    }
}
