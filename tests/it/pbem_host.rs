//! A hosted game by file in one process (issue 43, item 4): the host's API with seats
//! that seek battle, so that the files a seat receives tell of battles fought in and
//! out of its sight. Every seat file names no enemy piece the seat never saw fully, and
//! each seat's files verify against the record. (`tests/it/cli_pbem_host.rs` plays
//! through the CLI.)

use std::collections::{BTreeMap, BTreeSet};

use muster_core::format::Sight;
use muster_core::game::dice::Pcg32;
use muster_core::game::save::{SavedModule, SavedScenario};
use muster_core::game::sight::sights;
use muster_core::game::{Action, GameState, Place, describe};
use muster_core::ids::UnitId;
use muster_core::pbem::host::{
    Answer, HOST_FORMAT, Host, HostSetup, Record, SeatFile, answer_name, to_bytes, verify_seat,
};
use muster_core::pbem::{sha256, to_hex};
use muster_core::{Module, load_module};
use muster_scripting::{Limits, ScriptRules};
use muster_test_support::{CHOOSER_STREAM, root};

/// Each seat's folder: (name, bytes), in the order written.
type Folders = BTreeMap<String, Vec<(String, Vec<u8>)>>;

/// A choice that seeks battle: a march into a box where the seat's view shows enemy
/// pieces (seen or counted), a battle to fight, else any.
fn aggressive(file: &SeatFile, chooser: &mut Pcg32) -> usize {
    let view = file.view.as_ref().expect("a view");
    let side = view["side"].as_str().unwrap_or_default();
    let enemy_boxes: Vec<&str> = view["boxes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| {
            b["unseen"].as_u64() > Some(0)
                || b["pieces"]
                    .as_array()
                    .is_some_and(|p| p.iter().any(|p| p["side"].as_str() != Some(side)))
        })
        .filter_map(|b| b["name"].as_str())
        .collect();
    let attacks: Vec<usize> = file
        .decide
        .iter()
        .enumerate()
        .filter(|(_, c)| match &c.action {
            Action::Move { .. } => enemy_boxes.iter().any(|b| c.words.ends_with(b)),
            Action::Fight { .. } | Action::Target { .. } => true,
            _ => false,
        })
        .map(|(i, _)| i)
        .collect();
    let pick = |n: usize, chooser: &mut Pcg32| (chooser.between_one_and(n as u32) - 1) as usize;
    if !attacks.is_empty() && chooser.between_one_and(4) > 1 {
        return attacks[pick(attacks.len(), chooser)];
    }
    pick(file.decide.len(), chooser)
}

/// A host of `m`'s 1861 game to `end`, every seat by file, and the seats' folders with
/// their first files.
fn host_1861<'m>(m: &'m Module, end: &str) -> (Host<'m>, Folders) {
    let setup = HostSetup {
        module: SavedModule::of(m),
        scenario: SavedScenario {
            id: "1861".into(),
            xml: None,
        },
        options: Vec::new(),
        end: Some(end.into()),
        seats: m.seats.iter().map(|s| s.id.clone()).collect(),
        hosted: Vec::new(),
    };
    let mut host = Host {
        module: m,
        record: Record::new(setup, &[7; 32], &[9; 32]),
        master: Default::default(),
    };
    let mut folders = Folders::new();
    for f in host.first_files() {
        folders.entry(f.seat).or_default().push((f.name, f.bytes));
    }
    (host, folders)
}

/// `seat`'s latest file if it is still to be answered: its name, bytes, contents and
/// the name its answer takes.
fn to_answer(folders: &Folders, seat: &str) -> Option<(String, Vec<u8>, SeatFile, String)> {
    let (name, bytes) = folders[seat]
        .iter()
        .rev()
        .find(|(n, _)| n.ends_with(".seat.json"))?
        .clone();
    let file: SeatFile = serde_json::from_slice(&bytes).unwrap();
    let answered = answer_name(&file.game, seat, file.index);
    if file.over || folders[seat].iter().any(|(n, _)| *n == answered) {
        return None;
    }
    Some((name, bytes, file, answered))
}

/// The answer to `file` (whose bytes are `bytes`) with `action`, its nonce made of `nonce`.
fn answer(file: &SeatFile, bytes: &[u8], nonce: u64, action: Option<Action>) -> Answer {
    Answer {
        pbem_host: HOST_FORMAT,
        game: file.game.clone(),
        seat: file.seat.clone(),
        answers: file.index,
        file: to_hex(&sha256(bytes)),
        nonce: to_hex(&sha256(&nonce.to_le_bytes())),
        action,
    }
}

/// Plays a hosted fog-of-war game to `end`; returns the record and the seats' folders.
fn hosted_game(m: &Module, rules: &mut ScriptRules, end: &str, seed: u64) -> (Record, Folders) {
    let (mut host, mut folders) = host_1861(m, end);
    let mut chooser = Pcg32::new(seed, CHOOSER_STREAM);
    let mut nonce = 0u64;
    for _ in 0..20_000 {
        if host.master.over() {
            let (last, _) = host.outgoing(rules).unwrap();
            for f in last {
                folders.entry(f.seat).or_default().push((f.name, f.bytes));
            }
            return (host.record, folders);
        }
        let seats: Vec<String> = folders.keys().cloned().collect();
        for seat in seats {
            let Some((name, bytes, file, answered)) = to_answer(&folders, &seat) else {
                continue;
            };
            let action = (file.index > 0)
                .then(|| file.decide[aggressive(&file, &mut chooser)].action.clone());
            nonce += 1;
            let bytes = to_bytes(&answer(&file, &bytes, nonce, action));
            host.take(rules, &seat, &answered, &bytes)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            folders.get_mut(&seat).unwrap().push((answered, bytes));
        }
        let (out, errors) = host.outgoing(rules).unwrap();
        assert!(errors.is_empty(), "{errors:?}");
        for f in out {
            folders.entry(f.seat).or_default().push((f.name, f.bytes));
        }
    }
    panic!("the game did not end");
}

/// Whether `line` names the piece `name` (`Cavalry #1` is not named by `Cavalry #12`).
fn names_piece(line: &str, name: &str) -> bool {
    line.match_indices(name).any(|(i, _)| {
        !line[i + name.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                out.push(k.clone());
                strings(x, out);
            }
        }
        _ => {}
    }
}

#[test]
fn battles_by_file_with_a_host_tell_each_seat_only_what_it_saw() {
    let m = load_module(root().join("mods/examples/fog-of-war")).unwrap_or_else(|e| panic!("{e}"));
    let mut rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    let (record, folders) = hosted_game(&m, &mut rules, "12/1861", 3);
    let master = record.replay(&m, &mut rules).unwrap();
    assert!(master.over());
    let shots = master
        .steps
        .iter()
        .filter(|s| matches!(s.action, Action::Target { .. }))
        .count();
    assert!(shots > 0, "shots were fired");
    let states: Vec<&GameState> = std::iter::once(master.start.as_ref().unwrap())
        .chain(master.steps.iter().map(|s| &s.after))
        .collect();
    for (seat, files) in &folders {
        let seat_id = m.find_seat(seat).unwrap();
        let side = m.seat(seat_id).side.unwrap();
        // The enemy pieces on the board the seat never saw fully, by their log names.
        let mut full = BTreeSet::new();
        for state in &states {
            let (seen, errors) = sights(&m, &mut rules, state, seat_id);
            assert!(errors.is_empty(), "{errors:?}");
            full.extend((0..seen.len()).filter(|&i| seen[i] == Sight::Full));
        }
        let mut never = BTreeSet::new();
        for state in &states {
            for (i, u) in state.units.iter().enumerate() {
                if u.side != side && !full.contains(&i) && matches!(u.place, Place::Board(_)) {
                    let name = describe::unit(&m, state, UnitId::from_index(i).unwrap());
                    never.insert(name.trim_end_matches(" (reduced)").to_string());
                }
            }
        }
        assert!(!never.is_empty(), "{seat} had pieces hidden from it");
        let mut shots_seen = 0;
        for (name, bytes) in files {
            let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
            let mut all = Vec::new();
            strings(&v, &mut all);
            for line in &all {
                for hidden in &never {
                    assert!(
                        !names_piece(line, hidden),
                        "{name}: {seat} never saw {hidden}: {line}"
                    );
                }
            }
            let log = v["log"].as_array().into_iter().flatten();
            shots_seen += log
                .filter(|l| l.as_str().is_some_and(|l| l.contains(" fires at ")))
                .count();
        }
        verify_seat(&m, &mut rules, &record, seat, files).unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "{seat}: {} files, {} pieces never seen fully, {shots_seen} shots read in its logs; {shots} in the game",
            files.len(),
            never.len()
        );
    }
}

/// A house rule on fog of war whose offer asks the side on move to name an enemy piece:
/// its form lists every enemy piece on the board, most of them out of the seat's sight.
fn guessing_mod(dir: &std::path::Path) -> std::path::PathBuf {
    let house = dir.join("guess");
    std::fs::create_dir_all(house.join("rules")).unwrap();
    std::fs::write(
        house.join("module.xml"),
        format!(
            r#"<module id="guess" name="Guess" version="0" engine="0.1">
  <extends module="fog-of-war" path="{}"/>
  <rules entry="rules/init.luau"/>
</module>"#,
            root().join("mods/examples/fog-of-war").display()
        ),
    )
    .unwrap();
    std::fs::write(
        house.join("rules/init.luau"),
        r#"
hooks.on("offers", function(game, step, wanted)
	if game:var("guessed") ~= 0 then
		return nil
	end
	local side = game:active_side()
	local pieces = {}
	local enemy = nil
	for _, u in game:units_on_board() do
		if game:unit_side(u) ~= side then
			pieces[u] = 1
			enemy = enemy or u
		end
	end
	if enemy == nil then
		return nil
	end
	return { { id = "guess", label = "name an enemy piece",
		form = { { id = "piece", label = "The piece", pieces = pieces } } } }
end, { id = "guess.offers" })
hooks.on("offer_taken", function(game, offer)
	if offer.id ~= "guess" then
		return nil
	end
	for u, n in offer.entry.piece do
		if n > 0 then
			return { { kind = "set_var", name = "guessed", value = u } }
		end
	end
	return { { kind = "set_var", name = "guessed", value = -1 } }
end, { id = "guess.taken" })
"#,
    )
    .unwrap();
    house
}

/// Fail closed: a host's file names a piece its seat does not fully see by a stand-in,
/// never by its id (which is the same all game and would tell which piece it is), in
/// its choices and in their forms; the seat's answer naming the stand-in is read as the
/// piece it stands for, an answer naming the hidden piece's own id is refused, and the
/// seat's files and answers verify against the record.
#[test]
fn a_seat_file_names_a_hidden_piece_by_a_stand_in_never_by_its_id() {
    use muster_core::game::entry::Value;
    use muster_core::game::entry::{Takes, from_words};
    use muster_core::game::offer::offers;

    let tmp = tempfile::tempdir().unwrap();
    let m = load_module(guessing_mod(tmp.path())).unwrap_or_else(|e| panic!("{e}"));
    let mut rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    let (mut host, mut folders) = host_1861(&m, "08/1861");
    let mut nonce = 0u64;
    let mut guessed = None;
    let mut stand_ins_seen = 0;
    'game: for _ in 0..200 {
        let seats: Vec<String> = folders.keys().cloned().collect();
        for seat in seats {
            let Some((_, bytes, file, answered)) = to_answer(&folders, &seat) else {
                continue;
            };
            let mut answer = answer(&file, &bytes, nonce, None);
            nonce += 1;
            if file.index > 0 {
                // Every piece a choice or its form names is one the seat sees fully, or
                // a stand-in past every real piece.
                let state = host.master.state_at(file.at).unwrap().clone();
                let seat_id = m.find_seat(&seat).unwrap();
                let (seen, _) = sights(&m, &mut rules, &state, seat_id);
                let shown =
                    |u: UnitId| u.index() >= state.units.len() || seen[u.index()] == Sight::Full;
                for c in &file.decide {
                    c.action.map_units(|u| {
                        assert!(
                            shown(u),
                            "{seat}'s file {} names hidden piece {u:?}: {}",
                            file.index,
                            c.words
                        );
                        stand_ins_seen += usize::from(u.index() >= state.units.len());
                        u
                    });
                    for f in &c.form {
                        if let Takes::Pieces(pieces) = &f.takes {
                            for p in pieces {
                                assert!(
                                    shown(p.unit),
                                    "{seat}'s form names hidden piece {:?} ({})",
                                    p.unit,
                                    p.name
                                );
                                stand_ins_seen += usize::from(p.unit.index() >= state.units.len());
                            }
                        }
                    }
                }
                let guess = file
                    .decide
                    .iter()
                    .find(|c| matches!(&c.action, Action::Take { offer, .. } if offer == "guess"));
                answer.action = Some(match guess {
                    Some(choice) if guessed.is_none() => {
                        // The piece the form names first as unseen, as the host knows it.
                        let listed = offers(&m, &mut rules, &state).unwrap();
                        let form = &listed.iter().find(|o| o.id == "guess").unwrap().form;
                        let muster_core::game::FieldKind::Pieces(pieces) = &form[0].kind else {
                            panic!("a pieces field")
                        };
                        let real = pieces
                            .iter()
                            .map(|&(u, _)| u)
                            .find(|u| seen[u.index()] != Sight::Full)
                            .expect("an enemy piece out of sight");
                        let entry = from_words(
                            &choice.form,
                            &serde_json::json!({ "piece": { "an unseen piece": 1 } }),
                        )
                        .unwrap_or_else(|e| panic!("{e}"));
                        let Some(Value::Pieces(given)) = entry.get("piece") else {
                            panic!("a pieces value")
                        };
                        assert!(
                            given.iter().all(|(u, _)| u.index() >= state.units.len()),
                            "the entry names the piece by its stand-in: {given:?}"
                        );
                        let mut take = choice.action.clone();
                        if let Action::Take { entry: e, .. } = &mut take {
                            *e = Some(Box::new(entry));
                        }
                        // The hidden piece's own id is not in the file's form.
                        let mut cheat = answer.clone();
                        cheat.action = Some(take.map_units(|u| {
                            if u.index() >= state.units.len() {
                                real
                            } else {
                                u
                            }
                        }));
                        let refused = host.take(&mut rules, &seat, &answered, &to_bytes(&cheat));
                        assert!(
                            refused.as_ref().is_err_and(|e| e
                                .to_string()
                                .contains("names a piece its file's form does not list")),
                            "{refused:?}"
                        );
                        guessed = Some(real);
                        take
                    }
                    _ => file.decide[0].action.clone(),
                });
            }
            let bytes = to_bytes(&answer);
            host.take(&mut rules, &seat, &answered, &bytes)
                .unwrap_or_else(|e| panic!("{answered}: {e}"));
            folders.get_mut(&seat).unwrap().push((answered, bytes));
            if guessed.is_some() {
                break 'game;
            }
        }
        let (out, errors) = host.outgoing(&mut rules).unwrap();
        assert!(errors.is_empty(), "{errors:?}");
        for f in out {
            folders.entry(f.seat).or_default().push((f.name, f.bytes));
        }
    }
    let real = guessed.expect("the guess was offered and taken");
    assert!(
        stand_ins_seen > 0,
        "a form named hidden pieces by their stand-ins"
    );
    let state = host.master.state().unwrap();
    assert_eq!(
        state.var("guessed"),
        real.index() as i64 + 1,
        "the rules were told the piece the stand-in stands for"
    );
    for (seat, files) in &folders {
        verify_seat(&m, &mut rules, &host.record, seat, files)
            .unwrap_or_else(|e| panic!("{seat}: {e}"));
    }
}
