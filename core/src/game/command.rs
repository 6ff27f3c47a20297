//! Commands: what rules may ask the engine to do when they react to an event. The
//! engine checks each before applying it; rules never change the state themselves.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Command {
    /// The marches the moving player has for this Movement segment.
    SetMarches { count: u8 },
    /// Sets a named counter of the game.
    SetVar { name: String, value: i64 },
    /// A line for the game log.
    Log { text: String },
}
