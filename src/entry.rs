//! A referee's decisions at the terminal (`muster play --referee`): when the game waits
//! only for seats of no side (an umpire), the computer referee enters the result (the
//! rules' `referee_entry`, from the game's dice), or a person picks the offer and fills
//! its form field by field; a refused entry is said and asked again.

use std::io::Write;

use anyhow::{Result, bail};
use muster_core::Module;
use muster_core::game::entry::{self, Entry, Field, FieldKind, Value};
use muster_core::game::{Action, GameState, Offer, Rules, apply, awaited, describe, offer};

/// Who enters a referee's decisions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Referee {
    /// The rules' computer referee (`referee_entry`), from the game's dice.
    #[default]
    Computer,
    /// A person at the prompt, field by field.
    Human,
}

/// The action a referee takes now, if the game waits only for referee seats (seats of
/// no side); `None` when it is a side's decision. A person's entry is checked on a
/// copy of the game before it is returned, so the caller's apply takes it.
pub fn referee_action(
    out: &mut impl Write,
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    referee: Referee,
    input: &mut impl Iterator<Item = std::io::Result<String>>,
) -> Result<Option<Action>> {
    let seats = awaited(module, rules, state)?;
    if seats.is_empty() || seats.iter().any(|&s| module.seat(s).side.is_some()) {
        return Ok(None);
    }
    let open: Vec<Offer> = offer::offers(module, rules, state)?
        .into_iter()
        .filter(|o| o.seat.is_some_and(|s| seats.contains(&s)))
        .collect();
    let Some(first) = open.first() else {
        return Ok(None);
    };
    if referee == Referee::Computer {
        return Ok(Some(first.action()));
    }
    loop {
        writeln!(out, "\n{}:", describe::situation(module, state))?;
        let offer = if open.len() == 1 {
            &open[0]
        } else {
            let labels: Vec<&str> = open.iter().map(|o| o.label.as_str()).collect();
            &open[pick(out, input, "Which decision", &labels)?]
        };
        let mut action = offer.action();
        if !offer.form.is_empty() {
            writeln!(out, "{} (the referee enters it)", offer.label)?;
            let entered = fill(out, module, state, &offer.form, input)?;
            if let Action::Take { entry, .. } = &mut action {
                *entry = Some(entered);
            }
        }
        match apply(module, rules, state, &action) {
            Ok(_) => return Ok(Some(action)),
            Err(e) => writeln!(out, "refused: {e}; enter it again")?,
        }
    }
}

/// Asks each field of `form` in turn.
fn fill(
    out: &mut impl Write,
    module: &Module,
    state: &GameState,
    form: &[Field],
    input: &mut impl Iterator<Item = std::io::Result<String>>,
) -> Result<Entry> {
    let mut entry = Entry::default();
    for field in form {
        let value = match &field.kind {
            FieldKind::Pieces(pieces) => {
                writeln!(out, "{} (Enter: 0):", field.label)?;
                let mut given = Vec::new();
                for &(unit, most) in pieces {
                    let name = describe::unit(module, state, unit);
                    let n = number(out, input, &format!("  {name}"), 0, most, Some(0))?;
                    if n != 0 {
                        given.push((unit, n));
                    }
                }
                Value::Pieces(given)
            }
            FieldKind::Side(sides) => {
                let names: Vec<&str> = sides
                    .iter()
                    .map(|&s| module.side(s).name.as_str())
                    .collect();
                Value::Side(sides[pick(out, input, &field.label, &names)?])
            }
            FieldKind::Box(boxes) => {
                let names: Vec<&str> = boxes
                    .iter()
                    .map(|&b| module.board.get(b).name.as_str())
                    .collect();
                Value::Box(boxes[pick(out, input, &field.label, &names)?])
            }
            FieldKind::Number { min, max } => {
                Value::Number(number(out, input, &field.label, *min, *max, None)?)
            }
            FieldKind::Choice(labels) => {
                let names: Vec<&str> = labels.iter().map(String::as_str).collect();
                Value::Choice(labels[pick(out, input, &field.label, &names)?].clone())
            }
        };
        entry.set(field.id.clone(), value);
    }
    writeln!(
        out,
        "entered: {}",
        entry::describe(module, state, form, &entry)
    )?;
    Ok(entry)
}

/// One line of input, trimmed; an error once input ends.
fn line(input: &mut impl Iterator<Item = std::io::Result<String>>) -> Result<String> {
    match input.next() {
        Some(l) => Ok(l?.trim().to_string()),
        None => bail!("the input ended while the referee was entering a result"),
    }
}

/// One of `labels`, by its number (1 first), asked until a number in range is given.
fn pick(
    out: &mut impl Write,
    input: &mut impl Iterator<Item = std::io::Result<String>>,
    what: &str,
    labels: &[&str],
) -> Result<usize> {
    loop {
        writeln!(out, "{what}:")?;
        for (i, l) in labels.iter().enumerate() {
            writeln!(out, "  {}. {l}", i + 1)?;
        }
        write!(out, "> ")?;
        out.flush()?;
        let text = line(input)?;
        match text.parse::<usize>() {
            Ok(n) if (1..=labels.len()).contains(&n) => return Ok(n - 1),
            _ => writeln!(out, "'{text}': give a number from 1 to {}", labels.len())?,
        }
    }
}

/// A whole number from `min` to `max`, asked until one is given (an empty line gives
/// `default`, where there is one).
fn number(
    out: &mut impl Write,
    input: &mut impl Iterator<Item = std::io::Result<String>>,
    what: &str,
    min: i64,
    max: i64,
    default: Option<i64>,
) -> Result<i64> {
    loop {
        write!(out, "{what} ({min}-{max}): ")?;
        out.flush()?;
        let text = line(input)?;
        if text.is_empty()
            && let Some(d) = default
        {
            return Ok(d);
        }
        match text.parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => return Ok(n),
            _ => writeln!(out, "'{text}': give a whole number from {min} to {max}")?,
        }
    }
}
