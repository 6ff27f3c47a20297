//! The crate's integration tests, one module per former test binary: one binary
//! links once (CI time; see ARCHITECTURE.md).

mod backdrop;
mod background;
mod common;
mod document;
mod fixes;
mod lifecycle;
mod multi;
mod no_display;
mod play;
mod play_battle;
mod play_battle_choices;
mod play_by_file;
mod play_dwf;
mod play_entry;
mod play_formations;
mod play_refusal;
mod play_reload;
mod play_seats;
mod play_session;
mod play_start;
mod play_triplea;
mod scenario;
mod snapshot;
mod table;
mod ui;
mod ui_scenario;
mod workshop;
mod xvfb_clicks;
mod xvfb_window;
