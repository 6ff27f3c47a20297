//! Playing a game: the state, its dice, and (to come) the actions that change it.

pub mod dice;
pub mod state;

pub use dice::Dice;
pub use state::{BoxState, GameState, Place, Unit};
