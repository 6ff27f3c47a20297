//! What a human at `muster play`'s prompt can ask besides an action's number: `help`,
//! `board` (where everything stands), and an action by its words.

use std::collections::BTreeMap;

use muster_core::Module;
use muster_core::game::rules::Progress;
use muster_core::game::{Action, GameState, describe};
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

/// The action `words` names: the one whose words are exactly these (ignoring case),
/// else the only one whose words contain them (three letters at least, so a stray key
/// takes nothing). `Err` says why none was taken: no match, or the candidates when
/// several match.
pub fn by_words(
    module: &Module,
    state: &GameState,
    legal: &[Action],
    words: &str,
) -> Result<Action, String> {
    let wanted = words.to_lowercase();
    let described: Vec<String> = legal
        .iter()
        .map(|a| describe::action(module, state, a).to_lowercase())
        .collect();
    if let Some(i) = described.iter().position(|d| *d == wanted) {
        return Ok(legal[i].clone());
    }
    let matching: Vec<usize> = if wanted.chars().count() < 3 {
        Vec::new()
    } else {
        (0..legal.len())
            .filter(|&i| described[i].contains(&wanted))
            .collect()
    };
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
