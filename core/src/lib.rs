//! The generic engine core: reads a game module from XML and compiles it into compact,
//! immutable definitions with integer ids. It never names a particular game.

pub mod backdrop;
pub mod board;
pub mod calendar;
mod compile;
pub mod diag;
pub mod format;
pub mod game;
pub mod hash;
pub mod ids;
pub mod load;
pub mod module;
mod names;
pub mod options;
pub(crate) mod overlay;
pub mod pbem;
pub mod scenario;
pub mod scenario_from;
pub mod scenario_mod;
pub mod suggest;
pub mod summary;
pub mod table;
pub mod unit;
pub mod xml;

pub use diag::{Diagnostic, LoadError, Severity};
pub use load::{
    load_module, load_module_with, load_scenario_file, load_scenario_str, load_stack,
    load_stack_with,
};
pub use module::{Module, StackEntry};
pub use scenario::Scenario;
