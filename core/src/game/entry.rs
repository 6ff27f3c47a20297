//! Entries: offers whose content the seat taking them enters ("battle at Manassas:
//! these pieces lost these steps, this side holds the field"). An offer may carry a
//! [`Form`] of typed fields; the [`Action::Take`](super::Action::Take) that takes it
//! carries the values entered ([`Entry`]), recorded and replayed like any action.
//!
//! The engine checks an entry against its form (every field filled, each value one the
//! field allows), then the rules may refuse it with a reason (`accepts_entry`), then the
//! offer's event carries it out (`offer_taken`, the entry in the offer). A `Take` with
//! no entry asks the rules' computer referee (`referee_entry`) to enter one, drawing
//! only on the game's dice, so the game replays exactly. The kernel names no game's
//! verbs: what a field means is the rules' business.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::state::GameState;
use crate::ids::{BoxId, SideId, UnitId};
use crate::module::Module;

/// The fields an offer asks to be filled, in the order a person is asked them.
pub type Form = Vec<Field>;

/// One field of a form.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Field {
    /// Its key in the entry (`losses`), as the rules read it.
    pub id: String,
    /// What a person is asked (`Steps lost`).
    pub label: String,
    pub kind: FieldKind,
}

/// What a field takes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    /// A whole number from 0 to its most for each of these pieces (steps lost, say);
    /// a piece left out counts 0.
    Pieces(Vec<(UnitId, i64)>),
    /// One of these sides.
    Side(Vec<SideId>),
    /// One of these boxes.
    Box(Vec<BoxId>),
    /// A whole number in this range, both ends included.
    Number { min: i64, max: i64 },
    /// One of these labels.
    Choice(Vec<String>),
}

/// A field's value as entered.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Value {
    /// A number for each piece named (pieces left out count 0), in piece order.
    Pieces(Vec<(UnitId, i64)>),
    Side(SideId),
    Box(BoxId),
    Number(i64),
    Choice(String),
}

/// The values entered, by field id.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Entry(pub BTreeMap<String, Value>);

impl Entry {
    pub fn get(&self, field: &str) -> Option<&Value> {
        self.0.get(field)
    }

    pub fn set(&mut self, field: impl Into<String>, value: Value) {
        self.0.insert(field.into(), value);
    }
}

impl FieldKind {
    /// What the field takes, for messages (`a side`).
    pub fn wants(&self) -> &'static str {
        match self {
            FieldKind::Pieces(_) => "a number for each of its pieces",
            FieldKind::Side(_) => "a side",
            FieldKind::Box(_) => "a box",
            FieldKind::Number { .. } => "a whole number",
            FieldKind::Choice(_) => "one of its labels",
        }
    }
}

/// Checks `entry` against `form`: each field filled (a pieces field may be left out:
/// no piece counts), no field the form lacks, each value one its field allows. The
/// error says which field and why, in the pieces' and boxes' names.
pub fn check(
    module: &Module,
    state: &GameState,
    form: &[Field],
    entry: &Entry,
) -> Result<(), String> {
    for key in entry.0.keys() {
        if !form.iter().any(|f| &f.id == key) {
            let ids: Vec<&str> = form.iter().map(|f| f.id.as_str()).collect();
            return Err(format!(
                "there is no field '{key}' (the fields are: {})",
                ids.join(", ")
            ));
        }
    }
    for field in form {
        let bad = |why: String| format!("{} ('{}'): {why}", field.label, field.id);
        let Some(value) = entry.get(&field.id) else {
            if matches!(field.kind, FieldKind::Pieces(_)) {
                continue;
            }
            return Err(bad(format!(
                "nothing entered; it takes {}",
                field.kind.wants()
            )));
        };
        match (&field.kind, value) {
            (FieldKind::Pieces(allowed), Value::Pieces(given)) => {
                for (i, &(unit, n)) in given.iter().enumerate() {
                    let name = piece(module, state, unit);
                    let Some(&(_, most)) = allowed.iter().find(|(u, _)| *u == unit) else {
                        return Err(bad(format!(
                            "{name} is not one of its pieces ({})",
                            allowed
                                .iter()
                                .map(|&(u, _)| piece(module, state, u))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )));
                    };
                    if given[..i].iter().any(|&(u, _)| u == unit) {
                        return Err(bad(format!("{name} is entered twice")));
                    }
                    if n < 0 {
                        return Err(bad(format!("{name}: {n} is below 0")));
                    }
                    if n > most {
                        return Err(bad(format!("{name}: {n} is more than its most, {most}")));
                    }
                }
            }
            (FieldKind::Side(allowed), Value::Side(side)) => {
                if !allowed.contains(side) {
                    return Err(bad(format!(
                        "{} is not one of {}",
                        side_name(module, *side),
                        allowed
                            .iter()
                            .map(|&s| side_name(module, s))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
            }
            (FieldKind::Box(allowed), Value::Box(at)) => {
                if !allowed.contains(at) {
                    return Err(bad(format!(
                        "{} is not one of the boxes it takes",
                        box_name(module, *at)
                    )));
                }
            }
            (FieldKind::Number { min, max }, Value::Number(n)) => {
                if n < min || n > max {
                    return Err(bad(format!("{n} is out of range ({min} to {max})")));
                }
            }
            (FieldKind::Choice(labels), Value::Choice(c)) => {
                if !labels.contains(c) {
                    return Err(bad(format!("'{c}' is not one of: {}", labels.join(", "))));
                }
            }
            (kind, _) => return Err(bad(format!("it takes {}", kind.wants()))),
        }
    }
    Ok(())
}

/// An entry in words, field by field in the form's order: `Steps lost: Infantry #3 2;
/// Holds the field: Confederacy`. Pieces entered 0 are left out.
pub fn describe(module: &Module, state: &GameState, form: &[Field], entry: &Entry) -> String {
    let labelled = form
        .iter()
        .filter_map(|f| entry.get(&f.id).map(|v| (f.label.as_str(), v)));
    say(module, state, labelled)
}

/// An entry in words without its form (an action read back from a save): each field by
/// its id.
pub fn describe_bare(module: &Module, state: &GameState, entry: &Entry) -> String {
    say(module, state, entry.0.iter().map(|(k, v)| (k.as_str(), v)))
}

fn say<'a>(
    module: &Module,
    state: &GameState,
    fields: impl Iterator<Item = (&'a str, &'a Value)>,
) -> String {
    let mut out = String::new();
    for (label, value) in fields {
        if !out.is_empty() {
            out.push_str("; ");
        }
        let _ = write!(out, "{label}: ");
        match value {
            Value::Pieces(given) => {
                let listed: Vec<String> = given
                    .iter()
                    .filter(|(_, n)| *n != 0)
                    .map(|&(u, n)| format!("{} {n}", piece(module, state, u)))
                    .collect();
                out.push_str(&if listed.is_empty() {
                    "none".to_string()
                } else {
                    listed.join(", ")
                });
            }
            Value::Side(s) => out.push_str(&side_name(module, *s)),
            Value::Box(b) => out.push_str(&box_name(module, *b)),
            Value::Number(n) => {
                let _ = write!(out, "{n}");
            }
            Value::Choice(c) => out.push_str(c),
        }
    }
    out
}

fn piece(module: &Module, state: &GameState, unit: UnitId) -> String {
    if unit.index() < state.units.len() {
        super::describe::unit(module, state, unit)
    } else {
        format!("piece {}", unit.index() + 1)
    }
}

fn side_name(module: &Module, side: SideId) -> String {
    module
        .sides
        .get(side.index())
        .map_or_else(|| format!("side {}", side.index() + 1), |s| s.name.clone())
}

fn box_name(module: &Module, at: BoxId) -> String {
    module
        .board
        .boxes
        .get(at.index())
        .map_or_else(|| format!("box {}", at.index() + 1), |b| b.name.clone())
}
