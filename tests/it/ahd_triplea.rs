//! The TripleA adaptation of AHD as a mod (`mods/ahd-triplea`), rule by rule: each test
//! cites the section of `../shared/seeds/002_42d0304d78a25bbd.txt` ("the seed") it plays,
//! and the seed's worked examples are played as it tells them.

use crate::ahd_terms;
use ahd_terms::ArmyMaximum;

use muster_core::game::rules::ask_int;
use muster_core::game::{
    Action, ActionError, Dice, GameState, Place, Question, View, apply, legal_actions, moves,
};
use muster_core::ids::{BoxId, SideId, TurnId, UnitId};
use muster_core::{Module, load_module, load_scenario_str};
use muster_scripting::{Limits, ScriptRules};

fn triplea() -> (Module, ScriptRules) {
    let m = load_module(concat!(env!("CARGO_MANIFEST_DIR"), "/mods/ahd-triplea"))
        .unwrap_or_else(|e| panic!("{e}"));
    let rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    (m, rules)
}

struct Game {
    m: Module,
    rules: ScriptRules,
    g: GameState,
}

/// A scenario starting at `start` with `union` and `confederate` as the sides' XML.
fn scenario(start: &str, union: &str, confederate: &str) -> String {
    format!(
        r#"<scenario id="test" name="test" start="{start}">
             <side id="union">{union}</side>
             <side id="confederate">{confederate}</side>
           </scenario>"#
    )
}

impl Game {
    /// The position at the start of `side`'s first step of the scenario's first turn,
    /// counted as a later turn (so marches are rolled: the first die of `dice`).
    fn new(xml: &str, side: &str, dice: &[u32]) -> Game {
        let (m, mut rules) = triplea();
        let scenario = load_scenario_str(&m, "<test>", xml).unwrap_or_else(|e| panic!("{e}"));
        let mut g =
            GameState::new(&m, &scenario, Vec::new(), Dice::fixed(dice.iter().copied())).unwrap();
        let side = m.find_side(side).unwrap();
        g.player = u8::try_from(m.calendar.sides.iter().position(|&s| s == side).unwrap()).unwrap();
        g.first_turn = TurnId(0);
        if g.turn == TurnId(0) {
            g.first_turn = TurnId(1);
        }
        moves::begin(&m, &mut rules, &mut g).unwrap();
        Game { m, rules, g }
    }

    fn id(&self, name: &str) -> BoxId {
        self.m
            .board
            .find(name)
            .unwrap_or_else(|| panic!("no box {name}"))
    }

    fn side(&self, name: &str) -> SideId {
        self.m.find_side(name).unwrap()
    }

    fn units(&self, kind: &str, at: &str) -> Vec<UnitId> {
        let (k, b) = (self.m.units.find(kind).unwrap(), self.id(at));
        self.g
            .units_at(b)
            .filter(|&u| self.g.unit(u).kind == k)
            .collect()
    }

    fn unit(&self, kind: &str, at: &str) -> UnitId {
        self.units(kind, at)[0]
    }

    fn legal(&mut self) -> Vec<Action> {
        legal_actions(&self.m, &mut self.rules, &self.g).unwrap()
    }

    fn try_act(&mut self, a: &Action) -> Result<Vec<String>, ActionError> {
        let (next, log) = apply(&self.m, &mut self.rules, &self.g, a)?;
        self.g = next;
        Ok(log)
    }

    fn act(&mut self, a: &Action) -> Vec<String> {
        self.try_act(a).unwrap_or_else(|e| panic!("{a:?}: {e}"))
    }

    fn pu(&self) -> i64 {
        let r = self.m.find_resource("pu").unwrap();
        self.g.resource(self.g.active_side(&self.m), r)
    }

    fn markers(&self, at: &str, marker: &str) -> u16 {
        self.g
            .markers_at(self.id(at), self.m.units.find_marker(marker).unwrap())
    }

    fn set_markers(&mut self, at: &str, marker: &str, count: u16) {
        let (b, k) = (self.id(at), self.m.units.find_marker(marker).unwrap());
        self.g.markers.retain(|&(x, y, _)| (x, y) != (b, k));
        self.g.markers.push((b, k, count));
    }

    fn controller(&self, at: &str) -> Option<String> {
        self.g
            .controller(self.id(at))
            .map(|s| self.m.side(s).id.clone())
    }

    /// The legal move of `unit` to `to`, if there is one.
    fn move_to(&mut self, unit: UnitId, to: &str) -> Option<Action> {
        let to = self.id(to);
        self.legal()
            .into_iter()
            .find(|a| matches!(a, Action::Move { unit: u, path } if *u == unit && path.to() == to))
    }

    /// One march: `units` go from `from` to `to`.
    fn march(&mut self, from: &str, units: &[UnitId], to: &str) {
        self.act(&Action::Select { at: self.id(from) });
        for &u in units {
            let a = self
                .move_to(u, to)
                .unwrap_or_else(|| panic!("{u:?} cannot go from {from} to {to}"));
            self.act(&a);
        }
        self.act(&Action::Release);
    }

    /// The offers of `id` now, with their costs in PUs.
    fn offers(&mut self, id: &str) -> Vec<(Action, i64)> {
        let offers = muster_core::game::offer::offers(&self.m, &mut self.rules, &self.g).unwrap();
        let pu = self.m.find_resource("pu").unwrap();
        offers
            .into_iter()
            .filter(|o| o.id == id)
            .map(|o| {
                let cost = o.cost.iter().find(|c| c.0 == pu).map_or(0, |c| c.1);
                (o.action(), cost)
            })
            .collect()
    }

    fn step(&self) -> String {
        self.g
            .current_step(&self.m)
            .map(|s| s.id.clone())
            .unwrap_or_default()
    }

    /// Ends steps until `step` begins (the other side's too, if it comes first).
    fn until_step(&mut self, step: &str) {
        for _ in 0..20 {
            if self.step() == step || self.g.outcome.is_some() {
                return;
            }
            self.act(&Action::EndStep);
        }
        panic!("never reached step {step}");
    }
}

const WASHINGTON_GARRISON: &str = r#"<place box="Washington" units="1 Mi"/>"#;

/// The seed, "Purchasing marches": "A roll of 1 is treated as 2 ... For each number
/// rolled, the player gets a PU"; "on the first turn ... each only gets 2 PUs".
#[test]
fn seed_purchasing_marches_pus_come_from_the_march_roll() {
    let xml = scenario("08/1861", WASHINGTON_GARRISON, "");
    for (roll, pu) in [(1, 2), (2, 2), (4, 4), (6, 6)] {
        let t = Game::new(&xml, "union", &[roll]);
        assert_eq!(
            (t.step(), t.pu()),
            ("movement".to_string(), pu),
            "roll {roll}"
        );
    }
    // The scenario's first turn: 2 PUs, no roll (the fixed dice would run out).
    let (m, mut rules) = triplea();
    let s = load_scenario_str(&m, "<test>", &xml).unwrap();
    let mut g = GameState::new(&m, &s, Vec::new(), Dice::fixed([])).unwrap();
    moves::begin(&m, &mut rules, &mut g).unwrap();
    let t = Game { m, rules, g };
    assert_eq!(t.pu(), 2);
}

/// The seed, "Garrisons and blitzing" and "Purchasing marches", the worked example: "the
/// Union player has 2 PUs ... He buys one march and moves the infantry from Nashville to
/// Sparta. The unit encamps, but no flag is placed as the movement phase is not over.
/// The player buys a second march, and moves the infantry to Chattanooga, where it
/// encamps and, because movement is over, a flag appears. Sparta reverts to gray."
#[test]
fn seed_blitzing_example_capture_only_when_the_movement_phase_is_over() {
    let xml = scenario(
        "08/1861",
        r#"<place box="Nashville" units="1 Mi"/><control box="Nashville"/>"#,
        r#"<place box="Richmond" units="1 Mi"/>"#,
    );
    let mut t = Game::new(&xml, "union", &[2]);
    assert_eq!(t.pu(), 2);
    let mi = t.unit("Mi", "Nashville");
    t.march("Nashville", &[mi], "Sparta");
    assert_eq!(t.pu(), 1, "a march costs 1 PU");
    assert_eq!(
        t.controller("Sparta").as_deref(),
        Some("confederate"),
        "no flag yet"
    );
    // It encamps: no second march for it in this round of purchases.
    let refused = t.try_act(&Action::Select { at: t.id("Sparta") });
    assert!(refused.is_err(), "one march a round: {refused:?}");
    t.act(&Action::EndStep);
    assert_eq!(
        (t.step(), t.g.repeat),
        ("movement".to_string(), 1),
        "the second round"
    );

    // Again with the PU saved for the second round.
    let mut t = Game::new(&xml, "union", &[2]);
    t.march("Nashville", &[mi], "Sparta");
    t.act(&Action::EndStep);
    assert_eq!(
        t.pu(),
        1,
        "a PU not spent in the first round is kept for the second"
    );
    t.march("Sparta", &[mi], "Chattanooga");
    assert_eq!(t.controller("Chattanooga").as_deref(), Some("confederate"));
    t.act(&Action::EndStep);
    assert_eq!(
        t.step(),
        "promotion",
        "the movement phase is over (no battle to fight)"
    );
    assert_eq!(
        t.controller("Chattanooga").as_deref(),
        Some("union"),
        "a flag appears"
    );
    assert_eq!(
        t.controller("Sparta").as_deref(),
        Some("confederate"),
        "Sparta reverts to gray"
    );
}

/// The seed, "Garrisons and blitzing": "Cavalry units on their own do not detach
/// garrisons. A cavalry unit only has control of a city while it's in it": cavalry alone
/// holds a box (no flag) while it stays, and it goes back when the cavalry leaves
/// (TripleA's file, issue 51, 2); PUs left after the second round are lost.
#[test]
fn seed_cavalry_holds_a_box_while_it_stays_and_unspent_pus_are_lost() {
    let xml = scenario(
        "08/1861",
        r#"<place box="Nashville" units="1 Vc"/><control box="Nashville"/>"#,
        "",
    );
    let mut t = Game::new(&xml, "union", &[5, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
    let vc = t.unit("Vc", "Nashville");
    t.march("Nashville", &[vc], "Sparta");
    assert_eq!(
        t.controller("Sparta").as_deref(),
        Some("confederate"),
        "not before the movement phase is over"
    );
    t.act(&Action::EndStep);
    t.act(&Action::EndStep);
    assert_eq!(
        t.step(),
        "promotion",
        "the movement phase is over (no battle to fight)"
    );
    assert_eq!(
        t.controller("Sparta").as_deref(),
        Some("union"),
        "held by cavalry"
    );
    assert_eq!(t.pu(), 0, "Any PUs not spent in this process are lost");
    // The Confederate turn passes; in the next Union turn the cavalry rides on.
    t.until_step("movement");
    t.until_step("promotion");
    t.until_step("movement");
    assert_eq!(t.g.active_side(&t.m), t.side("union"));
    t.march("Sparta", &[vc], "Chattanooga");
    assert_eq!(
        t.controller("Sparta").as_deref(),
        Some("confederate"),
        "it was held only while the cavalry stayed"
    );
}

/// The seed, VICTORY, "Capture Washington", with a Confederate cavalry alone in
/// Washington: it holds the city while it stays (issue 51, 2), so if the Union does not
/// liberate it on its next turn the South wins.
#[test]
fn seed_a_lone_confederate_cavalry_in_washington_wins() {
    let xml = scenario(
        "08/1861",
        r#"<place box="Philadelphia" units="1 Mi"/>"#,
        r#"<place box="Manassas Junction" units="1 Vc"/>"#,
    );
    let mut t = Game::new(&xml, "confederate", &[2, 6, 2, 6, 2, 6, 2, 6, 2, 6]);
    let vc = t.unit("Vc", "Manassas Junction");
    t.march("Manassas Junction", &[vc], "Washington");
    t.until_step("promotion");
    assert_eq!(t.controller("Washington").as_deref(), Some("confederate"));
    t.until_step("recruitment");
    t.act(&Action::EndStep);
    assert!(t.g.outcome.is_none(), "the Union has its turn");
    t.until_step("recruitment");
    t.act(&Action::EndStep);
    let outcome = t.g.outcome.as_ref().expect("the Union did not liberate it");
    assert_eq!(outcome.winner, Some(t.side("confederate")));
}

/// The seed, "Garrisons and blitzing": "If an army in a box with an enemy army gets a
/// second march ... it may move out into friendly territory, but it may not blitz
/// through into any enemy territory". AHD's 4.0 forbids the march altogether.
#[test]
fn seed_an_army_facing_the_enemy_may_march_back_into_friendly_territory() {
    let xml = scenario(
        "08/1861",
        r#"<place box="Nashville" units="1 Mi, 1 Vi"/><control box="Nashville"/><control box="Murfreesboro"/>"#,
        r#"<place box="Sparta" units="1 Mi"/>"#,
    );
    let mut t = Game::new(&xml, "union", &[3]);
    let (mi, vi) = (t.unit("Mi", "Nashville"), t.unit("Vi", "Nashville"));
    t.march("Nashville", &[mi, vi], "Sparta");
    t.act(&Action::EndStep);
    t.act(&Action::Select { at: t.id("Sparta") });
    assert!(
        t.move_to(mi, "Murfreesboro").is_some(),
        "into friendly territory"
    );
    assert!(t.move_to(mi, "Nashville").is_some());
    assert!(
        t.move_to(mi, "Chattanooga").is_none(),
        "not into enemy territory"
    );
    assert!(
        t.move_to(mi, "Glasgow").is_none() || t.controller("Glasgow").as_deref() == Some("union")
    );
}

/// The seed, BATTLE, "Entrenchments": "The one labeled with an R costs 1 PU and may only
/// be placed in recruiting boxes ... The other costs 2 PUs"; "Placing an entrenchment in
/// a box also provides the army there with a march"; "After any given march, an
/// entrenchment in a box with no army is removed"; none in a permanently entrenched box.
#[test]
fn seed_entrenchments_cost_1_or_2_pus_give_a_march_and_vanish_when_the_army_leaves() {
    let xml = scenario(
        "08/1861",
        r#"<place box="Pittsburgh" units="1 Mi"/><place box="Gettysburg" units="1 Mi, 1 Vi"/>
           <place box="Washington" units="1 Mi"/>"#,
        "",
    );
    let mut t = Game::new(&xml, "union", &[6]);
    // Pittsburgh recruits for the Union: 1 PU in all, the march included.
    t.act(&Action::Select {
        at: t.id("Pittsburgh"),
    });
    let offers = t.offers("entrench");
    assert_eq!(offers.len(), 1);
    assert_eq!(offers[0].1, 0, "nothing beyond the march's 1 PU");
    t.act(&offers[0].0);
    assert_eq!(t.markers("Pittsburgh", "entrenchment"), 1);
    assert!(t.offers("entrench").is_empty(), "one entrenchment a box");
    t.act(&Action::Release);
    assert_eq!(t.pu(), 5);
    // Gettysburg recruits nothing: 2 PUs in all; its army may still march.
    t.act(&Action::Select {
        at: t.id("Gettysburg"),
    });
    let offers = t.offers("entrench");
    assert_eq!(offers[0].1, 1, "1 PU beyond the march");
    t.act(&offers[0].0);
    assert_eq!(t.pu(), 3);
    let vi = t.unit("Vi", "Gettysburg");
    let go = t
        .move_to(vi, "Harrisburg")
        .expect("the entrenchment gave a march");
    t.act(&go);
    t.act(&Action::Release);
    // The army left Pittsburgh? No: Pittsburgh keeps its army and its entrenchment;
    // Gettysburg keeps one unit. Now Gettysburg empties: after the next march it is gone.
    t.act(&Action::EndStep);
    let mi = t.unit("Mi", "Gettysburg");
    t.march("Gettysburg", &[mi], "Harrisburg");
    assert_eq!(
        t.markers("Gettysburg", "entrenchment"),
        1,
        "until the next march"
    );
    t.act(&Action::Select {
        at: t.id("Harrisburg"),
    });
    assert_eq!(
        t.markers("Gettysburg", "entrenchment"),
        0,
        "no army, no entrenchment"
    );
    assert_eq!(t.markers("Pittsburgh", "entrenchment"), 1);
    t.act(&Action::Release);
    // Washington is permanently entrenched: nothing to buy there.
    let mut t = Game::new(&xml, "union", &[4]);
    t.act(&Action::Select {
        at: t.id("Washington"),
    });
    assert!(t.offers("entrench").is_empty());
}

/// The seed, "Water crossings", the worked example at St. Louis: "the North has placed 3
/// marches with units in Quincy, Bloomington, Ill., and Vandalia. All three can reach St.
/// Louis, but only over the water borders. Therefore, 3 water crossings are placed ...
/// The infantry in Cairo also has a march, and can strike St. Louis from the south ...
/// a water crossing is removed ... leaving 2." Then the third example: with a cavalry
/// also at Quincy, which can "blitz through Macon, Mo. and hit St. Louis from the west",
/// "3 added and 2 removed, 1 remains".
#[test]
fn seed_water_crossings_example_at_st_louis() {
    let confederates = r#"<place box="St. Louis" units="2 Mi"/><control box="St. Louis"/>"#;
    for (quincy, left) in [("1 Mi", 2), ("1 Mi, 1 Mc", 1)] {
        let xml = scenario(
            "08/1861",
            &format!(
                r#"<place box="Quincy" units="{quincy}"/><place box="Bloomington (Illinois)" units="1 Vc"/>
                   <place box="Vandalia" units="1 Mi"/><place box="Cairo" units="1 Mi"/>"#
            ),
            confederates,
        );
        let mut t = Game::new(&xml, "union", &[6]);
        let attackers = [
            ("Quincy", t.units("Mi", "Quincy")),
            (
                "Bloomington (Illinois)",
                t.units("Vc", "Bloomington (Illinois)"),
            ),
            ("Vandalia", t.units("Mi", "Vandalia")),
            ("Cairo", t.units("Mi", "Cairo")),
        ];
        let mut seen = Vec::new();
        for (from, units) in attackers {
            t.march(from, &units, "St. Louis");
            seen.push(t.markers("St. Louis", "water-crossing"));
        }
        let expected = if left == 2 {
            vec![1, 2, 3, 2]
        } else {
            vec![0, 1, 2, 1]
        };
        assert_eq!(seen, expected, "Quincy holding {quincy}");
        assert_eq!(t.markers("St. Louis", "water-crossing"), left);
    }
}

/// The seed, "Water crossings": "if no army ends up moving into St. Louis, they are all
/// removed before the next marches are bought": the seed places a round's marches
/// together, so a token stays through the round's other marches and goes when the
/// next round of purchases begins (issue 51, 4).
#[test]
fn seed_water_crossings_go_when_no_army_crosses() {
    let xml = scenario(
        "08/1861",
        r#"<place box="Quincy" units="1 Mi"/><place box="Chicago" units="1 Mi"/>"#,
        r#"<place box="St. Louis" units="1 Mi"/><control box="St. Louis"/>"#,
    );
    let mut t = Game::new(&xml, "union", &[3]);
    t.act(&Action::Select { at: t.id("Quincy") });
    assert_eq!(t.markers("St. Louis", "water-crossing"), 1);
    t.act(&Action::Release);
    t.act(&Action::Select {
        at: t.id("Chicago"),
    });
    assert_eq!(
        t.markers("St. Louis", "water-crossing"),
        1,
        "the round's marches are placed together"
    );
    t.act(&Action::Release);
    t.act(&Action::EndStep);
    assert_eq!(t.g.repeat, 1, "the second round of purchases");
    assert_eq!(t.markers("St. Louis", "water-crossing"), 0);
}

/// The seed, "Water crossings": "If an army does cross into St. Louis, any water
/// crossings remain": the tokens of every army that got a march, not only of the
/// armies that crossed (issue 51, 4).
#[test]
fn seed_water_crossings_of_every_march_stay_when_one_army_crosses() {
    let xml = scenario(
        "08/1861",
        r#"<place box="Quincy" units="1 Mi"/><place box="Vandalia" units="1 Mi"/>"#,
        r#"<place box="St. Louis" units="1 Mi"/><control box="St. Louis"/>"#,
    );
    let mut t = Game::new(&xml, "union", &[3]);
    t.act(&Action::Select { at: t.id("Quincy") });
    t.act(&Action::Release);
    let mi = t.unit("Mi", "Vandalia");
    t.march("Vandalia", &[mi], "St. Louis");
    assert_eq!(t.markers("St. Louis", "water-crossing"), 2);
    t.act(&Action::EndStep);
    assert_eq!(
        t.markers("St. Louis", "water-crossing"),
        2,
        "Quincy's token stays: an army crossed"
    );
}

/// The shot modifier the rules give `shooter` in the battle under way.
fn modifier(t: &mut Game, shooter: UnitId) -> i64 {
    let target = {
        let b = t.g.combat.as_ref().unwrap().battle.as_ref().unwrap();
        let mine = t.g.unit(shooter).side;
        if mine == b.attacker {
            b.defenders[0]
        } else {
            b.attackers[0]
        }
    };
    let view = View {
        module: &t.m,
        state: &t.g,
    };
    ask_int(
        &mut t.rules,
        view,
        Question::ShotModifier { shooter, target },
    )
    .unwrap()
    .unwrap_or(0)
}

/// What each unit needs to hit: its strength with the modifiers.
fn strengths(t: &mut Game, units: &[UnitId]) -> Vec<i64> {
    units
        .iter()
        .map(|&u| {
            let combat = i64::from(t.m.units.get(t.g.unit(u).kind).combat);
            combat + modifier(t, u)
        })
        .collect()
}

impl Game {
    fn set_attribute(&mut self, u: UnitId, name: &str, value: i64) {
        let a = self.m.units.find_attribute(name).unwrap();
        self.g.attributes.retain(|&(x, y, _)| (x, y) != (u, a));
        self.g.attributes.push((u, a, value));
    }

    /// Plays on to the battle at `at` in the Combat phase and begins it.
    fn fight(&mut self, at: &str) {
        self.until_step("combat");
        // TripleA's battle: no withdrawal, the first volley is fired at once.
        self.act(&Action::Fight { at: self.id(at) });
    }
}

/// The seed, BATTLE, "Cumulative modifier effects", the worked example at Chattanooga,
/// step by step: "the veteran infantry rolls at 3, the militia infantry and veteran
/// cavalry roll at 2, and the militia cavalry at 1"; the South's entrenchment "lowers all
/// the North's units' strengths by 1"; a Union crack infantry "rolls at a 2 as the
/// veteran does. But now two of the South units have their strengths reduced by 1. One
/// South militia infantry now rolls at a 1, and the militia cavalry cannot roll at
/// all"; a water crossing "raises his units' strengths by 1"; Grant with 2 "bring[s] up
/// the North's militia cavalry which had been at 0 back to 1, and its militia infantry
/// which had been at 1 to 2".
#[test]
fn seed_cumulative_modifiers_example_at_chattanooga() {
    let battle = |union: &str, entrenched: bool, crossing: bool, grant: bool| {
        let xml = scenario(
            "08/1861",
            &format!(r#"<place box="Knoxville" units="{union}"/><control box="Knoxville"/>"#),
            r#"<place box="Chattanooga" units="1 Vi, 2 Mi, 1 Vc, 1 Mc"/>"#,
        );
        // The march roll, then every shot of round 1 misses.
        let mut t = Game::new(&xml, "union", &[2, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6]);
        let north: Vec<UnitId> = t.g.units_at(t.id("Knoxville")).collect();
        t.march("Knoxville", &north, "Chattanooga");
        t.until_step("combat");
        if entrenched {
            t.set_markers("Chattanooga", "entrenchment", 1);
        }
        if crossing {
            t.set_markers("Chattanooga", "water-crossing", 1);
        }
        if grant {
            let g = general(&t, "grant");
            t.g.units[g.index()].place = Place::Board(t.id("Chattanooga"));
            t.set_attribute(g, "strength", 2);
        }
        t.fight("Chattanooga");
        let kinds = ["Vi", "Ci", "Mi", "Vc", "Mc"];
        let north: Vec<UnitId> = kinds
            .iter()
            .flat_map(|k| {
                t.units(k, "Chattanooga")
                    .into_iter()
                    .filter(|&u| t.g.unit(u).side == t.side("union"))
                    .take(1)
                    .collect::<Vec<_>>()
            })
            .collect();
        let south: Vec<UnitId> = ["Vi", "Mi", "Vc", "Mc"]
            .iter()
            .flat_map(|k| {
                t.units(k, "Chattanooga")
                    .into_iter()
                    .filter(|&u| t.g.unit(u).side == t.side("confederate"))
                    .collect::<Vec<_>>()
            })
            .collect();
        (strengths(&mut t, &north), strengths(&mut t, &south))
    };
    // Evenly matched (North: Vi, Mi, Mi, Vc, Mc; each list is Vi, [Ci,] Mi, Vc, Mc).
    assert_eq!(
        battle("1 Vi, 2 Mi, 1 Vc, 1 Mc", false, false, false),
        (vec![3, 2, 2, 1], vec![3, 2, 2, 2, 1])
    );
    // The South entrenched.
    assert_eq!(
        battle("1 Vi, 2 Mi, 1 Vc, 1 Mc", true, false, false),
        (vec![2, 1, 1, 0], vec![3, 2, 2, 2, 1])
    );
    // A Union militia infantry swapped for a crack infantry.
    assert_eq!(
        battle("1 Vi, 1 Ci, 1 Mi, 1 Vc, 1 Mc", true, false, false),
        (vec![2, 2, 1, 1, 0], vec![3, 1, 2, 2, 0])
    );
    // The North crossed water: a water crossing on the South's side.
    assert_eq!(
        battle("1 Vi, 1 Ci, 1 Mi, 1 Vc, 1 Mc", true, true, false),
        (vec![2, 2, 1, 1, 0], vec![4, 2, 3, 3, 1])
    );
    // Grant, promoted, with the North.
    assert_eq!(
        battle("1 Vi, 1 Ci, 1 Mi, 1 Vc, 1 Mc", true, true, true),
        (vec![2, 2, 2, 1, 1], vec![4, 2, 3, 3, 1])
    );
}

/// The seed, "Water crossings": each token "may absorb a hit in battle" ("They may also
/// be used as casualties in battle, adding a hit point to the defender"), and in
/// TripleA's battle the owner picks his casualties (issue 51, 6): a hit on the defender
/// is his to take off a unit (`Lose`) or a token (`Absorb`). The engine spends no token
/// by itself; the choice is recorded and replays like any other.
#[test]
fn seed_the_defender_chooses_a_water_crossing_or_a_unit_as_the_casualty() {
    let xml = scenario(
        "08/1861",
        r#"<place box="Knoxville" units="1 Vi"/><control box="Knoxville"/>"#,
        r#"<place box="Chattanooga" units="1 Mi"/>"#,
    );
    // Marches 2; the defender misses (6), the attacker hits (1): both sides fire at once.
    let mut t = Game::new(&xml, "union", &[2, 6, 1, 6, 6, 6, 6]);
    let vi = t.unit("Vi", "Knoxville");
    t.march("Knoxville", &[vi], "Chattanooga");
    t.until_step("combat");
    t.set_markers("Chattanooga", "water-crossing", 1);
    let mi = t.unit("Mi", "Chattanooga");
    let log = t.act(&Action::Fight {
        at: t.id("Chattanooga"),
    });
    let text = log.join("\n");
    assert!(text.contains("Confederacy must lose 1 step"), "{text}");
    assert_eq!(
        t.markers("Chattanooga", "water-crossing"),
        1,
        "not spent yet"
    );
    assert_eq!(
        t.legal(),
        vec![Action::Lose { unit: mi }, Action::Absorb],
        "the Confederacy chooses"
    );
    let before = t.g.clone();
    // A unit instead: the token stays, and with it the defenders' +1.
    t.act(&Action::Lose { unit: mi });
    assert_eq!(t.markers("Chattanooga", "water-crossing"), 1);
    assert!(!matches!(t.g.unit(mi).place, Place::Board(_)));
    // The token: the militia is unharmed.
    t.g = before;
    let text = t.act(&Action::Absorb).join("\n");
    assert!(text.contains("Confederacy has a hit absorbed"), "{text}");
    assert!(
        text.contains("a water crossing at Chattanooga takes the hit"),
        "{text}"
    );
    assert_eq!(t.markers("Chattanooga", "water-crossing"), 0);
    assert_eq!(
        t.g.unit(mi).place,
        Place::Board(t.id("Chattanooga")),
        "unharmed"
    );
    // No token left: no more to absorb with.
    assert!(t.try_act(&Action::Absorb).is_err());
}

/// The computer players' choice between a water crossing and a unit (the seed, "Water
/// crossings": "Any number of water crossings on the defender's side raises all of his
/// units' strength by 1. Multiple water crossings do not raise the defenders' strength
/// further, but each may absorb a hit"): a token beyond the first costs nothing to
/// spend; the last one is kept when its +1 to every defender is worth more than the
/// militia lost instead, and spent when it is not.
#[test]
fn seed_computer_players_keep_the_last_water_crossing_while_it_is_worth_more() {
    let choice = |defenders: &str, tokens: u16, dice: &[u32]| {
        let xml = scenario(
            "08/1861",
            r#"<place box="Knoxville" units="1 Vi"/><control box="Knoxville"/>"#,
            &format!(r#"<place box="Chattanooga" units="{defenders}"/>"#),
        );
        let mut t = Game::new(&xml, "union", dice);
        let vi = t.unit("Vi", "Knoxville");
        t.march("Knoxville", &[vi], "Chattanooga");
        t.until_step("combat");
        t.set_markers("Chattanooga", "water-crossing", tokens);
        t.act(&Action::Fight {
            at: t.id("Chattanooga"),
        });
        let legal = t.legal();
        assert!(legal.contains(&Action::Absorb), "{legal:?}");
        muster_ai::battle::loss_action(&t.m, &mut t.rules, &t.g, &legal)
            .unwrap()
            .unwrap()
    };
    // Four militia at 3 with the token: 12; spending it leaves 8, a militia 9.
    let four = "4 Mi";
    let dice = [2, 6, 6, 6, 6, 1];
    assert!(matches!(choice(four, 1, &dice), Action::Lose { .. }));
    // A second token: spending one keeps the +1.
    assert_eq!(choice(four, 2, &dice), Action::Absorb);
    // A lone militia: spending the token leaves it a shot at 2, losing it none.
    assert_eq!(choice("1 Mi", 1, &[2, 6, 1]), Action::Absorb);
}

/// The general pieces of a type.
fn general(t: &Game, id: &str) -> UnitId {
    t.g.unit_ids()
        .find(|&u| t.m.units.get(t.g.unit(u).kind).id == id)
        .unwrap()
}

fn strength(t: &Game, u: UnitId) -> Option<i64> {
    t.g.attribute(&t.m, u, t.m.units.find_attribute("strength").unwrap())
}

/// The seed, "Generals": "They are placed during the recruitment phase of the
/// appropriate player's turn during the month referenced" (Grant Jan./Feb. 1862) "in any
/// box containing friendly troops ... not in boxes containing no troops".
#[test]
fn seed_generals_arrive_in_their_month_where_friendly_troops_are() {
    let troops = r#"<place box="Cairo" units="1 Mi"/><place box="Washington" units="1 Mi"/>"#;
    let before = scenario("11-12/1861", troops, "");
    let mut t = Game::new(&before, "union", &[3, 6]);
    t.until_step("recruitment");
    assert!(
        t.offers("place-general").is_empty(),
        "Grant is not available before 1862"
    );

    let xml = scenario("01-02/1862", troops, "");
    let mut t = Game::new(&xml, "union", &[3, 6]);
    t.until_step("recruitment");
    let offers = t.offers("place-general");
    let grant = general(&t, "grant");
    let boxes: Vec<BoxId> = offers
        .iter()
        .filter_map(|(a, _)| match a {
            Action::Take {
                unit: Some(u),
                at: Some(b),
                ..
            } if *u == grant => Some(*b),
            _ => None,
        })
        .collect();
    assert_eq!(
        boxes,
        vec![t.id("Cairo"), t.id("Washington")],
        "only where his troops are"
    );
    assert!(
        offers
            .iter()
            .all(|(a, _)| matches!(a, Action::Take { unit: Some(u), .. } if *u == grant)),
        "Sherman and Lee come later"
    );
    let place = offers[0].0.clone();
    t.act(&place);
    assert_eq!(t.g.unit(grant).place, Place::Board(t.id("Cairo")));
    assert_eq!(strength(&t, grant), Some(1), "initial strength 1");
    assert!(t.offers("place-general").is_empty());
}

/// The seed, "Generals": "Generals may move independently of troops on each march at no
/// cost. They may move two boxes during a march, and can enter enemy territory".
#[test]
fn seed_generals_move_two_boxes_for_nothing() {
    let xml = scenario(
        "03/1862",
        r#"<place box="Cairo" units="1 Mi"/><place box="Washington" units="1 Mi"/>"#,
        "",
    );
    let mut t = Game::new(&xml, "union", &[2]);
    let grant = general(&t, "grant");
    t.g.units[grant.index()].place = Place::Board(t.id("Cairo"));
    let moves = t.offers("move-general");
    let to: Vec<String> = moves
        .iter()
        .filter_map(|(a, _)| match a {
            Action::Take { at: Some(b), .. } => Some(t.m.board.get(*b).name.clone()),
            _ => None,
        })
        .collect();
    assert!(to.contains(&"St. Louis".to_string()), "one box: {to:?}");
    assert!(
        to.contains(&"Island No. 10".to_string()),
        "enemy territory: {to:?}"
    );
    assert!(
        to.contains(&"Jefferson City".to_string()),
        "two boxes: {to:?}"
    );
    assert!(moves.iter().all(|(_, cost)| *cost == 0), "at no cost");
    let go = moves
        .iter()
        .find(
            |(a, _)| matches!(a, Action::Take { at: Some(b), .. } if *b == t.id("Jefferson City")),
        )
        .unwrap()
        .0
        .clone();
    t.act(&go);
    assert_eq!(t.g.unit(grant).place, Place::Board(t.id("Jefferson City")));
    assert_eq!(t.pu(), 2, "no PU spent");
    assert!(
        t.offers("move-general").is_empty(),
        "once in this round of marches"
    );
    t.act(&Action::EndStep);
    assert!(
        !t.offers("move-general").is_empty(),
        "and again in the second"
    );
}

/// The seed, "Generals": "The following year, their statuses change" (Grant June 1863:
/// 2; Lee September 1863: 2) and "he loses a march. He may only move on the second
/// march of that turn."
#[test]
fn seed_generals_change_strength_on_their_dates() {
    let xml = scenario(
        "05/1863",
        r#"<place box="Cairo" units="1 Mi"/>"#,
        r#"<place box="Richmond" units="1 Mi"/>"#,
    );
    let mut t = Game::new(&xml, "union", &[2, 6, 2, 6, 2, 6, 2, 6]);
    let (grant, lee) = (general(&t, "grant"), general(&t, "lee"));
    t.g.units[grant.index()].place = Place::Board(t.id("Cairo"));
    assert_eq!((strength(&t, grant), strength(&t, lee)), (Some(1), Some(3)));
    // Through the rest of May: the Confederate turn, then June's Union movement.
    t.until_step("recruitment");
    t.act(&Action::EndStep);
    t.until_step("movement");
    assert_eq!(t.g.active_side(&t.m), t.side("confederate"));
    t.until_step("recruitment");
    t.act(&Action::EndStep);
    t.until_step("movement");
    assert_eq!(t.g.active_side(&t.m), t.side("union"));
    assert_eq!(strength(&t, grant), Some(2), "promoted in June 1863");
    assert_eq!(
        strength(&t, lee),
        Some(3),
        "Lee's change comes in September"
    );
    assert!(
        t.offers("move-general").is_empty(),
        "Grant loses the first march"
    );
    t.act(&Action::EndStep);
    assert!(
        !t.offers("move-general").is_empty(),
        "he moves on the second"
    );
}

/// The seed, "Generals": "If on the losing side, they are temporarily removed from play
/// but may be placed again on the recruitment phase of the player's next turn."
#[test]
fn seed_a_general_on_the_losing_side_leaves_and_comes_back_next_turn() {
    let xml = scenario(
        "03/1862",
        r#"<place box="Knoxville" units="1 Mi"/><control box="Knoxville"/><place box="Cairo" units="1 Mi"/>"#,
        r#"<place box="Chattanooga" units="2 Vi"/>"#,
    );
    // Marches 2; the defenders hit (1, 1); the attacker misses (6).
    let mut t = Game::new(&xml, "union", &[2, 1, 1, 6, 6, 6, 6, 6, 6]);
    let mi = t.unit("Mi", "Knoxville");
    t.march("Knoxville", &[mi], "Chattanooga");
    t.until_step("combat");
    let grant = general(&t, "grant");
    t.g.units[grant.index()].place = Place::Board(t.id("Chattanooga"));
    t.fight("Chattanooga");
    for _ in 0..10 {
        if t.g.combat.as_ref().is_none_or(|c| c.battle.is_none()) {
            break;
        }
        let legal = t.legal();
        let a = legal
            .iter()
            .find(|a| matches!(a, Action::Target { .. } | Action::Lose { .. }))
            .unwrap_or(&Action::Pass)
            .clone();
        t.act(&a);
    }
    assert_eq!(t.g.unit(grant).place, Place::Stock, "removed from play");
    t.until_step("recruitment");
    assert!(
        t.offers("place-general").is_empty(),
        "not in the turn he lost"
    );
    // The next Union turn's recruitment phase.
    t.act(&Action::EndStep);
    t.until_step("movement");
    t.until_step("recruitment");
    t.act(&Action::EndStep);
    t.until_step("recruitment");
    assert_eq!(t.g.active_side(&t.m), t.side("union"));
    assert!(
        !t.offers("place-general").is_empty(),
        "placed again in his next turn"
    );
}

/// The seed, "Generals": a general "can enter enemy territory but not capture it" and
/// does "not otherwise participate in battle"; "If on the losing side, they are
/// temporarily removed from play". One who goes alone into a box holding an enemy army
/// starts no battle and cannot hold the box: when the battles are over he leaves the
/// field as after a defeat. Alone in enemy territory with no enemy army he stays, and
/// the box keeps its colour.
#[test]
fn seed_a_lone_general_among_an_enemy_army_leaves_the_field() {
    let alone = |confederate: &str| {
        let xml = scenario(
            "03/1862",
            r#"<place box="Cairo" units="1 Mi"/><control box="Cairo"/>"#,
            confederate,
        );
        let mut t = Game::new(&xml, "union", &[2, 6, 6, 6, 6]);
        let grant = general(&t, "grant");
        t.g.units[grant.index()].place = Place::Board(t.id("Cairo"));
        let go = t
            .offers("move-general")
            .into_iter()
            .find(|(a, _)| matches!(a, Action::Take { at: Some(b), .. } if *b == t.id("Island No. 10")))
            .expect("Grant may enter Island No. 10 alone")
            .0;
        t.act(&go);
        assert_eq!(t.g.unit(grant).place, Place::Board(t.id("Island No. 10")));
        let before = t.controller("Island No. 10");
        let mut log = Vec::new();
        while t.step() != "recruitment" {
            log.extend(t.act(&Action::EndStep));
        }
        let island = Place::Board(t.id("Island No. 10"));
        (
            t.g.unit(grant).place == island,
            t.g.unit(grant).place,
            log.join("\n"),
            before,
            t.controller("Island No. 10"),
        )
    };
    // An enemy army there: no battle, and Grant leaves the field.
    let (_, place, log, _, _) = alone(r#"<place box="Island No. 10" units="1 Mi"/>"#);
    assert!(!log.contains("battle at Island No. 10"), "{log}");
    assert_eq!(place, Place::Stock, "{log}");
    assert!(
        log.contains(
            "General Grant is alone with the enemy's army at Island No. 10 and leaves the field"
        ),
        "{log}"
    );
    // No enemy army: he stays, and captures nothing.
    let (stays, _, log, before, after) = alone("");
    assert!(stays, "{log}");
    assert_eq!(before, after, "not captured");
}

/// The seed, PROMOTIONS: "each player is allowed one 'political' promotion per turn. He
/// gets this political promotion each turn, whether he won any battles or not."
#[test]
fn seed_one_political_promotion_a_turn() {
    let xml = scenario(
        "08/1861",
        r#"<place box="Cairo" units="2 Mi"/><place box="Washington" units="1 Mi"/>"#,
        "",
    );
    let mut t = Game::new(&xml, "union", &[2, 6]);
    t.until_step("promotion");
    let upgrades = |t: &mut Game| {
        t.legal()
            .into_iter()
            .filter(|a| matches!(a, Action::Upgrade { .. }))
            .collect::<Vec<_>>()
    };
    let first = upgrades(&mut t);
    assert_eq!(first.len(), 3, "any promotable unit");
    t.act(&first[0]);
    assert!(upgrades(&mut t).is_empty(), "one promotion a turn");
}

/// Recruits the militia type `kind` in `at`, if the rules allow it.
fn recruit(t: &mut Game, kind: &str, at: &str) -> bool {
    let a = Action::Place {
        kind: t.m.units.find(kind).unwrap(),
        at: t.id(at),
    };
    t.legal().contains(&a) && t.try_act(&a).is_ok()
}

/// The seed, RECRUITING, "Recruiting maximum": "the North's recruiting maximum for
/// infantry is 12, the South's is 8. Both sides have a cavalry recruiting maximum of 1";
/// "Militia units are removed from play through battle casualties and promotion, making
/// them again recruitable"; "Drafts ... in April of 1862, 1863, and 1864 ... increased by
/// 4"; and "Placing new recruits": "only 1 unit may be placed each turn in any
/// recruiting city".
#[test]
fn seed_recruiting_maximum_militia_drafts_and_one_recruit_a_city() {
    let twelve = r#"<place box="Chicago" units="4 Mi"/><place box="Indianapolis" units="4 Mi"/>
                    <place box="Columbus" units="4 Mi"/><pool units="12 Mi, 1 Mc"/>"#;
    let xml = scenario("03/1862", twelve, "");
    let mut t = Game::new(&xml, "union", &[2, 6]);
    t.until_step("recruitment");
    assert!(
        !recruit(&mut t, "Mi", "New York"),
        "12 militia infantry: the maximum"
    );
    assert!(recruit(&mut t, "Mc", "New York"), "one militia cavalry");
    assert!(!recruit(&mut t, "Mc", "Philadelphia"), "cavalry maximum 1");

    // April 1862: the first draft, 16; one recruit a city.
    let xml = scenario("04/1862", twelve, "");
    let mut t = Game::new(&xml, "union", &[2, 6]);
    t.until_step("recruitment");
    assert!(recruit(&mut t, "Mi", "New York"));
    assert!(
        !recruit(&mut t, "Mi", "New York"),
        "no city recruits twice a turn"
    );
    assert!(recruit(&mut t, "Mi", "Philadelphia"));
    assert!(recruit(&mut t, "Mi", "Chicago"));
    assert!(recruit(&mut t, "Mi", "Pittsburgh"));
    assert!(
        !recruit(&mut t, "Mi", "Cleveland"),
        "16 after the 1862 draft"
    );
}

/// The seed, "Border states": "At the beginning of the first South turn on which the
/// South controls all the recruiting cities in any of these states ... the South's
/// infantry recruiting maximum is permanently increased by 1. The bonus is not removed
/// if the South loses these cities."
#[test]
fn seed_border_states_raise_the_confederate_recruiting_maximum() {
    let eight = r#"<place box="Richmond" units="4 Mi"/><place box="Memphis" units="4 Mi"/>
                   <control box="Bowling Green"/><control box="Louisville"/><pool units="3 Mi"/>"#;
    let xml = scenario(
        "08/1861",
        r#"<place box="Washington" units="1 Mi"/>"#,
        eight,
    );
    let mut t = Game::new(&xml, "confederate", &[2, 6, 2, 6, 2, 6, 2, 6, 2, 6]);
    assert!(
        t.g.var("border-state:kentucky") == 0,
        "the player turn had begun before the test took over"
    );
    // From the start of the next Confederate turn on.
    t.until_step("recruitment");
    t.act(&Action::EndStep);
    t.until_step("movement");
    t.until_step("recruitment");
    t.act(&Action::EndStep);
    t.until_step("movement");
    assert_eq!(t.g.active_side(&t.m), t.side("confederate"));
    assert_eq!(t.g.var("border-state:kentucky"), 1, "Kentucky held");
    assert_eq!(t.g.var("border-state:missouri"), 0);
    t.until_step("recruitment");
    assert!(recruit(&mut t, "Mi", "Atlanta"), "a ninth militia infantry");
    assert!(!recruit(&mut t, "Mi", "New Orleans"), "but not a tenth");
}

/// The seed, "Confederates block downriver jump moves": "The Union army at Memphis looks
/// like it should be able to jump the Confederates at Arkansas Post and hit Vicksburg.
/// But the boat icon doesn't appear. The presence of another Confederate army also
/// upriver of Arkansas Post -- at Little Rock -- is close enough to intervene".
#[test]
fn seed_a_confederate_army_upriver_blocks_the_downriver_jump() {
    for (little_rock, jumps) in [(false, true), (true, false)] {
        let extra = if little_rock {
            r#"<place box="Little Rock" units="1 Mi"/>"#
        } else {
            ""
        };
        let xml = scenario(
            "08/1862",
            r#"<place box="Memphis" units="1 Vi"/><control box="Memphis"/>"#,
            &format!(r#"<place box="Arkansas Post" units="1 Mi"/>{extra}"#),
        );
        let mut t = Game::new(&xml, "union", &[3]);
        t.act(&Action::Select {
            at: t.id("Memphis"),
        });
        let vi = t.unit("Vi", "Memphis");
        assert_eq!(
            t.move_to(vi, "Vicksburg").is_some(),
            jumps,
            "Little Rock held: {little_rock}"
        );
    }
}

/// The seed, "Naval transport and naval assault" and "Ft. Monroe": assaults only after a
/// 6 for marches with an army in Washington, 1 PU a unit, to any port; not to Yorktown
/// or Norfolk while the South holds Fort Monroe; a transport only between friendly ports.
#[test]
fn seed_naval_assaults_and_fort_monroe() {
    let assaults = |roll: u32, south_holds_monroe: bool, washington: &str| {
        let union = format!(
            r#"<place box="Washington" units="{washington}"/><place box="Baltimore" units="2 Mi"/>"#
        );
        let union = union.replace(r#"<place box="Washington" units=""/>"#, "");
        let union = union.as_str();
        let monroe = if south_holds_monroe {
            r#"<control box="Fort Monroe"/>"#
        } else {
            ""
        };
        let xml = scenario("08/1861", union, monroe);
        let mut t = Game::new(&xml, "union", &[roll]);
        t.act(&Action::Select {
            at: t.id("Baltimore"),
        });
        let mut to: Vec<String> = t
            .offers("naval-assault")
            .iter()
            .filter_map(|(a, cost)| {
                assert_eq!(*cost, 1, "1 PU each");
                match a {
                    Action::Take { at: Some(b), .. } => Some(t.m.board.get(*b).name.clone()),
                    _ => None,
                }
            })
            .collect();
        to.sort();
        to.dedup();
        let transports = t.offers("naval-transport").len();
        (to, transports)
    };
    let (none, transports) = assaults(5, false, "2 Mi");
    assert!(none.is_empty(), "no 6, no assault");
    assert!(transports > 0, "transports need no 6");
    let (open, _) = assaults(6, false, "2 Mi");
    assert!(
        open.contains(&"Norfolk".to_string()) && open.contains(&"Wilmington".to_string()),
        "{open:?}"
    );
    let (no_army, _) = assaults(6, false, "");
    assert!(
        no_army.is_empty(),
        "no army in Washington, no assault: {no_army:?}"
    );
    let (closed, _) = assaults(6, true, "2 Mi");
    assert!(
        !closed.contains(&"Norfolk".to_string()) && !closed.contains(&"Yorktown".to_string()),
        "{closed:?}"
    );
    assert!(
        closed.contains(&"Fort Monroe".to_string()),
        "the North may assault Ft. Monroe"
    );
}

/// The seed, "Naval transport and naval assault": "Units aboard a naval assault may
/// disembark at any port, friendly or enemy", and "Placing any number of naval assaults
/// also places a march in Washington" (issue 51, 3): from a port where no transport
/// sails (Wilmington, not the Union's), an assault may land in Baltimore, and
/// Washington's march then costs nothing.
#[test]
fn seed_a_naval_assault_lands_in_any_port_and_gives_washington_a_march() {
    let xml = scenario(
        "08/1861",
        r#"<place box="Washington" units="2 Mi"/><place box="Wilmington" units="1 Mi"/>"#,
        "",
    );
    let mut t = Game::new(&xml, "union", &[6]);
    // Landed there by an earlier assault: the port is still the Confederacy's.
    let wilmington = t.id("Wilmington");
    t.g.boxes[wilmington.index()].controller = Some(t.side("confederate"));
    t.act(&Action::Select {
        at: t.id("Wilmington"),
    });
    assert_eq!(t.pu(), 5);
    let baltimore = t.id("Baltimore");
    let assault = t
        .offers("naval-assault")
        .into_iter()
        .find(|(a, _)| matches!(a, Action::Take { at: Some(b), .. } if *b == baltimore))
        .map(|(a, _)| a)
        .expect("an assault may land in a friendly port");
    let log = t.act(&assault).join("\n");
    assert!(log.contains("march in Washington"), "{log}");
    assert_eq!(t.pu(), 4, "1 PU the assault");
    t.act(&Action::Release);
    t.act(&Action::Select {
        at: t.id("Washington"),
    });
    assert_eq!(t.pu(), 4, "Washington's march is the assault's");
    t.act(&Action::Release);
    assert!(
        t.try_act(&Action::Select {
            at: t.id("Washington")
        })
        .is_err()
            || t.pu() == 3,
        "only one free march"
    );
}

/// The seed has one scenario and none of AHD's optional rules (issue 51, 9): the overlay
/// removes AHD's other scenarios and marks each inherited option as AHD's.
#[test]
fn the_adaptation_has_one_scenario_and_marks_ahds_options() {
    let (m, _) = triplea();
    let ids: Vec<&str> = m.scenarios.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["1861"]);
    assert_eq!(m.options.len(), 16);
    for o in &m.options {
        assert!(o.title.ends_with("not in the adaptation)"), "{}", o.title);
    }
}

/// The seed, VICTORY: "If the South captures Washington, the North has its next turn to
/// liberate it. If it fails to do so on that turn, the South wins."
#[test]
fn seed_washington_captured_the_union_has_a_turn_to_retake_it() {
    let xml = scenario(
        "08/1861",
        r#"<place box="Baltimore" units="1 Mi"/>"#,
        r#"<place box="Washington" units="1 Vi"/><control box="Washington"/>"#,
    );
    let mut t = Game::new(&xml, "confederate", &[2, 6, 2, 6, 2, 6, 2, 6]);
    t.until_step("recruitment");
    t.act(&Action::EndStep);
    assert!(t.g.outcome.is_none(), "the Union has its turn");
    assert_eq!(t.g.active_side(&t.m), t.side("union"));
    t.until_step("recruitment");
    t.act(&Action::EndStep);
    let outcome = t.g.outcome.as_ref().expect("the Union did not liberate it");
    assert_eq!(outcome.winner, Some(t.side("confederate")));
    assert!(outcome.reason.contains("Washington"), "{}", outcome.reason);
}

/// The seed, VICTORY: "Economic victory. The South player immediately wins if, following
/// his battle phase, his army maximum is greater than the North's." Not after the
/// Union's.
#[test]
fn seed_economic_victory_after_the_confederate_battle_phase() {
    let mut north_cities = String::new();
    for city in [
        "Baltimore",
        "Philadelphia",
        "Pittsburgh",
        "Cincinnati",
        "Louisville",
        "St. Louis",
    ] {
        north_cities.push_str(&format!(r#"<control box="{city}"/>"#));
    }
    let xml = scenario(
        "08/1861",
        r#"<place box="Washington" units="1 Mi"/>"#,
        &format!(r#"<place box="Richmond" units="1 Mi"/>{north_cities}"#),
    );
    let mut t = Game::new(&xml, "union", &[2, 6, 2, 6]);
    let (m, g) = (&t.m, &t.g);
    let csa = g.army_maximum(m, t.side("confederate"));
    let usa = g.army_maximum(m, t.side("union"));
    assert!(csa > usa, "the set-up: {csa} against {usa}");
    t.until_step("promotion");
    assert!(t.g.outcome.is_none(), "not after the Union's battle phase");
    t.until_step("recruitment");
    t.act(&Action::EndStep);
    t.until_step("promotion");
    let outcome =
        t.g.outcome
            .as_ref()
            .expect("after the Confederate battle phase");
    assert!(outcome.reason.contains("economic"), "{}", outcome.reason);
}

fn muster(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_muster"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .env_remove("MUSTER_LOG")
        .output()
        .expect("run muster")
}

/// `muster play mods/ahd-triplea --union ai --confederate ai` plays whole games, and the
/// adaptation's rules show in the log: PUs rolled, marches bought, the seed's victory.
#[test]
fn the_adaptation_plays_whole_games_between_computer_players() {
    let out = muster(&[
        "play",
        "mods/ahd-triplea",
        "--union",
        "ai",
        "--confederate",
        "ai",
        "--seed",
        "3",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("PUs"), "PUs rolled: {stdout}");
    assert!(stdout.contains("buy a march for"), "marches bought");
    assert!(
        stdout.contains("wins") || stdout.contains("draw"),
        "{}",
        &stdout[stdout.len().saturating_sub(600)..]
    );
}

/// `muster balance` runs on the mod (to the end of 1861): every game reaches a result.
#[test]
fn balance_runs_on_the_adaptation() {
    let out = muster(&[
        "balance",
        "mods/ahd-triplea",
        "--games",
        "2",
        "--threads",
        "2",
        "--seed",
        "1",
        "--end",
        "12/1861",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let summary = &report["summary"];
    assert_eq!(summary["games"].as_u64(), Some(2), "{report}");
    assert_eq!(summary["unfinished"].as_u64(), Some(0), "{report}");
}

/// The seed, VICTORY, as the players read it: the mod replaces AHD's
/// `victory_progress` handler by its id, so the counts cite the seed's own conditions
/// (the seven cities after the Union battle phase, Washington held through a turn).
#[test]
fn seed_victory_progress_replaces_ahds_by_its_handler_id() {
    use muster_core::game::View;
    use muster_core::game::rules::Rules;
    let xml = scenario(
        "08/1861",
        r#"<control box="Memphis"/><control box="Mobile"/>"#,
        "",
    );
    let mut t = Game::new(&xml, "union", &[3]);
    let progress = t
        .rules
        .victory_progress(View {
            module: &t.m,
            state: &t.g,
        })
        .unwrap();
    assert_eq!(progress.len(), 3, "AHD's three replaced, not added to");
    assert_eq!(
        progress[0].goal,
        "the seven key cities held after the Union battle phase (seed, VICTORY)"
    );
    assert_eq!((progress[0].have, progress[0].need), (2.0, 7.0));
    assert!(progress[2].goal.contains("Washington held through"));
}
