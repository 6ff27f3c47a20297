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

/// A form in words, for a person who does not hold the game (a seat answering a host's
/// file): each field with the names of the values it takes and what each stands for, so
/// that an entry can be asked, or read from a file of names, without the module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Asked {
    /// The field's id (the key of its value in the entry).
    pub id: String,
    pub label: String,
    #[serde(flatten)]
    pub takes: Takes,
}

/// What a field in words takes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Takes {
    /// A number from 0 to its most for each piece (left out: 0).
    Pieces(Vec<NamedPiece>),
    Sides(Vec<Named<SideId>>),
    Boxes(Vec<Named<BoxId>>),
    Number {
        min: i64,
        max: i64,
    },
    Choices(Vec<String>),
}

/// A piece of a form, by the name a person gives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedPiece {
    pub name: String,
    pub unit: UnitId,
    pub most: i64,
}

/// A side or box of a form, by its name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Named<T> {
    pub name: String,
    pub id: T,
}

/// `form` in words. A piece `hidden` says the seat may not see is named only as an
/// unseen piece (fail closed); a name given twice in a field gets ` (2)`, ` (3)`, ...
/// so that each names one piece.
pub fn in_words(
    module: &Module,
    state: &GameState,
    form: &[Field],
    hidden: impl Fn(UnitId) -> bool,
) -> Vec<Asked> {
    form.iter()
        .map(|f| {
            let takes = match &f.kind {
                FieldKind::Pieces(pieces) => {
                    let mut named: Vec<NamedPiece> = Vec::with_capacity(pieces.len());
                    for &(unit, most) in pieces {
                        let base = if hidden(unit) {
                            "an unseen piece".to_string()
                        } else {
                            piece(module, state, unit)
                        };
                        let mut name = base.clone();
                        let mut n = 1;
                        while named.iter().any(|p| p.name == name) {
                            n += 1;
                            name = format!("{base} ({n})");
                        }
                        named.push(NamedPiece { name, unit, most });
                    }
                    Takes::Pieces(named)
                }
                FieldKind::Side(sides) => Takes::Sides(
                    sides
                        .iter()
                        .map(|&id| Named {
                            name: side_name(module, id),
                            id,
                        })
                        .collect(),
                ),
                FieldKind::Box(boxes) => Takes::Boxes(
                    boxes
                        .iter()
                        .map(|&id| Named {
                            name: box_name(module, id),
                            id,
                        })
                        .collect(),
                ),
                FieldKind::Number { min, max } => Takes::Number {
                    min: *min,
                    max: *max,
                },
                FieldKind::Choice(labels) => Takes::Choices(labels.clone()),
            };
            Asked {
                id: f.id.clone(),
                label: f.label.clone(),
                takes,
            }
        })
        .collect()
}

/// One of `names` (exactly, else alike but for case when only one is): its index.
fn find_name<'a>(names: impl Iterator<Item = &'a str> + Clone, given: &str) -> Option<usize> {
    let given = given.trim();
    if let Some(i) = names.clone().position(|n| n == given) {
        return Some(i);
    }
    let alike: Vec<usize> = names
        .enumerate()
        .filter(|(_, n)| n.eq_ignore_ascii_case(given))
        .map(|(i, _)| i)
        .collect();
    match alike.as_slice() {
        [i] => Some(*i),
        _ => None,
    }
}

/// An entry from values in words (a person's file: `{"losses": {"I Corps (McDowell)":
/// 2}, "holder": "Union"}`): a pieces field is an object of piece names and whole
/// numbers (a piece left out: 0; the field left out: none), a side, box or choice is a
/// name, a number is a whole number. Checked against what each field allows; the error
/// names the field and the value, and what it takes.
pub fn from_words(form: &[Asked], words: &serde_json::Value) -> Result<Entry, String> {
    let Some(given) = words.as_object() else {
        return Err(
            "it must be an object of field ids and values, e.g. {\"holder\": \"Union\"}".into(),
        );
    };
    let ids = || {
        form.iter()
            .map(|f| f.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    for key in given.keys() {
        if !form.iter().any(|f| &f.id == key) {
            return Err(format!(
                "field '{key}': the form has no such field (its fields: {})",
                ids()
            ));
        }
    }
    let mut entry = Entry::default();
    for field in form {
        let bad = |why: String| format!("field '{}' ({}): {why}", field.id, field.label);
        let Some(value) = given.get(&field.id) else {
            if matches!(field.takes, Takes::Pieces(_)) {
                continue;
            }
            return Err(bad("missing".into()));
        };
        let one_of = |names: Vec<&str>| -> Result<usize, String> {
            let Some(text) = value.as_str() else {
                return Err(bad(format!(
                    "{value} is not a name; give one of: {}",
                    names.join(", ")
                )));
            };
            find_name(names.iter().copied(), text)
                .ok_or_else(|| bad(format!("'{text}' is not one of: {}", names.join(", "))))
        };
        let entered = match &field.takes {
            Takes::Pieces(pieces) => {
                let Some(counts) = value.as_object() else {
                    return Err(bad(format!(
                        "{value} is not an object of piece names and numbers"
                    )));
                };
                let mut out = Vec::new();
                for (name, n) in counts {
                    let Some(i) = find_name(pieces.iter().map(|p| p.name.as_str()), name) else {
                        return Err(bad(format!(
                            "there is no piece '{name}' in it (its pieces: {})",
                            pieces
                                .iter()
                                .map(|p| p.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )));
                    };
                    let p = &pieces[i];
                    let Some(n) = n.as_i64() else {
                        return Err(bad(format!("{}: {n} is not a whole number", p.name)));
                    };
                    if !(0..=p.most).contains(&n) {
                        return Err(bad(format!("{}: {n} is not from 0 to {}", p.name, p.most)));
                    }
                    if out.iter().any(|&(u, _)| u == p.unit) {
                        return Err(bad(format!("{} is entered twice", p.name)));
                    }
                    if n != 0 {
                        out.push((p.unit, n));
                    }
                }
                // In the form's order, as a person asked field by field enters them.
                out.sort_by_key(|(u, _)| pieces.iter().position(|p| p.unit == *u));
                Value::Pieces(out)
            }
            Takes::Sides(sides) => {
                Value::Side(sides[one_of(sides.iter().map(|s| s.name.as_str()).collect())?].id)
            }
            Takes::Boxes(boxes) => {
                Value::Box(boxes[one_of(boxes.iter().map(|b| b.name.as_str()).collect())?].id)
            }
            Takes::Number { min, max } => match value.as_i64() {
                Some(n) if (*min..=*max).contains(&n) => Value::Number(n),
                _ => {
                    return Err(bad(format!(
                        "{value} is not a whole number from {min} to {max}"
                    )));
                }
            },
            Takes::Choices(labels) => {
                Value::Choice(labels[one_of(labels.iter().map(String::as_str).collect())?].clone())
            }
        };
        entry.set(field.id.clone(), entered);
    }
    Ok(entry)
}

/// An entry in words by its form in words: `Steps lost: I Corps 2; Holds the field:
/// Union` (as [`describe`], for one who has only the form in words).
pub fn describe_words(form: &[Asked], entry: &Entry) -> String {
    let mut out = String::new();
    for field in form {
        let Some(value) = entry.get(&field.id) else {
            continue;
        };
        if !out.is_empty() {
            out.push_str("; ");
        }
        let said = match (&field.takes, value) {
            (Takes::Pieces(pieces), Value::Pieces(given)) => {
                let listed: Vec<String> = given
                    .iter()
                    .filter(|(_, n)| *n != 0)
                    .map(|&(u, n)| {
                        let name = pieces.iter().find(|p| p.unit == u).map(|p| p.name.clone());
                        format!(
                            "{} {n}",
                            name.unwrap_or_else(|| format!("piece {}", u.index() + 1))
                        )
                    })
                    .collect();
                if listed.is_empty() {
                    "none".to_string()
                } else {
                    listed.join(", ")
                }
            }
            (Takes::Sides(sides), Value::Side(s)) => sides
                .iter()
                .find(|n| n.id == *s)
                .map_or_else(|| format!("side {}", s.index() + 1), |n| n.name.clone()),
            (Takes::Boxes(boxes), Value::Box(b)) => boxes
                .iter()
                .find(|n| n.id == *b)
                .map_or_else(|| format!("box {}", b.index() + 1), |n| n.name.clone()),
            (_, Value::Number(n)) => n.to_string(),
            (_, Value::Choice(c)) => c.clone(),
            _ => "(does not fit the field)".to_string(),
        };
        let _ = write!(out, "{}: {said}", field.label);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(i: usize) -> UnitId {
        UnitId::from_index(i).unwrap()
    }

    /// A battle's result form in words, as a host's file carries it.
    fn form() -> Vec<Asked> {
        vec![
            Asked {
                id: "losses".into(),
                label: "Strength points lost (§8.6)".into(),
                takes: Takes::Pieces(vec![
                    NamedPiece {
                        name: "1st Brigade".into(),
                        unit: unit(4),
                        most: 3,
                    },
                    NamedPiece {
                        name: "2nd Brigade".into(),
                        unit: unit(2),
                        most: 4,
                    },
                ]),
            },
            Asked {
                id: "holder".into(),
                label: "Holds the field (§8.6)".into(),
                takes: Takes::Choices(vec!["Union".into(), "Confederacy".into()]),
            },
        ]
    }

    fn read(json: &str) -> Result<Entry, String> {
        from_words(&form(), &serde_json::from_str(json).unwrap())
    }

    /// Names become the pieces they stand for, in the form's order, 0 left out; a name
    /// alike but for case is taken; the entry says itself back in words.
    #[test]
    fn an_entry_in_words_becomes_the_values_of_its_form() {
        let e =
            read(r#"{"losses": {"2nd brigade": 1, "1st Brigade": 2}, "holder": "Union"}"#).unwrap();
        assert_eq!(
            e.get("losses"),
            Some(&Value::Pieces(vec![(unit(4), 2), (unit(2), 1)]))
        );
        assert_eq!(e.get("holder"), Some(&Value::Choice("Union".into())));
        assert_eq!(
            describe_words(&form(), &e),
            "Strength points lost (§8.6): 1st Brigade 2, 2nd Brigade 1; Holds the field (§8.6): Union"
        );
        let none = read(r#"{"holder": "Confederacy"}"#).unwrap();
        assert_eq!(none.get("losses"), None, "a pieces field left out: none");
    }

    /// Each mistake names the field and the value.
    #[test]
    fn a_bad_entry_in_words_names_its_field() {
        for (json, says) in [
            (
                r#"{"losses": {"3rd Brigade": 1}, "holder": "Union"}"#,
                "field 'losses'",
            ),
            (
                r#"{"losses": {"1st Brigade": "two"}, "holder": "Union"}"#,
                "not a whole number",
            ),
            (
                r#"{"losses": {"1st Brigade": 4}, "holder": "Union"}"#,
                "is not from 0 to 3",
            ),
            (r#"{"losses": {}}"#, "field 'holder'"),
            (
                r#"{"holder": "Spain"}"#,
                "'Spain' is not one of: Union, Confederacy",
            ),
            (r#"{"holder": "Union", "weather": 1}"#, "field 'weather'"),
            (r#"[1]"#, "an object of field ids"),
        ] {
            let err = read(json).unwrap_err();
            assert!(err.contains(says), "{json}: {err}");
        }
    }
}
