//! Entries and the computer referee (issue 43, item 3), on `mods/examples/umpire`: AHD
//! whose battles an umpire (a seat of no side) decides by entering the result, after
//! seed 001 §8 and §8.6 (the tabletop battle's result taken back; the winner holds the
//! field). The umpire's offer carries a form (steps lost per piece, who holds the
//! field); a `Take` carries the values, or none for the computer umpire's roll.

use muster_ai::Level;
use muster_ai::balance::{GameSetup, levels_by_seat, play_game};
use muster_core::game::entry::Value;
use muster_core::game::save::{Save, SavedScenario};
use muster_core::game::{
    Action, Entry, FieldKind, GameState, Offer, Place, apply, apply_by, awaited, legal_actions_for,
    offer,
};
use muster_core::ids::{SeatId, SideId, UnitId};
use muster_core::{Module, load_stack};
use muster_scripting::{Limits, ScriptRules};
use muster_test_support::{RandomGame, ahd_dir, root};

fn umpire() -> (Module, ScriptRules) {
    let m = load_stack(ahd_dir(), &[root().join("mods/examples/umpire")])
        .unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    (m, rules)
}

fn seat(m: &Module, id: &str) -> SeatId {
    m.find_seat(id).unwrap_or_else(|| panic!("no seat {id}"))
}

/// The first position of a random 1861 game (seed `seed`) where the game waits for the
/// umpire alone. The random players' umpire decisions before it are the computer
/// umpire's (a `Take` without values), so reaching it plays those too.
fn waiting_for_umpire(m: &Module, rules: &mut ScriptRules, seed: u64) -> GameState {
    let umpire = seat(m, "umpire");
    let states: Vec<GameState> = RandomGame::new(m, rules, "1861", seed).take(3000).collect();
    states
        .into_iter()
        .find(|g| awaited(m, rules, g).unwrap() == vec![umpire])
        .expect("a battle within 3000 actions")
}

/// The umpire's one offer now: the result of a battle, with its form.
fn result_offer(m: &Module, rules: &mut ScriptRules, g: &GameState) -> Offer {
    let umpire = seat(m, "umpire");
    let open: Vec<Offer> = offer::offers(m, rules, g)
        .unwrap()
        .into_iter()
        .filter(|o| o.seat == Some(umpire))
        .collect();
    assert_eq!(open.len(), 1, "{open:?}");
    open[0].clone()
}

/// The pieces of the form's `losses` field, with the most each may lose.
fn pieces(o: &Offer) -> Vec<(UnitId, i64)> {
    match &o.form[0].kind {
        FieldKind::Pieces(p) => p.clone(),
        other => panic!("{other:?}"),
    }
}

fn take_with(o: &Offer, entry: Entry) -> Action {
    let mut a = o.action();
    if let Action::Take { entry: e, .. } = &mut a {
        *e = Some(Box::new(entry));
    }
    a
}

fn entry(losses: Vec<(UnitId, i64)>, holder: Value) -> Entry {
    let mut e = Entry::default();
    e.set("losses", Value::Pieces(losses));
    e.set("holder", holder);
    e
}

/// A result in which the attacker (the side on move) holds the field and each
/// defending piece loses a step: returned with the pieces that lost one.
fn attacker_wins(m: &Module, g: &GameState, o: &Offer) -> (Entry, Vec<UnitId>) {
    let attacker = g.active_side(m);
    let lost: Vec<(UnitId, i64)> = pieces(o)
        .into_iter()
        .filter(|&(u, most)| g.unit(u).side != attacker && most >= 1)
        .map(|(u, _)| (u, 1))
        .collect();
    let units = lost.iter().map(|&(u, _)| u).collect();
    (entry(lost, Value::Side(attacker)), units)
}

/// Seed 001 §8: the battle is handed over; neither side may act, only the umpire, whose
/// entry is the one change; a side's attempt is refused naming whom the game waits for.
#[test]
fn only_the_umpire_acts_and_its_entry_is_applied() {
    let (m, mut rules) = umpire();
    let g = waiting_for_umpire(&m, &mut rules, 1);
    let (union, confederate, ump) = (
        seat(&m, "union"),
        seat(&m, "confederate"),
        seat(&m, "umpire"),
    );
    let o = result_offer(&m, &mut rules, &g);
    assert!(
        o.label.starts_with("result of the battle at "),
        "{}",
        o.label
    );
    let at = o.at.expect("the battle's box");
    // The umpire's list is its one offer, listed without values (the computer's).
    assert_eq!(
        legal_actions_for(&m, &mut rules, &g, ump).unwrap(),
        vec![o.action()]
    );
    for side in [union, confederate] {
        assert!(
            legal_actions_for(&m, &mut rules, &g, side)
                .unwrap()
                .is_empty()
        );
    }
    let (values, hit) = attacker_wins(&m, &g, &o);
    let take = take_with(&o, values);
    let refused = apply_by(&m, &mut rules, &g, union, &take).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "not allowed: it is not Union's decision: the game waits for Umpire"
    );
    let (after, log) = apply_by(&m, &mut rules, &g, ump, &take).unwrap();
    assert!(
        log.iter()
            .any(|l| l.starts_with(&format!("{} entered: Steps lost: ", o.label))),
        "{log:?}"
    );
    let attacker = g.active_side(&m);
    let attacker_name = &m.side(attacker).name;
    assert!(
        log.iter()
            .any(|l| l.starts_with(&format!("{attacker_name} holds the field at"))),
        "{log:?}"
    );
    // Each defender lost a step: a full one is reduced, a reduced one eliminated; none
    // is left in the box, which the attacker holds.
    for u in hit {
        let before = g.unit(u).hits;
        let now = after.unit(u);
        assert!(
            now.hits == before + 1 || now.place != Place::Board(at),
            "{u:?}: {before} -> {now:?}"
        );
    }
    assert!(
        after.units_at(at).all(|u| after.unit(u).side == attacker),
        "the loser left {}",
        m.board.get(at).name
    );
}

/// Bad input (issue 43): each refused entry names the action and says why; the game
/// is as it was (the same position then takes a good entry).
#[test]
fn each_refused_entry_says_why_and_applies_nothing() {
    let (m, mut rules) = umpire();
    let g = waiting_for_umpire(&m, &mut rules, 1);
    let ump = seat(&m, "umpire");
    let o = result_offer(&m, &mut rules, &g);
    let attacker = g.active_side(&m);
    let ps = pieces(&o);
    let (u, most) = ps[0];
    let outside = g
        .units
        .iter()
        .enumerate()
        .map(|(i, _)| UnitId(i as u16))
        .find(|&x| matches!(g.unit(x).place, Place::Board(b) if Some(b) != o.at))
        .expect("a piece elsewhere on the board");
    let defender_lost_all: Vec<(UnitId, i64)> = ps
        .iter()
        .copied()
        .filter(|&(x, _)| g.unit(x).side != attacker)
        .collect();
    let defender = g.unit(defender_lost_all[0].0).side;
    let mut unknown = entry(Vec::new(), Value::Side(attacker));
    unknown.set("retreat", Value::Number(1));
    let cases: Vec<(Entry, String)> = vec![
        (
            entry(vec![(u, most + 1)], Value::Side(attacker)),
            format!("more than its most, {most}"),
        ),
        (
            entry(vec![(outside, 1)], Value::Side(attacker)),
            "is not one of its pieces".into(),
        ),
        (
            entry(vec![(u, -1)], Value::Side(attacker)),
            "-1 is below 0".into(),
        ),
        (
            entry(Vec::new(), Value::Side(SideId(7))),
            "side 8 is not one of".into(),
        ),
        (
            entry(Vec::new(), Value::Number(1)),
            "Holds the field ('holder'): it takes a side".into(),
        ),
        (unknown, "there is no field 'retreat'".into()),
        (
            Entry::default(),
            "Holds the field ('holder'): nothing entered".into(),
        ),
        // The rules' own refusal (`accepts_entry`), seed 001 §8.6.
        (
            entry(defender_lost_all, Value::Side(defender)),
            "the rules refuse the entry: ".into(),
        ),
    ];
    for (values, why) in cases {
        let e = apply_by(&m, &mut rules, &g, ump, &take_with(&o, values.clone())).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("not allowed: '{}': ", o.label)),
            "{text}"
        );
        assert!(text.contains(&why), "{values:?}: {text}");
    }
    // Nothing was applied: the same position still waits for the umpire and takes a
    // good entry.
    assert_eq!(awaited(&m, &mut rules, &g).unwrap(), vec![ump]);
    let (good, _) = attacker_wins(&m, &g, &o);
    assert!(apply_by(&m, &mut rules, &g, ump, &take_with(&o, good)).is_ok());
}

/// A game with entries is saved (each `Take` with its values, or none for the computer
/// umpire), read back and replayed bit for bit.
#[test]
fn a_game_with_entries_saves_and_replays_exactly() {
    let (m, mut rules) = umpire();
    let ump = seat(&m, "umpire");
    let sc = m.scenario("1861-short").unwrap();
    let seed = 5;
    let (mut g, _) = muster_core::game::start(
        &m,
        &mut rules,
        sc,
        Vec::new(),
        muster_core::game::Dice::seeded(seed),
    )
    .unwrap();
    let first = g.clone();
    let mut actions = Vec::new();
    let (mut entered, mut computed) = (0, 0);
    let mut chooser = muster_core::game::dice::Pcg32::new(seed, 9);
    while g.outcome.is_none() && actions.len() < 4000 {
        let action = if awaited(&m, &mut rules, &g).unwrap() == vec![ump] {
            let o = result_offer(&m, &mut rules, &g);
            // Every other battle a person enters the attacker's victory; the others
            // are the computer umpire's.
            if (entered + computed) % 2 == 0 {
                entered += 1;
                take_with(&o, attacker_wins(&m, &g, &o).0)
            } else {
                computed += 1;
                o.action()
            }
        } else {
            let legal = muster_core::game::legal_actions(&m, &mut rules, &g).unwrap();
            let k = legal.len() as u32;
            legal[(chooser.between_one_and(k) - 1) as usize].clone()
        };
        g = apply(&m, &mut rules, &g, &action)
            .unwrap_or_else(|e| panic!("{action:?}: {e}"))
            .0;
        actions.push(action);
    }
    assert!(
        entered > 0 && computed > 0,
        "{entered} entered, {computed} computed"
    );
    let save = Save::new(
        &m,
        SavedScenario {
            id: sc.id.clone(),
            xml: None,
        },
        Vec::new(),
        seed,
        actions,
        g.clone(),
    );
    let json = serde_json::to_string(&save).unwrap();
    assert!(
        json.contains("\"entry\":{\"holder\":{\"side\":"),
        "values saved"
    );
    let read: Save = serde_json::from_str(&json).unwrap();
    assert_eq!(serde_json::to_string(&read).unwrap(), json);
    let (replayed, _) = read.replay(&m, &mut umpire().1).unwrap();
    assert_eq!(replayed, g);
    assert_ne!(replayed, first);
}

/// A whole game with the computer umpire and computer players on both sides finishes:
/// such games play solo (and so can be balanced).
#[test]
fn a_whole_game_with_the_computer_umpire_finishes() {
    let (m, mut rules) = umpire();
    let setup = GameSetup {
        scenario: m.scenario("1861-short").unwrap(),
        options: Vec::new(),
        // The umpire seat's player takes its offers as listed: the computer referee enters them.
        players: levels_by_seat(&m, &[Level::Ai, Level::Greedy], Level::Random),
        end: None,
        max_actions: 50_000,
    };
    let (result, _) = play_game(&m, &mut rules, &setup, 3).unwrap();
    assert!(result.finished, "{result:?}");
    // And random players' games too, to the end.
    let last = RandomGame::new(&m, &mut rules, "1861-short", 2)
        .last()
        .unwrap();
    assert!(last.outcome.is_some());
}
