//! A referee's decisions at the terminal (`muster play --referee`): when the game waits
//! only for seats of no side (an umpire), the computer referee enters the result (the
//! rules' `referee_entry`, from the game's dice), or a person picks the offer and fills
//! its form field by field; a refused entry is said and asked again. The same asking
//! serves a referee by file (`muster pbem play --seat umpire`), from the form in words
//! the host's file carries ([`fill`]).

use std::io::Write;

use anyhow::{Result, bail};
use muster_core::Module;
use muster_core::game::entry::{self, Asked, Entry, Takes, Value};
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
    // Most modules have no referee: asking whom the game waits for would list the
    // rules' offers once more at every decision.
    if module.seats.iter().all(|s| s.side.is_some()) {
        return Ok(None);
    }
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
            let asked = entry::in_words(module, state, &offer.form, |_| false);
            let entered = fill(out, &asked, input)?;
            if let Action::Take { entry, .. } = &mut action {
                *entry = Some(Box::new(entered));
            }
        }
        match apply(module, rules, state, &action) {
            Ok(_) => return Ok(Some(action)),
            Err(e) => writeln!(out, "refused: {e}; enter it again")?,
        }
    }
}

/// Asks each field of a form in words in turn (the names are the form's: a referee by
/// file has no game to name pieces from).
pub fn fill(
    out: &mut impl Write,
    form: &[Asked],
    input: &mut impl Iterator<Item = std::io::Result<String>>,
) -> Result<Entry> {
    let mut entry = Entry::default();
    for field in form {
        let value = match &field.takes {
            Takes::Pieces(pieces) => {
                writeln!(out, "{} (Enter: 0):", field.label)?;
                let mut given = Vec::new();
                for p in pieces {
                    let n = number(out, input, &format!("  {}", p.name), 0, p.most, Some(0))?;
                    if n != 0 {
                        given.push((p.unit, n));
                    }
                }
                Value::Pieces(given)
            }
            Takes::Sides(sides) => {
                let names: Vec<&str> = sides.iter().map(|s| s.name.as_str()).collect();
                Value::Side(sides[pick(out, input, &field.label, &names)?].id)
            }
            Takes::Boxes(boxes) => {
                let names: Vec<&str> = boxes.iter().map(|b| b.name.as_str()).collect();
                Value::Box(boxes[pick(out, input, &field.label, &names)?].id)
            }
            Takes::Number { min, max } => {
                Value::Number(number(out, input, &field.label, *min, *max, None)?)
            }
            Takes::Choices(labels) => {
                let names: Vec<&str> = labels.iter().map(String::as_str).collect();
                Value::Choice(labels[pick(out, input, &field.label, &names)?].clone())
            }
        };
        entry.set(field.id.clone(), value);
    }
    writeln!(out, "entered: {}", entry::describe_words(form, &entry))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use muster_core::game::Place;
    use muster_core::game::entry::FieldKind;
    use muster_core::load_stack;
    use muster_scripting::{Limits, ScriptRules};
    use muster_test_support::{RandomGame, ahd_dir, root};

    /// The umpire mod at its first battle of a random 1861 game (seed 1).
    fn at_a_battle() -> (Module, ScriptRules, GameState) {
        let m = load_stack(ahd_dir(), &[root().join("mods/examples/umpire")]).unwrap();
        let mut rules = ScriptRules::load(&m, Limits::default()).unwrap();
        let ump = m.find_seat("umpire").unwrap();
        let states: Vec<GameState> = RandomGame::new(&m, &mut rules, "1861", 1)
            .take(3000)
            .collect();
        let g = states
            .into_iter()
            .find(|g| awaited(&m, &mut rules, g).unwrap() == vec![ump])
            .expect("a battle");
        (m, rules, g)
    }

    /// `muster play --referee human`: the umpire is asked each field; an entry the
    /// rules refuse (the holder left with nothing, seed 001 §8.6) is said and asked
    /// again; a number out of range is asked again; the entry returned is what was
    /// typed.
    #[test]
    fn a_person_enters_a_result_field_by_field() {
        let (m, mut rules, g) = at_a_battle();
        let o = offer::offers(&m, &mut rules, &g).unwrap().remove(0);
        let FieldKind::Pieces(pieces) = &o.form[0].kind else {
            panic!("{:?}", o.form)
        };
        let FieldKind::Side(sides) = &o.form[1].kind else {
            panic!("{:?}", o.form)
        };
        let (first, most) = pieces[0];
        let side = g.unit(first).side;
        let holder = (sides.iter().position(|&s| s == side).unwrap() + 1).to_string();
        // First: every piece of `side` loses all it has, and `side` holds the field.
        let mut lines: Vec<String> = pieces
            .iter()
            .map(|&(u, n)| {
                if g.unit(u).side == side {
                    n.to_string()
                } else {
                    String::new()
                }
            })
            .collect();
        lines.push(holder.clone());
        // Then: a number out of range for the first piece, asked again (Enter: 0),
        // nothing lost by the others, the same holder.
        lines.push((most + 1).to_string());
        lines.extend(std::iter::repeat_n(String::new(), pieces.len()));
        lines.push(holder);
        let mut input = lines.into_iter().map(Ok);
        let mut out = Vec::new();
        let action = referee_action(&mut out, &m, &mut rules, &g, Referee::Human, &mut input)
            .unwrap()
            .expect("the umpire's decision");
        let shown = String::from_utf8(out).unwrap();
        assert!(
            shown.contains("refused: not allowed: 'result of the battle at"),
            "{shown}"
        );
        assert!(
            shown.contains(&format!("give a whole number from 0 to {most}")),
            "{shown}"
        );
        let Action::Take { entry: Some(e), .. } = &action else {
            panic!("{action:?}")
        };
        assert_eq!(e.get("losses"), Some(&Value::Pieces(Vec::new())));
        assert_eq!(e.get("holder"), Some(&Value::Side(side)));
        let (after, _) = apply(&m, &mut rules, &g, &action).unwrap();
        let at = o.at.unwrap();
        assert!(after.units_at(at).all(|u| after.unit(u).side == side));
        assert_eq!(after.unit(first).place, Place::Board(at));
    }

    /// With the computer referee the offer is taken as listed: the rules enter it.
    #[test]
    fn the_computer_referee_takes_the_offer_as_listed() {
        let (m, mut rules, g) = at_a_battle();
        let mut none = std::iter::empty();
        let action = referee_action(
            &mut Vec::new(),
            &m,
            &mut rules,
            &g,
            Referee::Computer,
            &mut none,
        )
        .unwrap()
        .unwrap();
        assert!(matches!(&action, Action::Take { entry: None, .. }));
    }
}
