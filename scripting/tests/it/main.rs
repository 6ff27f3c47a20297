//! The crate's integration tests, one module per former test binary: one binary
//! links once (CI time; see ARCHITECTURE.md).

mod api;
mod common;
mod compose;
mod defs;
mod during;
mod entries;
mod game_view;
mod hooks;
mod hostile;
mod lifecycle;
mod located_errors;
mod offers;
mod pieces;
mod place_in;
mod profile;
mod require;
mod scoped;
mod sessions;
mod stdlib;
