//! Primitive edits of the map and their inverses: the unit of undo and redo.
//!
//! Every change the user makes is a list of these. Applying one returns its exact
//! inverse, so undo never has to guess what an edit did.

use crate::map_data::{BackgroundData, BoxData, LineData, MapData};

/// One primitive change to [`MapData`], by index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    SetBox {
        index: usize,
        value: BoxData,
    },
    InsertBox {
        index: usize,
        value: BoxData,
    },
    RemoveBox {
        index: usize,
    },
    SetLine {
        index: usize,
        value: LineData,
    },
    InsertLine {
        index: usize,
        value: LineData,
    },
    RemoveLine {
        index: usize,
    },
    /// Sets or clears the background scan.
    SetBackground(Option<BackgroundData>),
}

/// An edit the document does not make.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EditError {
    /// It does not fit the map (a stale index): a bug in the caller, reported instead
    /// of panicking.
    #[error("edit {0:?} does not fit the map")]
    Stale(Box<Edit>),
    /// The map is a base module's, shown under the mod being edited: the editor writes
    /// only the mod's own files (the message says where the change goes instead).
    #[error("{0}")]
    BaseMap(String),
}

impl Edit {
    /// Applies the edit and returns the edit that undoes it.
    pub fn apply(self, map: &mut MapData) -> Result<Edit, EditError> {
        let inverse = match &self {
            Edit::SetBox { index, value } => {
                let slot = map.boxes.get_mut(*index);
                let Some(slot) = slot else {
                    return Err(EditError::Stale(Box::new(self)));
                };
                let old = std::mem::replace(slot, value.clone());
                Edit::SetBox {
                    index: *index,
                    value: old,
                }
            }
            Edit::InsertBox { index, value } if *index <= map.boxes.len() => {
                map.boxes.insert(*index, value.clone());
                Edit::RemoveBox { index: *index }
            }
            Edit::RemoveBox { index } if *index < map.boxes.len() => Edit::InsertBox {
                index: *index,
                value: map.boxes.remove(*index),
            },
            Edit::SetLine { index, value } => {
                let Some(slot) = map.lines.get_mut(*index) else {
                    return Err(EditError::Stale(Box::new(self)));
                };
                let old = std::mem::replace(slot, value.clone());
                Edit::SetLine {
                    index: *index,
                    value: old,
                }
            }
            Edit::InsertLine { index, value } if *index <= map.lines.len() => {
                map.lines.insert(*index, value.clone());
                Edit::RemoveLine { index: *index }
            }
            Edit::RemoveLine { index } if *index < map.lines.len() => Edit::InsertLine {
                index: *index,
                value: map.lines.remove(*index),
            },
            Edit::SetBackground(value) => {
                Edit::SetBackground(std::mem::replace(&mut map.background, value.clone()))
            }
            _ => return Err(EditError::Stale(Box::new(self))),
        };
        Ok(inverse)
    }
}

/// Applies edits in order; returns the edits that undo them all (in the order to apply).
/// If one fails, the ones already applied are undone and the map is unchanged.
pub fn apply_all(map: &mut MapData, edits: Vec<Edit>) -> Result<Vec<Edit>, EditError> {
    let mut inverses = Vec::with_capacity(edits.len());
    for edit in edits {
        match edit.apply(map) {
            Ok(inv) => inverses.push(inv),
            Err(e) => {
                for inv in inverses.into_iter().rev() {
                    // Inverses of edits that just applied always fit.
                    let _ = inv.apply(map);
                }
                return Err(e);
            }
        }
    }
    inverses.reverse();
    Ok(inverses)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> MapData {
        MapData {
            boxes: vec![
                BoxData {
                    name: "A".into(),
                    ..BoxData::default()
                },
                BoxData {
                    name: "B".into(),
                    x: 5,
                    ..BoxData::default()
                },
            ],
            lines: vec![LineData {
                a: "A".into(),
                b: "B".into(),
                kind: "road".into(),
                ..LineData::default()
            }],
            ..MapData::default()
        }
    }

    #[test]
    fn inverses_restore_the_map() {
        let start = map();
        let mut m = start.clone();
        let edits = vec![
            Edit::RemoveLine { index: 0 },
            Edit::RemoveBox { index: 0 },
            Edit::SetBox {
                index: 0,
                value: BoxData {
                    name: "C".into(),
                    ..BoxData::default()
                },
            },
            Edit::InsertLine {
                index: 0,
                value: LineData::default(),
            },
        ];
        let undo = apply_all(&mut m, edits).unwrap();
        assert_eq!(m.boxes.len(), 1);
        assert_eq!(m.boxes[0].name, "C");
        assert_ne!(m, start);
        apply_all(&mut m, undo).unwrap();
        assert_eq!(m, start);
    }

    #[test]
    fn a_stale_edit_fails_and_leaves_the_map_unchanged() {
        let start = map();
        let mut m = start.clone();
        let edits = vec![Edit::RemoveBox { index: 0 }, Edit::RemoveBox { index: 7 }];
        assert!(apply_all(&mut m, edits).is_err());
        assert_eq!(m, start);
    }
}
