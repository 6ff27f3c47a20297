//! Playing a game: the state, its dice, and (to come) the actions that change it.

pub mod command;
pub mod dice;
pub mod march;
pub mod rules;
pub mod state;

pub use command::Command;
pub use dice::Dice;
pub use march::{Destination, Path, Step, destinations};
pub use rules::{Answer, Combine, Event, Question, RuleError, Rules, View};
pub use state::{BoxState, GameState, Place, Unit};
