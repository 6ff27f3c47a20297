//! The optional-rules catalogue: which house rules a game may switch on.

use serde::Serialize;

use crate::diag::Pos;
use crate::ids::SideId;

#[derive(Clone, Debug, Serialize)]
pub struct OptionalRule {
    pub id: String,
    /// Rule number in the game's rules, e.g. `4.9`.
    pub rule: String,
    pub title: String,
    /// The side the rules say it favours; `None` for neutral.
    pub favours: Option<SideId>,
    pub default_on: bool,
    pub description: Option<String>,
    #[serde(skip)]
    pub pos: Pos,
}
