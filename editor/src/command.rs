//! What the UI asks for. Widgets push these during a frame; [`crate::EditorApp`] applies
//! the list once the frame is drawn, so no widget changes the document mid-frame.

use std::path::PathBuf;

use crate::map_data::{BackgroundData, BoxData, LineData};
use crate::play::PlayCommand;
use crate::scenario_data::ScenarioData;

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
pub enum UiCommand {
    Select(Option<Selection>),
    /// Shift/Ctrl-click: add box `i` to the box selection, or take it out.
    ToggleBox(usize),
    /// Add these boxes to the selection (a rubber band drawn with Shift).
    AddBoxes(Vec<usize>),
    /// Move several boxes as one undo step: `(index, x, y)` each.
    MoveBoxes(Vec<(usize, i32, i32)>),
    /// Delete what is selected: every selected box (one undo step), or the line.
    DeleteSelection,
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
    /// Set or (with `None`) remove the map's background scan.
    SetBackground(Option<BackgroundData>),
    AddLine {
        a: usize,
        b: usize,
        kind: String,
    },
    DeleteLine(usize),
    /// Replace a line's properties (from the side panel).
    SetLine {
        index: usize,
        value: LineData,
    },
    SetTool(Tool),
    /// The scenario whose setup the map shows, by id; `None` for the bare map.
    ShowScenario(Option<String>),
    /// Replace scenario file `index`'s content (from the scenario panel), as one undo
    /// step called `label`.
    SetScenario {
        index: usize,
        value: ScenarioData,
        label: String,
    },
    Undo,
    Redo,
    /// Save; `drop_comments` confirms losing comments inside the map element.
    Save {
        drop_comments: bool,
    },
    CancelSave,
    /// Ask the file dialog for a module folder to open.
    OpenModuleDialog,
    /// Switch the editor to the module in this folder (asks first about unsaved edits).
    OpenModule(PathBuf),
    /// The map changed on disk while edited: take the disk's version, dropping edits.
    ReloadFromDisk,
    /// Replace the map with its newer autosave (as unsaved edits).
    RestoreAutosave,
    /// Delete the autosave instead of restoring it.
    DeleteAutosave,
    /// The answer to "save your edits first?" before quitting or opening another module.
    Unsaved(UnsavedChoice),
    /// Close the open prompt doing nothing ("Keep mine").
    DismissPrompt,
    /// Switch between editing the module and playing it.
    SetMode(Mode),
    /// What the play client asks for (see [`crate::play`]).
    Play(PlayCommand),
    /// Save the game being played to this file.
    SaveGame(PathBuf),
    /// Load a saved game from this file, replacing the one being played if it loads.
    LoadGame(PathBuf),
    /// Ask the file dialog where to save the game, then save it there.
    SaveGameDialog,
    /// Ask the file dialog for a saved game, then load it.
    LoadGameDialog,
    /// Open the New scenario window on the position of the game being played.
    PositionAsScenario,
}

/// The buttons of the unsaved-edits prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnsavedChoice {
    Save,
    Discard,
    Cancel,
}

/// Whether the app shows its start screen, edits the module or plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// The start screen (see `start.rs`): what the program opens on.
    Start,
    #[default]
    Edit,
    Play,
}
