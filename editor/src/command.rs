//! What the UI asks for. Widgets push these during a frame; [`crate::EditorApp`] applies
//! the list once the frame is drawn, so no widget changes the document mid-frame.

use std::path::PathBuf;

use crate::map_data::BoxData;
use crate::play::PlayCommand;

/// What is selected on the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    Box(usize),
    Line(usize),
}

/// What a click on the map does.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Tool {
    /// Select and drag boxes.
    #[default]
    Select,
    /// A click on empty map adds a box there.
    AddBox,
    /// Click two boxes to join them with a line of `kind`; `from` is the first.
    AddLine { kind: String, from: Option<usize> },
    /// Play mode: a click on a box only reports it; nothing is dragged or added.
    Play,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Select(Option<Selection>),
    /// Replace a box's properties (from the side panel).
    SetBox {
        index: usize,
        value: BoxData,
    },
    MoveBox {
        index: usize,
        x: i32,
        y: i32,
    },
    AddBox {
        x: i32,
        y: i32,
    },
    DeleteBox(usize),
    AddLine {
        a: usize,
        b: usize,
        kind: String,
    },
    DeleteLine(usize),
    SetTool(Tool),
    /// The scenario whose setup the map shows, by id; `None` for the bare map.
    ShowScenario(Option<String>),
    Undo,
    Redo,
    /// Save; `drop_comments` confirms losing comments inside the map element.
    Save {
        drop_comments: bool,
    },
    CancelSave,
    /// Switch between editing the module and playing it.
    SetMode(Mode),
    /// What the play client asks for (see [`crate::play`]).
    Play(PlayCommand),
    /// Save the game being played to this file.
    SaveGame(PathBuf),
    /// Load a saved game from this file, replacing the one being played if it loads.
    LoadGame(PathBuf),
}

/// Whether the app edits the module or plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    Edit,
    Play,
}
