//! The miniatures campaign module (`mods/vb-campaign`, issue 47; seed 001): what its
//! `muster test` cases cannot see because they act for the side, not a seat: the
//! president's allocation of the marches and the commanders who move only their own
//! formations with the marches allocated to them (§2, §7); organisations refused by the
//! module's capacities and composition rules naming their section (§6.11, §6.22, §6.23);
//! a scenario's member placed outside its formation's box or over a capacity.

use std::path::PathBuf;

use muster_core::format::Sight;
use muster_core::game::describe;
use muster_core::game::formations::Change;
use muster_core::game::save::{SavedModule, SavedScenario};
use muster_core::game::sight::sights;
use muster_core::game::{
    Action, Dice, GameState, Place, apply_by, awaited, legal_actions_for, start,
};
use muster_core::ids::{SeatId, UnitId};
use muster_core::load::load_scenario_str;
use muster_core::pbem::host::{
    Answer, Choice, HOST_FORMAT, Host, HostError, HostSetup, Record, SeatFile, answer_name,
    to_bytes, verify_seat,
};
use muster_core::pbem::{sha256, to_hex};
use muster_core::{Module, load_module};
use muster_scripting::{Limits, ScriptRules};

fn load() -> (Module, ScriptRules) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("mods/vb-campaign");
    let m = load_module(dir).unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    (m, rules)
}

fn begin(m: &Module, rules: &mut ScriptRules) -> GameState {
    let s = m.scenario("1861").expect("scenario");
    start(m, rules, s, Vec::new(), Dice::seeded(3))
        .unwrap_or_else(|e| panic!("{e}"))
        .0
}

fn seat(m: &Module, id: &str) -> SeatId {
    m.find_seat(id).unwrap_or_else(|| panic!("no seat {id}"))
}

/// A side's amount of a resource.
fn resource(m: &Module, g: &GameState, id: &str, side: &str) -> i64 {
    g.resource(m.find_side(side).unwrap(), m.find_resource(id).unwrap())
}

fn named(g: &GameState, name: &str) -> UnitId {
    g.names
        .iter()
        .find(|(_, n)| n == name)
        .unwrap_or_else(|| panic!("no piece named {name}"))
        .0
}

/// The seat's legal actions in words.
fn words(m: &Module, rules: &mut ScriptRules, g: &GameState, s: SeatId) -> Vec<String> {
    legal_actions_for(m, rules, g, s)
        .unwrap()
        .iter()
        .map(|a| describe::action(m, g, a))
        .collect()
}

/// Takes the seat's action whose words contain `what`.
fn act(m: &Module, rules: &mut ScriptRules, g: &GameState, s: SeatId, what: &str) -> GameState {
    let a = legal_actions_for(m, rules, g, s)
        .unwrap()
        .into_iter()
        .find(|a| describe::action(m, g, a).contains(what))
        .unwrap_or_else(|| panic!("no '{what}' in {:?}", words(m, rules, g, s)));
    apply_by(m, rules, g, s, &a)
        .unwrap_or_else(|e| panic!("{what}: {e}"))
        .0
}

fn moves_of(m: &Module, rules: &mut ScriptRules, g: &GameState, s: SeatId, unit: UnitId) -> usize {
    legal_actions_for(m, rules, g, s)
        .unwrap()
        .iter()
        .filter(|a| matches!(a, Action::Move { unit: u, .. } if *u == unit))
        .count()
}

#[test]
fn the_president_allocates_the_marches_and_a_commander_moves_only_his_corps_with_his_own() {
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    let president = seat(&m, "union-president");
    let army = seat(&m, "union-commander-1");
    let corps = seat(&m, "union-commander-2");
    // §7: two marches in July 1861; the game waits for the president to give them out.
    assert_eq!(resource(&m, &g, "marches", "union"), 2);
    assert_eq!(awaited(&m, &mut rules, &g).unwrap(), vec![president]);
    assert!(words(&m, &mut rules, &g, army).is_empty());
    let g = act(
        &m,
        &mut rules,
        &g,
        president,
        "allocate a march to Union corps commander",
    );
    assert_eq!(
        awaited(&m, &mut rules, &g).unwrap(),
        vec![president],
        "one left to give"
    );
    let g = act(
        &m,
        &mut rules,
        &g,
        president,
        "allocate a march to Union army commander",
    );

    // §2: the corps commander (III and IV Corps) may march from Harper's Ferry, where
    // only his IV Corps stands; the army commander (I and II Corps) may not.
    assert!(
        words(&m, &mut rules, &g, corps)
            .iter()
            .any(|w| w.contains("Harper's Ferry"))
    );
    assert!(
        !words(&m, &mut rules, &g, army)
            .iter()
            .any(|w| w.contains("Harper's Ferry"))
    );

    // At Washington each commander moves his own corps only.
    let g = act(&m, &mut rules, &g, army, "march: move from Washington");
    let (i, iii) = (
        named(&g, "I Corps (McDowell)"),
        named(&g, "III Corps (Hunter)"),
    );
    assert!(moves_of(&m, &mut rules, &g, army, i) > 0);
    assert_eq!(
        moves_of(&m, &mut rules, &g, army, iii),
        0,
        "III Corps is not his"
    );
    let g = act(&m, &mut rules, &g, army, "move I Corps (McDowell)");
    // The march is charged to him; the other commander never moves his corps.
    assert_eq!(resource(&m, &g, "alloc-1", "union"), 0);
    assert_eq!(resource(&m, &g, "alloc-2", "union"), 1);
    let ii = named(&g, "II Corps (Banks)");
    assert_eq!(moves_of(&m, &mut rules, &g, corps, ii), 0);
    // Still his march: he moves II Corps too without paying again.
    assert!(moves_of(&m, &mut rules, &g, army, ii) > 0);
    let g = act(&m, &mut rules, &g, army, "end this march");

    // The army commander has used his march: he commands nothing more this phase.
    assert!(
        !words(&m, &mut rules, &g, army)
            .iter()
            .any(|w| w.starts_with("march:"))
    );
    let g = act(&m, &mut rules, &g, corps, "march: move from Harper's Ferry");
    let iv = named(&g, "IV Corps (Patterson)");
    assert!(moves_of(&m, &mut rules, &g, corps, iv) > 0);
    // The president moves no corps.
    assert_eq!(moves_of(&m, &mut rules, &g, president, iv), 0);
}

fn organise(unit: UnitId, to: UnitId) -> Action {
    Action::Organize {
        changes: vec![Change { unit, to: Some(to) }],
    }
}

fn members(m: &Module, g: &GameState, f: UnitId, type_id: &str) -> Vec<UnitId> {
    g.members(f)
        .filter(|&u| m.units.get(g.unit(u).kind).id == type_id)
        .collect()
}

#[test]
fn organisations_against_the_seeds_section_6_are_refused_naming_it() {
    let (m, mut rules) = load();
    let g = begin(&m, &mut rules);
    let president = seat(&m, "union-president");
    let army = seat(&m, "union-commander-1");
    let g = act(
        &m,
        &mut rules,
        &g,
        president,
        "allocate a march to Union army commander",
    );
    let g = act(
        &m,
        &mut rules,
        &g,
        president,
        "allocate a march to Union army commander",
    );
    let i = named(&g, "I Corps (McDowell)");
    let ii = named(&g, "II Corps (Banks)");
    let tyler = named(&g, "Tyler's Division, I Corps");
    let hunter = named(&g, "Hunter's Division, I Corps");
    let refuse = |rules: &mut ScriptRules, a: &Action| {
        apply_by(&m, rules, &g, army, a)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    // §6.22: a second artillery battalion in a division.
    let art = members(&m, &g, hunter, "Art")[0];
    let why = refuse(&mut rules, &organise(art, tyler));
    assert!(
        why.contains("§6.22") && why.contains("one battalion of artillery"),
        "{why}"
    );
    // §6.22: corps artillery no fewer than the divisional.
    let why = refuse(&mut rules, &organise(art, i));
    assert!(
        why.contains("§6.22") && why.contains("fewer than the divisional"),
        "{why}"
    );
    // §6.23: a division left with one combat formation.
    let infantry = members(&m, &g, tyler, "Inf");
    let out = Action::Organize {
        changes: infantry
            .iter()
            .map(|&u| Change {
                unit: u,
                to: Some(hunter),
            })
            .collect(),
    };
    let why = refuse(&mut rules, &out);
    assert!(why.contains("§6.23"), "{why}");
    // §6.11: twelve brigades and battalions: II Corps' eight and I Corps' eight are 16.
    let whole = Action::Organize {
        changes: vec![
            Change {
                unit: tyler,
                to: Some(ii),
            },
            Change {
                unit: hunter,
                to: Some(ii),
            },
        ],
    };
    let why = refuse(&mut rules, &whole);
    assert!(
        why.contains("the capacity of a Corps is 12 (§6.11)"),
        "{why}"
    );
    // Within the rules: a brigade from one division to the other of the same corps.
    let g2 = apply_by(&m, &mut rules, &g, army, &organise(infantry[0], hunter));
    assert!(g2.is_ok(), "{:?}", g2.err().map(|e| e.to_string()));
    // The corps commander may not organise the army commander's corps.
    let corps = seat(&m, "union-commander-2");
    let why = apply_by(&m, &mut rules, &g, corps, &organise(infantry[0], hunter))
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(why.contains("does not command"), "{why}");
}

#[test]
fn a_scenario_member_outside_its_formations_box_is_a_located_error() {
    let (m, _) = load();
    let xml = "<scenario id=\"t\" name=\"t\" start=\"08/1861\"><side id=\"union\">\n\
               <place box=\"Washington\" units=\"1 Corps\" id=\"i\"/>\n\
               <place box=\"Baltimore\" units=\"2 Inf\" in=\"i\"/>\n\
               </side></scenario>";
    let why = match load_scenario_str(&m, "bad.xml", xml) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    assert!(
        why.contains("bad.xml:3:") && why.contains("placed in 'Baltimore'"),
        "{why}"
    );
    let xml = "<scenario id=\"t\" name=\"t\" start=\"08/1861\"><side id=\"union\">\n\
               <place box=\"Washington\" units=\"1 Corps\" id=\"i\"/>\n\
               <place box=\"Washington\" units=\"13 Inf\" in=\"i\"/>\n\
               </side></scenario>";
    let why = match load_scenario_str(&m, "bad.xml", xml) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    assert!(
        why.contains("bad.xml:3:") && why.contains("at most 12 (capacity of Corps, §6.11)"),
        "{why}"
    );
}

/// Each seat's folder in a hosted game: (file name, bytes) in the order written.
type Folders = std::collections::BTreeMap<String, Vec<(String, Vec<u8>)>>;

/// The test's players by file: the presidents allocate, the Union commander marches
/// I Corps from Washington into Manassas Junction (a battle), everyone else ends his
/// steps, stays, and declines what is offered.
fn by_file_choice(seat: &str, file: &SeatFile, marched: &mut bool) -> usize {
    let find = |f: &dyn Fn(&Choice) -> bool| file.decide.iter().position(f);
    if seat == "union-commander-1" && !*marched {
        if let Some(i) = find(&|c| {
            matches!(c.action, Action::Move { .. })
                && c.words.starts_with("move I Corps (McDowell)")
                && c.words.contains("Manassas Junction")
        }) {
            *marched = true;
            return i;
        }
        if let Some(i) = find(&|c| c.words == "march: move from Washington") {
            return i;
        }
    }
    find(&|c| c.words.starts_with("allocate a march"))
        .or_else(|| find(&|c| matches!(c.action, Action::EndStep | Action::Release | Action::Pass)))
        .or_else(|| find(&|c| !c.words.contains("withdraw")))
        .unwrap_or(0)
}

/// The July 1861 turn by file, in one process: the host's API, every seat with a folder
/// but those `hosted`, the test's players ([`by_file_choice`]) answering.
struct ByFile<'m> {
    host: Host<'m>,
    folders: Folders,
    nonce: u64,
    marched: bool,
}

impl<'m> ByFile<'m> {
    fn new(m: &'m Module, hosted: &[&str]) -> Self {
        let setup = HostSetup {
            module: SavedModule::of(m),
            scenario: SavedScenario {
                id: "1861".into(),
                xml: None,
            },
            options: vec!["one-commander".into()],
            end: Some("07/1861".into()),
            seats: m.seats.iter().map(|s| s.id.clone()).collect(),
            hosted: hosted.iter().map(|s| s.to_string()).collect(),
        };
        let mut host = Host {
            module: m,
            record: Record::new(setup, &[4; 32], &[6; 32]),
            master: Default::default(),
        };
        let mut folders = Folders::new();
        for f in host.first_files() {
            folders.entry(f.seat).or_default().push((f.name, f.bytes));
        }
        ByFile {
            host,
            folders,
            nonce: 0,
            marched: false,
        }
    }

    /// The seat's latest file from the host, with its bytes.
    fn latest(&self, seat: &str) -> (SeatFile, Vec<u8>) {
        let (_, bytes) = self.folders[seat]
            .iter()
            .rev()
            .find(|(n, _)| n.ends_with(".seat.json"))
            .unwrap()
            .clone();
        (serde_json::from_slice(&bytes).unwrap(), bytes)
    }

    /// Whether the seat has answered its latest file (or has nothing to answer).
    fn answered(&self, seat: &str) -> bool {
        let (file, _) = self.latest(seat);
        let name = answer_name(&file.game, seat, file.index);
        file.over || self.folders[seat].iter().any(|(n, _)| *n == name)
    }

    /// The seat's answer to its latest file: `action` (none: it joins), written into
    /// its folder and taken by the host (an error is the host's refusal).
    fn answer(
        &mut self,
        rules: &mut ScriptRules,
        seat: &str,
        action: Option<Action>,
    ) -> Result<(), HostError> {
        let (file, bytes) = self.latest(seat);
        self.nonce += 1;
        let answer = Answer {
            pbem_host: HOST_FORMAT,
            game: file.game.clone(),
            seat: seat.to_string(),
            answers: file.index,
            file: to_hex(&sha256(&bytes)),
            nonce: to_hex(&sha256(&self.nonce.to_le_bytes())),
            action,
        };
        let name = answer_name(&file.game, seat, file.index);
        let bytes = to_bytes(&answer);
        self.host.take(rules, seat, &name, &bytes)?;
        self.folders.get_mut(seat).unwrap().push((name, bytes));
        Ok(())
    }

    /// The host's next files, into the seats' folders.
    fn send(&mut self, rules: &mut ScriptRules) {
        let (out, errors) = self.host.outgoing(rules).unwrap();
        assert!(errors.is_empty(), "{errors:?}");
        for f in out {
            self.folders
                .entry(f.seat)
                .or_default()
                .push((f.name, f.bytes));
        }
    }

    /// Every seat but `wait` answers its open files and the host sends the next ones,
    /// until `done` says so; panics if the turn ends first.
    fn play_until(&mut self, rules: &mut ScriptRules, wait: &[&str], done: impl Fn(&Self) -> bool) {
        for _ in 0..400 {
            if done(self) {
                return;
            }
            let seats: Vec<String> = self.folders.keys().cloned().collect();
            for seat in seats {
                let (file, _) = self.latest(&seat);
                // A seat waited for still joins the game (its file 0).
                if self.answered(&seat) || file.index > 0 && wait.contains(&seat.as_str()) {
                    continue;
                }
                let action = (file.index > 0).then(|| {
                    file.decide[by_file_choice(&seat, &file, &mut self.marched)]
                        .action
                        .clone()
                });
                let name = answer_name(&file.game, &seat, file.index);
                self.answer(rules, &seat, action)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            self.send(rules);
            assert!(!self.host.master.over(), "the turn ended first");
        }
        panic!("the July 1861 turn by file did not get there");
    }

    /// Whether the umpire's result of the battle at Manassas Junction was entered.
    fn battle_entered(&self) -> bool {
        let umpire = self.host.module.find_seat("umpire");
        self.host.master.steps.iter().any(|s| {
            matches!(&s.action, Action::Take { label, seat, .. }
                if *seat == umpire && label == "result of the battle at Manassas Junction")
        })
    }
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

/// Whether `line` names the piece `name` (`Inf #1` is not named by `Inf #12`).
fn names_piece(line: &str, name: &str) -> bool {
    line.match_indices(name).any(|(i, _)| {
        !line[i + name.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

/// Checks every seat's folder of a game by file (issue 47): each file and answer is the
/// seat's own; no file names an enemy piece its seat's §12 reports never showed in full;
/// a commander the option leaves idle is asked nothing of the side's but to end its
/// steps (§2.1: the side's own decisions are the president's); the presidents'
/// allocation is told in their logs (§7); the battle is told to both sides' commanders;
/// and every seat's files verify against the record.
fn check_folders(m: &Module, rules: &mut ScriptRules, record: &Record, folders: &Folders) {
    let master = record.replay(m, rules).unwrap();
    let states: Vec<&GameState> = std::iter::once(master.start.as_ref().unwrap())
        .chain(master.steps.iter().map(|s| &s.after))
        .collect();
    let boxes: Vec<&str> = m.board.boxes.iter().map(|b| b.name.as_str()).collect();
    for (seat_name, files) in folders {
        let seat_id = seat(m, seat_name);
        // Only this seat's files: each file and answer is addressed to it.
        for (name, bytes) in files {
            let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
            assert_eq!(v["seat"].as_str(), Some(seat_name.as_str()), "{name}");
        }
        let Some(side) = m.seat(seat_id).side else {
            // The umpire (§2) sees the whole game: nothing is hidden from it.
            verify_seat(m, rules, record, seat_name, files)
                .unwrap_or_else(|e| panic!("{seat_name}: {e}"));
            continue;
        };
        // The enemy pieces the seat never saw in full (§12), by the names the log gives.
        let mut full = std::collections::BTreeSet::new();
        for state in &states {
            let (seen, errors) = sights(m, rules, state, seat_id);
            assert!(errors.is_empty(), "{errors:?}");
            full.extend((0..seen.len()).filter(|&i| seen[i] == Sight::Full));
        }
        let mut never = std::collections::BTreeSet::new();
        for state in &states {
            for (i, u) in state.units.iter().enumerate() {
                if u.side != side && !full.contains(&i) && matches!(u.place, Place::Board(_)) {
                    let name = describe::unit(m, state, UnitId::from_index(i).unwrap());
                    // A general named as a box ("Jackson") is not told from the box.
                    if !boxes.iter().any(|b| b.contains(name.as_str())) {
                        never.insert(name);
                    }
                }
            }
        }
        assert!(!never.is_empty(), "{seat_name} had enemy pieces hidden");
        let mut lines = Vec::new();
        for (name, bytes) in files {
            let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
            let mut all = Vec::new();
            strings(&v, &mut all);
            for line in &all {
                for hidden in &never {
                    assert!(
                        !names_piece(line, hidden),
                        "{name}: {seat_name} never saw {hidden}: {line}"
                    );
                }
            }
            lines.extend(
                v["log"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|l| l.as_str().map(String::from)),
            );
        }
        let decides: Vec<SeatFile> = files
            .iter()
            .filter(|(n, _)| n.ends_with(".seat.json"))
            .map(|(_, b)| serde_json::from_slice::<SeatFile>(b).unwrap())
            .filter(|f| !f.decide.is_empty())
            .collect();
        let asked = decides.len();
        if seat_name.ends_with("-commander-2") {
            // He commands nothing: no march, move or organisation; only what any seat
            // of the side may take (the step's end, the side's offers such as §14.4's
            // western fortress).
            assert!(
                decides.iter().all(|f| f.decide.iter().all(|c| !matches!(
                    c.action,
                    Action::Select { .. }
                        | Action::Move { .. }
                        | Action::Organize { .. }
                        | Action::Drop { .. }
                ))),
                "{seat_name} holds nothing with one commander a side: {:?}",
                decides
                    .iter()
                    .flat_map(|f| f.decide.iter().map(|c| c.words.clone()))
                    .collect::<Vec<_>>()
            );
        } else if seat_name.ends_with("-commander-1") {
            assert!(asked > 0, "{seat_name} was asked to decide");
        } else {
            // §7: the president's allocation (the host takes it when it is his only
            // choice), told in his log.
            assert!(
                lines
                    .iter()
                    .any(|l| l.contains("a march is allocated to") && l.contains("army commander")),
                "{seat_name}: {lines:?}"
            );
        }
        // The battle is told to both sides' seats in contact with it.
        if seat_name.ends_with("-commander-1") {
            assert!(
                lines.iter().any(|l| l.contains("Manassas Junction")),
                "{seat_name}: {lines:?}"
            );
        }
        verify_seat(m, rules, record, seat_name, files)
            .unwrap_or_else(|e| panic!("{seat_name}: {e}"));
        eprintln!(
            "{seat_name}: {} files, {asked} asking, {} enemy pieces never seen in full",
            files.len(),
            never.len()
        );
    }
}

/// Issue 47's play by file: two presidents, one commander a side (`one-commander`) and
/// the umpire held by the host (seed 001 §2: the referee; §8.6 the result he enters, by
/// the computer umpire here). The Union marches into Manassas Junction and the battle
/// is entered; the game stops there (the rest of the turn tells nothing more of the
/// files), and [`check_folders`] checks every folder.
#[test]
fn a_campaign_turn_by_file_with_the_umpire_as_host_gives_each_seat_only_its_reports() {
    let (m, mut rules) = load();
    let mut game = ByFile::new(&m, &["umpire"]);
    game.play_until(&mut rules, &[], |g| g.battle_entered());
    game.send(&mut rules);
    assert!(
        !game.folders.contains_key("umpire"),
        "the host holds the umpire"
    );
    check_folders(&m, &mut rules, &game.host.record, &game.folders);
}

/// Seed 001 §2.1 and §14.4: the side's own decisions (an offer about no piece, such as
/// the western fortress designated in July 1861) are the president's: with one
/// commander a side, the idle second commander is not asked them, nor is the first.
/// The Union's turn is played through by ending steps, then the Confederacy's movement
/// is searched for the offer.
#[test]
fn the_sides_own_offers_go_to_the_president_not_an_idle_commander() {
    let (m, mut rules) = load();
    let s = m.scenario("1861").expect("scenario");
    let one = m.find_option("one-commander").expect("the option");
    let mut g = start(&m, &mut rules, s, vec![one], Dice::seeded(3))
        .unwrap_or_else(|e| panic!("{e}"))
        .0;
    let president = seat(&m, "confederate-president");
    let commanders = [
        seat(&m, "confederate-commander-1"),
        seat(&m, "confederate-commander-2"),
    ];
    let fortress = |w: &String| w.contains("the western fortress");
    for _ in 0..300 {
        if words(&m, &mut rules, &g, president).iter().any(fortress) {
            for c in commanders {
                let theirs = words(&m, &mut rules, &g, c);
                assert!(!theirs.iter().any(fortress), "{theirs:?}");
            }
            return;
        }
        // Each awaited seat gives out its marches, else ends its step or passes.
        let seats = awaited(&m, &mut rules, &g).unwrap();
        let (who, a) = seats
            .iter()
            .find_map(|&s| {
                let legal = legal_actions_for(&m, &mut rules, &g, s).unwrap();
                legal
                    .iter()
                    .find(|a| describe::action(&m, &g, a).starts_with("allocate a march"))
                    .or_else(|| {
                        legal
                            .iter()
                            .find(|a| matches!(a, Action::EndStep | Action::Pass | Action::Release))
                    })
                    .or(legal.first())
                    .map(|a| (s, a.clone()))
            })
            .expect("someone decides");
        g = apply_by(&m, &mut rules, &g, who, &a)
            .unwrap_or_else(|e| panic!("{e}"))
            .0;
    }
    panic!("§14.4's western fortress was never offered to the Confederate president");
}

/// The umpire's folder on disk (for `muster pbem play`): its files and answers.
fn write_folder(dir: &std::path::Path, files: &[(String, Vec<u8>)]) {
    for (name, bytes) in files {
        let path = dir.join(name);
        if !path.exists() {
            std::fs::write(path, bytes).unwrap();
        }
    }
}

/// Issue 47: a person umpiring the campaign by file. The umpire has a folder; when the
/// Union marches into Manassas Junction (§8) his file carries the battle's result form
/// in words (seed 001 §8.6: SP lost per stand, who holds the field). `muster pbem play
/// --seat umpire --entry FILE` refuses a bad entry file in one line (an unknown stand,
/// a loss that is not a number), writing no answer; an over-large loss reaching the
/// host is refused with §8.6's reason and changes nothing (the state's hash), only the
/// umpire gets a new file saying why, with the same choices; the good entry, through
/// the CLI, is applied (the stand's SP go down); every folder holds only its seat's
/// files and verifies.
#[test]
fn a_person_umpires_a_battle_by_file_and_a_refused_entry_changes_nothing() {
    use crate::cli_pbem_host::{muster, ok, refused};
    use muster_core::game::entry::Takes;
    use muster_core::pbem::state_hash;

    let (m, mut rules) = load();
    let mut game = ByFile::new(&m, &[]);
    let has_form = |g: &ByFile| {
        !g.answered("umpire")
            && g.latest("umpire")
                .0
                .decide
                .iter()
                .any(|c| !c.form.is_empty())
    };
    game.play_until(&mut rules, &["umpire"], has_form);
    let (file, _) = game.latest("umpire");
    let i = file.decide.iter().position(|c| !c.form.is_empty()).unwrap();
    let choice = &file.decide[i];
    assert_eq!(choice.words, "result of the battle at Manassas Junction");
    let Takes::Pieces(pieces) = &choice.form[0].takes else {
        panic!("{:?}", choice.form)
    };
    let Takes::Choices(holders) = &choice.form[1].takes else {
        panic!("{:?}", choice.form)
    };
    assert_eq!(choice.form[0].label, "Strength points lost (§8.6)");
    let state = game.host.master.state().unwrap().clone();
    let stand = pieces.iter().find(|p| p.most >= 3).unwrap_or(&pieces[0]);
    let other = m
        .sides
        .iter()
        .find(|s| m.find_side(&s.id) != Some(state.unit(stand.unit).side))
        .unwrap();
    let holder = holders
        .iter()
        .find(|h| **h == other.name)
        .unwrap_or_else(|| panic!("{holders:?}"))
        .clone();

    // The CLI: a bad entry file is one line naming the file and the field, no answer.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("umpire");
    std::fs::create_dir(&dir).unwrap();
    write_folder(&dir, &game.folders["umpire"]);
    let answer = dir.join(answer_name(&file.game, "umpire", file.index));
    let play = |entry: &serde_json::Value| {
        let path = tmp.path().join("entry.json");
        std::fs::write(&path, entry.to_string()).unwrap();
        let (d, p) = (dir.to_str().unwrap(), path.to_str().unwrap());
        muster(&["pbem", "play", d, "--seat", "umpire", "--entry", p])
    };
    let unknown = serde_json::json!({"losses": {"No Such Brigade": 1}, "holder": holder});
    refused(
        &play(&unknown),
        &["entry.json", "field 'losses'", "No Such Brigade"],
    );
    let nan = serde_json::json!({"losses": {stand.name.as_str(): "two"}, "holder": holder});
    refused(
        &play(&nan),
        &["entry.json", "field 'losses'", "not a whole number"],
    );
    assert!(!answer.exists(), "no answer written for a bad entry file");

    // §8.6: more SP lost than the stand has reaches the host (an answer made by hand):
    // refused with the reason, nothing applied, no file for any other seat.
    let before = state_hash(&state);
    let (steps, sent) = (game.host.master.steps.len(), game.host.record.sent.len());
    let mut over = choice.action.clone();
    let mut entry = muster_core::game::Entry::default();
    entry.set(
        "losses",
        muster_core::game::entry::Value::Pieces(vec![(stand.unit, stand.most + 1)]),
    );
    entry.set(
        "holder",
        muster_core::game::entry::Value::Choice(holder.clone()),
    );
    if let Action::Take { entry: e, .. } = &mut over {
        *e = Some(Box::new(entry));
    }
    game.answer(&mut rules, "umpire", Some(over)).unwrap();
    let taken = game.host.record.answers.last().unwrap();
    let why = taken.refused.clone().expect("the entry is refused");
    assert!(
        why.contains("§8.6") && why.contains("more than its most"),
        "{why}"
    );
    assert!(taken.actions.is_empty());
    assert_eq!(game.host.master.steps.len(), steps);
    assert_eq!(state_hash(game.host.master.state().unwrap()), before);
    game.send(&mut rules);
    let new: Vec<&str> = game.host.record.sent[sent..]
        .iter()
        .map(|s| s.seat.as_str())
        .collect();
    assert_eq!(new, ["umpire"], "only the umpire is told");
    let (again, _) = game.latest("umpire");
    assert_eq!(again.refused.as_deref(), Some(why.as_str()));
    assert_eq!(again.decide, file.decide, "the same choices");

    // The good entry through the CLI: 2 SP lost (at most the stand's), the other side
    // holds; the host applies it.
    write_folder(&dir, &game.folders["umpire"]);
    let lost = (stand.most - 1).min(2);
    let good = serde_json::json!({"losses": {stand.name.as_str(): lost}, "holder": holder});
    let out = ok(&play(&good));
    assert!(
        out.contains("the host refused your last answer") && out.contains("§8.6"),
        "{out}"
    );
    let name = answer_name(&again.game, "umpire", again.index);
    let bytes = std::fs::read(dir.join(&name)).unwrap();
    game.host.take(&mut rules, "umpire", &name, &bytes).unwrap();
    game.folders.get_mut("umpire").unwrap().push((name, bytes));
    let taken = game.host.record.answers.last().unwrap();
    assert!(taken.refused.is_none() && !taken.actions.is_empty());
    let sp = m.units.find_attribute("sp").unwrap();
    let after = game.host.master.steps[steps].after.clone();
    assert_eq!(
        after.attribute(&m, stand.unit, sp),
        Some(stand.most - lost),
        "§8.6: the stand lost what the umpire entered"
    );
    game.send(&mut rules);
    check_folders(&m, &mut rules, &game.host.record, &game.folders);
}

/// Issue 47 item 5: computer players on every seat choose from their seat's view and
/// the real game takes their choices. Before the players were told their seat's choices
/// and kept to their own pieces and offers, this game (seed 3, two turns) had five of
/// them refused: presidents taking offers not theirs or no longer open, an army
/// commander marching his partner's corps.
#[test]
fn computer_seats_choices_are_not_refused_in_the_campaigns_first_turns() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_muster"))
        .args([
            "play",
            "mods/vb-campaign",
            "--player",
            "union=ai",
            "--player",
            "confederate=ai",
            "--seed",
            "3",
            "--end",
            "08/1861",
            "--quiet",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("muster runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("the game is over"), "{text}");
    assert!(text.contains("allocate a march"), "{text}");
    assert!(!text.contains("refused its choice"), "{text}");
}
