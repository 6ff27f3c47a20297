//! What a human at `muster play`'s prompt can ask besides an action's number: `help`,
//! `board` (where everything stands), and an action by its words.

use std::collections::BTreeMap;

use muster_core::Module;
use muster_core::game::rules::Progress;
use muster_core::game::{Action, GameState, Rules, describe, why_not};
use muster_core::ids::{BoxId, SideId};

/// The prompt's commands, for `help`.
pub const HELP: &str = "\
  N          take action number N of the list
  WORDS      take the action whose words are WORDS, or the only one containing them
             (e.g. \"activate Washington\"); case does not matter
  board      where every piece stands, who holds what, what is threatened, and how
             near each side is to winning
  help       this list
  u, undo    take back the last move (while moving)
  q, quit    stop the game (with --save, it is saved)";

/// How near each side is to its victory conditions, as the rules count them
/// (`victory_progress`); nothing when the rules give no count.
pub fn progress(module: &Module, progress: &[Progress]) -> Vec<String> {
    if progress.is_empty() {
        return Vec::new();
    }
    let mut out = vec!["To win:".to_string()];
    for p in progress {
        out.push(format!(
            "  {}: {}: {} of {}",
            module.side(p.side).name,
            p.goal,
            p.have,
            p.need
        ));
    }
    out
}

/// Every box holding pieces, with its holder and the pieces by side and type (flags
/// and reduced pieces shown); then the boxes held by a side other than their owner,
/// and `side`'s boxes next to enemy pieces.
pub fn board(module: &Module, state: &GameState, side: SideId) -> Vec<String> {
    let mut out = vec!["Pieces on the board:".to_string()];
    for at in module.board.box_ids() {
        let mut stacks: BTreeMap<(SideId, String), u32> = BTreeMap::new();
        for u in state.units_at(at) {
            let unit = state.unit(u);
            let mut name = module.units.get(unit.kind).id.clone();
            if unit.hits > 0 {
                name.push_str(" (reduced)");
            }
            if !unit.flags.is_empty() {
                name.push_str(&format!(" ({})", module.units.flag_names(unit.flags)));
            }
            *stacks.entry((unit.side, name)).or_default() += 1;
        }
        if stacks.is_empty() {
            continue;
        }
        let mut by_side: BTreeMap<SideId, Vec<String>> = BTreeMap::new();
        for ((s, name), n) in stacks {
            by_side.entry(s).or_default().push(format!("{n} {name}"));
        }
        let pieces: Vec<String> = by_side
            .into_iter()
            .map(|(s, list)| format!("{}: {}", module.side(s).name, list.join(", ")))
            .collect();
        out.push(format!(
            "  {} [{}] {}",
            describe::place(module, at),
            holder(module, state, at),
            pieces.join("; ")
        ));
    }
    let taken: Vec<String> = module
        .board
        .box_ids()
        .filter_map(|at| {
            let now = state.controller(at)?;
            (module.board.get(at).owner != Some(now)).then(|| {
                format!(
                    "{} ({})",
                    describe::place(module, at),
                    module.side(now).name
                )
            })
        })
        .collect();
    if !taken.is_empty() {
        out.push(format!(
            "Held by a side not their own: {}",
            taken.join(", ")
        ));
    }
    let threatened: Vec<&str> = module
        .board
        .box_ids()
        .filter(|&at| {
            state.controller(at) == Some(side) && enemy_next_door(module, state, at, side)
        })
        .map(|at| describe::place(module, at))
        .collect();
    if !threatened.is_empty() {
        out.push(format!(
            "{}'s boxes next to enemy pieces: {}",
            module.side(side).name,
            threatened.join(", ")
        ));
    }
    out
}

fn holder(module: &Module, state: &GameState, at: BoxId) -> String {
    state
        .controller(at)
        .map_or("neutral".to_string(), |s| module.side(s).name.clone())
}

fn enemy_next_door(module: &Module, state: &GameState, at: BoxId, side: SideId) -> bool {
    module
        .board
        .neighbours(at)
        .iter()
        .any(|&(n, _)| state.units_at(n).any(|u| state.unit(u).side != side))
}

/// How well typed words name an action's words.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Fit {
    No,
    /// Each typed word begins one of the action's words (a piece's number, `#1`, is
    /// the whole word), or the text is found in them as typed.
    Part,
    /// The same words.
    Exact,
}

/// How `wanted` (lower case) fits `described` (lower case): the same words; or every
/// typed word found among the action's words, in any order (`#1 manassas` names `move
/// Militia Infantry #1 Washington -rail-> Manassas Junction`); or the text as typed
/// inside them. Three letters at least, so a stray key takes nothing.
fn fit(described: &str, wanted: &str) -> Fit {
    if described == wanted {
        return Fit::Exact;
    }
    if wanted.chars().count() < 3 && !wanted.starts_with('#') {
        return Fit::No;
    }
    // A piece's number is a whole word: `#1` is not in `#12`.
    if !wanted.contains('#') && described.contains(wanted) {
        return Fit::Part;
    }
    let words: Vec<&str> = described
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '#'))
        .filter(|w| !w.is_empty())
        .collect();
    let each = wanted
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '#'))
        .filter(|w| !w.is_empty())
        .all(|typed| {
            words.iter().any(|w| {
                if typed.starts_with('#') {
                    *w == typed
                } else {
                    w.starts_with(typed)
                }
            })
        });
    if each { Fit::Part } else { Fit::No }
}

/// The action `words` names: the one whose words are exactly these (ignoring case),
/// else the only one they fit (see [`fit`]). `Err` says why none was taken: no match,
/// or the candidates when several match.
pub fn by_words(
    module: &Module,
    state: &GameState,
    legal: &[Action],
    words: &str,
) -> Result<Action, String> {
    let wanted = words.trim().to_lowercase();
    let described: Vec<String> = legal
        .iter()
        .map(|a| describe::action(module, state, a).to_lowercase())
        .collect();
    if let Some(i) = described.iter().position(|d| *d == wanted) {
        return Ok(legal[i].clone());
    }
    let mut matching: Vec<usize> = (0..legal.len())
        .filter(|&i| fit(&described[i], &wanted) != Fit::No)
        .collect();
    // Several words that end as only one of the actions ends name that one: `#2
    // baltimore` is the move that ends in Baltimore, not one that goes on through it.
    let typed: Vec<&str> = wanted.split_whitespace().collect();
    if matching.len() > 1 && typed.len() > 1 {
        let last = typed[typed.len() - 1];
        // Where each action ends: the words after its last arrow, "to" or "in".
        let ends = |i: usize| {
            let d = described[i].as_str();
            ["> ", " to ", " in "]
                .iter()
                .filter_map(|sep| d.rfind(sep).map(|k| &d[k + sep.len()..]))
                .min_by_key(|rest| rest.len())
                .unwrap_or(d)
        };
        // The whole box typed, else the start of its name typed last.
        let whole: Vec<usize> = matching
            .iter()
            .copied()
            .filter(|&i| wanted.ends_with(ends(i)))
            .collect();
        let started: Vec<usize> = matching
            .iter()
            .copied()
            .filter(|&i| ends(i).starts_with(last))
            .collect();
        if whole.len() == 1 {
            matching = whole;
        } else if started.len() == 1 {
            matching = started;
        }
    }
    match matching.as_slice() {
        [i] => Ok(legal[*i].clone()),
        [] => Err(format!(
            "'{words}' is neither a number from 1 to {} nor the words of an action; type help",
            legal.len()
        )),
        several => {
            let shown: Vec<String> = several
                .iter()
                .take(6)
                .map(|&i| format!("{}. {}", i + 1, describe::action(module, state, &legal[i])))
                .collect();
            let more = if several.len() > 6 { ", ..." } else { "" };
            Err(format!(
                "'{words}' matches {} actions: {}{more}; type more of the words or the number",
                several.len(),
                shown.join(", ")
            ))
        }
    }
}

/// The actions words might name that are not legal now, to say why not: a selection of
/// any box, a battle anywhere, a placement of any type anywhere, a promotion, a
/// reinforcement or a target of any piece on the board, and a one-line move of a
/// piece of the selected box. Only listed once the words fit no legal action.
fn conceivable(module: &Module, state: &GameState) -> Vec<Action> {
    let mut out = Vec::new();
    for at in module.board.box_ids() {
        out.push(Action::Select { at });
        out.push(Action::Fight { at });
        out.push(Action::Retreat { to: at });
        for kind in module.units.ids() {
            out.push(Action::Place { kind, at });
        }
    }
    let on_board: Vec<_> = state
        .unit_ids()
        .filter(|&u| matches!(state.unit(u).place, muster_core::game::Place::Board(_)))
        .collect();
    for &unit in &on_board {
        out.push(Action::Upgrade { unit });
        out.push(Action::Reinforce { unit });
    }
    if let Some(b) = state.combat.as_ref().and_then(|c| c.battle.as_ref()) {
        for &shooter in b.attackers.iter().chain(&b.defenders) {
            for &target in b.attackers.iter().chain(&b.defenders) {
                if state.unit(shooter).side != state.unit(target).side {
                    out.push(Action::Target { shooter, target });
                }
            }
        }
    }
    if let Some(a) = state.moving.as_ref().and_then(|m| m.active.as_ref()) {
        for unit in state.units_at(a.at) {
            for &(to, line) in module.board.neighbours(a.at) {
                let path = muster_core::game::Path {
                    from: a.at,
                    steps: vec![muster_core::game::Step { line, to }],
                };
                out.push(Action::Move { unit, path });
            }
        }
    }
    out
}

/// Why the action `words` name cannot be taken, when they fit no legal action but do
/// name one the game knows (`march: activate Richmond` in the Union's turn): the
/// engine's check and the rules' handlers that said no ([`why_not`]). `None` when the
/// words name no action, or several (then the usual hint is better).
pub fn refusal(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    legal: &[Action],
    words: &str,
) -> Option<String> {
    let wanted = words.trim().to_lowercase();
    if legal
        .iter()
        .any(|a| fit(&describe::action(module, state, a).to_lowercase(), &wanted) != Fit::No)
    {
        return None;
    }
    let candidates = conceivable(module, state);
    let fits: Vec<(Fit, &Action)> = candidates
        .iter()
        .map(|a| {
            (
                fit(&describe::action(module, state, a).to_lowercase(), &wanted),
                a,
            )
        })
        .filter(|(f, _)| *f != Fit::No)
        .collect();
    let best = fits.iter().map(|(f, _)| *f).max()?;
    let named: Vec<&Action> = fits
        .iter()
        .filter(|(f, _)| *f == best)
        .map(|(_, a)| *a)
        .collect();
    let [action] = named.as_slice() else {
        return None;
    };
    match why_not(module, rules, state, action) {
        Ok(Some(r)) => Some(r.to_string()),
        Ok(None) => None,
        Err(e) => Some(format!("the rules failed saying why: {e}")),
    }
}

#[cfg(test)]
mod tests {
    //! Each form of words the prompt suggests, checked against the parser on positions
    //! of random AHD games (issue 46, item 6: "#1 manassas" was refused).
    use muster_core::game::legal_actions;
    use muster_test_support::{RandomGame, ahd};

    use super::*;

    /// The words printed in the list take the action they describe; `#N BOX`, a
    /// piece's number and where it goes (the prompt's "type more of the words"), takes
    /// the piece's one move ending there, or lists only that piece's moves.
    #[test]
    fn every_hint_the_prompt_prints_is_understood() {
        let (m, mut rules) = ahd();
        let states: Vec<GameState> = {
            let (m2, mut r2) = ahd();
            let s: Vec<GameState> = RandomGame::new(&m2, &mut r2, "1861", 4).take(400).collect();
            s
        };
        let (mut listed, mut numbered) = (0, 0);
        for state in &states {
            let legal = legal_actions(&m, &mut rules, state).unwrap();
            let words: Vec<String> = legal
                .iter()
                .map(|a| describe::action(&m, state, a))
                .collect();
            for (a, w) in legal.iter().zip(&words) {
                if words.iter().filter(|x| x.eq_ignore_ascii_case(w)).count() > 1 {
                    continue;
                }
                assert_eq!(by_words(&m, state, &legal, w).as_ref(), Ok(a), "{w}");
                listed += 1;
                let Action::Move { unit, path } = a else {
                    continue;
                };
                let n = state.unit(*unit).number;
                let to = describe::place(&m, path.to());
                let typed = format!("#{n} {to}");
                let ending_there = legal
                    .iter()
                    .filter(|b| matches!(b, Action::Move { unit: u, path: p } if u == unit && p.to() == path.to()))
                    .count();
                match by_words(&m, state, &legal, &typed) {
                    Ok(b) => {
                        assert_eq!(ending_there, 1, "{typed}");
                        assert_eq!(&b, a, "{typed}");
                    }
                    Err(why) => {
                        assert!(ending_there > 1, "{typed}: {why}");
                        assert!(why.contains("type more of the words"), "{why}");
                    }
                }
                numbered += 1;
            }
        }
        assert!(
            listed > 1000 && numbered > 100,
            "{listed} listed, {numbered} numbered"
        );
    }

    /// `help`'s example, and a piece's number alone once several words are typed.
    #[test]
    fn the_help_example_and_a_number_with_a_box() {
        let (m, mut rules) = ahd();
        let mut game = RandomGame::new(&m, &mut rules, "1861", 7);
        let start = game.next().unwrap();
        drop(game);
        let (m, mut rules) = ahd();
        let legal = legal_actions(&m, &mut rules, &start).unwrap();
        let washington = m.board.find("Washington").unwrap();
        assert_eq!(
            by_words(&m, &start, &legal, "activate Washington"),
            Ok(Action::Select { at: washington })
        );
        let (next, _) =
            muster_core::game::apply(&m, &mut rules, &start, &Action::Select { at: washington })
                .unwrap();
        let legal = legal_actions(&m, &mut rules, &next).unwrap();
        let a = by_words(&m, &next, &legal, "#1 manassas").unwrap();
        assert_eq!(
            describe::action(&m, &next, &a),
            "move Militia Infantry #1 Washington -rail-> Manassas Junction"
        );
        // "#1" is that piece, never #12.
        assert!(fit("move militia infantry #12 washington", "#1") == Fit::No);
    }
}
