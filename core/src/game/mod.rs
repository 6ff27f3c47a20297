//! Playing a game: the state, its dice, and (to come) the actions that change it.

pub mod action;
pub mod activation;
pub mod battle;
pub mod command;
pub mod describe;
pub mod dice;
mod effects;
pub mod entry;
pub mod fight;
pub mod flow;
pub mod formations;
pub mod graph;
pub mod history;
pub mod knowledge;
pub mod moves;
pub mod offer;
mod pieces;
pub mod placing;
pub mod rules;
pub mod save;
pub mod seats;
pub mod seen_log;
pub mod sight;
pub mod state;
pub mod upgrade;
pub mod why;

pub use action::{Action, ActionError};
pub use command::Command;
pub use dice::Dice;
pub use entry::{Entry, Field, FieldKind, Form};
pub use fight::Fought;
pub use flow::{apply, apply_unlogged, decider, legal_actions, legal_actions_memo, set_end, start};
pub use history::History;
pub use knowledge::Knowledge;
pub use moves::{Destination, Path, Step, destinations};
pub use offer::Offer;
pub use rules::{
    Answer, Asker, Combine, Event, Question, Reads, RuleError, Rules, SharedReads, View, Wanted,
};
pub use save::{Save, SaveError};
pub use seats::{
    Turns, allowed_by, apply_by, apply_by_unlogged, awaited, legal_actions_for,
    legal_actions_for_memo,
};
pub use seen_log::seat_log;
pub use sight::{SeatView, seat_view};
pub use state::{BoxState, GameState, Outcome, Place, Unit, Vars};
pub use why::{Refusal, RuleSaid, why_not};
