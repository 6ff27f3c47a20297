//! Hot reload during play: when the module's files change (on disk, or by a save in
//! the editor), the game under way is played again from its start on the new module
//! and rules ([`Session::rebuild`]) instead of silently keeping the old rules or
//! silently switching.
//!
//! Invariant: the game switches only when every action taken still applies; otherwise
//! the old game keeps running, unchanged, and the answer says why (the action's number
//! and the engine's reason, or the script's load error with its file and line).

use std::sync::Arc;

use muster_core::Module;

use super::Play;
use super::session::RebuildError;

/// What a reload did to the game under way.
#[derive(Debug, PartialEq, Eq)]
pub enum Reloaded {
    /// The game now runs on the new rules; every action was replayed.
    Switched(String),
    /// The old game goes on with the old rules, for this reason.
    Kept(String),
}

impl Play {
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
            Some(m) => session.rebuild(m.clone()).map_err(|e| match e {
                RebuildError::Action { .. } => {
                    format!("{e}; the game goes on with the old rules")
                }
                other => format!("rules not reloaded, the game goes on with the old ones: {other}"),
            }),
        };
        let answer = match result {
            Ok(rebuilt) => {
                let n = rebuilt.history().actions().len();
                self.session = Some(rebuilt);
                // Box ids may mean other boxes now; the selection starts afresh.
                self.selected = None;
                self.unit = None;
                self.pick.clear();
                self.odds = super::odds::OddsView::default();
                Reloaded::Switched(format!("rules reloaded: {n} actions replayed"))
            }
            Err(why) => {
                tracing::warn!("{why}");
                Reloaded::Kept(why)
            }
        };
        self.status = match &answer {
            Reloaded::Switched(s) | Reloaded::Kept(s) => s.clone(),
        };
        Some(answer)
    }
}
