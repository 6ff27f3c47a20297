//! Hot reload during play: when the module's files change (on disk, or by a save in
//! the editor), the game under way is played again from its start on the new module
//! and rules ([`Session::rebuild`]) instead of silently keeping the old rules or
//! silently switching.
//!
//! Invariant: the game switches only when every action taken still applies; otherwise
//! the old game keeps running, unchanged, and the answer says why (the action's number
//! and the engine's reason, or the script's load error with its file and line), and
//! the toolbar offers to restart the game on the new rules instead.

use std::sync::Arc;

use muster_core::Module;

use super::{Play, Session};

/// What a reload did to the game under way.
#[derive(Debug, PartialEq, Eq)]
pub enum Reloaded {
    /// The game now runs on the new rules; every action was replayed.
    Switched(String),
    /// The old game goes on with the old rules, for this reason.
    Kept(String),
}

impl Play {
    /// Whether the game runs on old rules because a reload could not replay it.
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// Starts the game under way anew (same settings) on `module`; on an error the
    /// old game goes on.
    pub(super) fn restart(&mut self, module: Option<&Arc<Module>>) -> Result<(), String> {
        let session = self.session.as_ref().ok_or("no game under way")?;
        let module = module.ok_or("cannot restart: the module does not load")?;
        let settings = session.settings();
        let fresh = Session::new(module.clone(), &settings)
            .map_err(|e| format!("cannot restart with the new rules: {e}"))?;
        self.install(fresh);
        self.status = format!("restarted with the new rules, seed {}", settings.seed);
        Ok(())
    }

    /// Plays the game under way again on `module` (the module as it loads now, `None`
    /// when it does not). `None` when there is no game.
    pub fn reload_rules(
        &mut self,
        module: Option<&Arc<Module>>,
        why_not: impl FnOnce() -> String,
    ) -> Option<Reloaded> {
        let session = self.session.as_ref()?;
        let result = match module {
            None => Err(format!(
                "the module does not load ({}); the game goes on with the old rules",
                why_not()
            )),
            Some(m) => session
                .rebuild(m.clone())
                .map_err(|e| format!("{e}; the game goes on with the old rules")),
        };
        let answer = match result {
            Ok(rebuilt) => {
                let n = rebuilt.history().actions().len();
                self.stop_thinking();
                self.session = Some(rebuilt);
                // Box ids may mean other boxes now; the selection starts afresh.
                self.selected = None;
                self.unit = None;
                self.pick.clear();
                self.odds = super::odds::OddsView::default();
                self.stale = false;
                Reloaded::Switched(format!("rules reloaded: {n} actions replayed"))
            }
            Err(why) => {
                tracing::warn!("{why}");
                self.stale = true;
                Reloaded::Kept(why)
            }
        };
        self.status = match &answer {
            Reloaded::Switched(s) | Reloaded::Kept(s) => s.clone(),
        };
        Some(answer)
    }
}
