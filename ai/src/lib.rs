//! Computer players and the tools built on them. Everything here is generic: it knows
//! the engine's actions, questions and definitions, never a game's rules. Rules
//! knowledge comes from the module's hooks (questions it asks, `legal_actions`), so a
//! house rule changes how the AI plays without a change here.

pub mod battle;
pub mod knowledge;
pub mod odds;
pub mod planner;
pub mod player;
mod recall;
pub mod search;

pub use player::{
    AiError, Decided, Level, Played, Player, Table, acting_seat, choose, choose_for, decide,
    decide_for, player, player_with, seat_seed, side_seed, step, step_for,
};
pub mod balance;
