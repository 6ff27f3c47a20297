//! The egui map/scenario editor and play client of muster.
//!
//! [`EditorApp`] is the whole program as an egui app, usable from `main` and from UI
//! tests alike. The UI only shows the [`Document`] and emits [`UiCommand`]s, which are
//! applied once at the end of each frame; rules and checks stay in the engine.

pub mod app;
pub mod autosave;
pub mod backdrop;
pub mod background;
pub mod box_index;
pub mod command;
pub mod document;
pub mod edit;
pub mod file_dialog;
pub mod labels;
pub mod map_data;
pub mod map_view;
pub mod map_xml;
pub mod minimap;
pub mod mod_changes;
pub mod no_window;
pub mod notify_ui;
pub mod overlay;
pub mod panels;
pub mod play;
pub mod prompts;
pub mod reload;
pub mod save;
pub mod scenario_data;
pub mod scenario_live;
pub mod scenario_xml;
pub mod start;
pub mod style;
pub mod validate;
pub mod workshop;

pub use app::EditorApp;
pub use command::UiCommand;
pub use document::{Document, DocumentError, SaveOutcome};
