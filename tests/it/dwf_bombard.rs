//! Naval bombardment of forts on Divided We Fall (`mods/dwf`, rules text
//! `../shared/seeds/003_2cae1f8ca12d9fc8.txt`, L406-L414, lines cited `Lnnn`): each
//! naval unit lost is a decision (an offer naming it) that the engine checks against the
//! rules' fresh list, records and replays; one the rules close is refused with their
//! reason, naming the line. What is offered where is `muster test mods/dwf`
//! (`mods/dwf/tests/bombard.luau`).

use muster_core::game::save::{Save, SavedScenario};
use muster_core::game::{Action, Dice, GameState, apply, legal_actions, start};
use muster_core::ids::UnitId;
use muster_core::{Module, load_module, load_scenario_str};
use muster_scripting::{Limits, ScriptRules};
use muster_test_support::root;

/// May 1863: three Union ports with a fort each, and naval units next to them: a fort
/// of 3 at Charleston (L406), a fort of 2 at Wilmington with ships and a gunboat in its
/// blockade box and a supply unit, a fort of 1 at Savannah with a ship and no supply.
const PORTS: &str = r#"<scenario id="t" name="t" start="05/1863">
  <side id="union">
    <place box="Washington DC" units="1 I1"/>
    <place box="Blockade Box (Charleston)" units="1 SH, 1 SU"/>
    <place box="Blockade Box (Wilmington)" units="3 SH, 1 GB, 1 SU"/>
    <place box="Blockade Box (Savannah and Jacksonville)" units="1 SH"/>
  </side>
  <side id="confederate">
    <place box="Atlanta" units="1 I1"/>
    <place box="Charleston SC" units="1 F3"/>
    <place box="Wilmington" units="1 F2"/>
    <place box="Savannah" units="1 F1"/>
  </side>
</scenario>"#;

struct Game {
    m: Module,
    rules: ScriptRules,
    g: GameState,
    actions: Vec<Action>,
}

impl Game {
    /// The game at the Union's Campaign phase (the CSA's turn and the Union's
    /// Reinforcements ended, each reinforcement's place the first offered).
    fn new() -> Game {
        let m = load_module(root().join("mods/dwf")).unwrap_or_else(|e| panic!("{e}"));
        let mut rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
        let scenario = load_scenario_str(&m, "t", PORTS).unwrap_or_else(|e| panic!("{e}"));
        let (g, _) = start(&m, &mut rules, &scenario, Vec::new(), Dice::seeded(1)).unwrap();
        let mut t = Game {
            m,
            rules,
            g,
            actions: Vec::new(),
        };
        let union = t.m.find_side("union").unwrap();
        while !(t.g.active_side(&t.m) == union
            && t.g.current_step(&t.m).is_some_and(|s| s.id == "campaign"))
        {
            let place = t
                .legal()
                .into_iter()
                .find(|a| matches!(a, Action::Take { offer, .. } if offer.starts_with("appear-")));
            t.act(place.unwrap_or(Action::EndStep));
        }
        t
    }

    fn act(&mut self, a: Action) {
        let (next, _) =
            apply(&self.m, &mut self.rules, &self.g, &a).unwrap_or_else(|e| panic!("{a:?}: {e}"));
        self.g = next;
        self.actions.push(a);
    }

    fn legal(&mut self) -> Vec<Action> {
        legal_actions(&self.m, &mut self.rules, &self.g).unwrap()
    }

    fn units(&self, kind: &str, at: &str) -> Vec<UnitId> {
        let kind = self.m.units.find(kind).unwrap();
        let at = self.m.board.find(at).unwrap();
        self.g
            .units_at(at)
            .filter(|&u| self.g.unit(u).kind == kind)
            .collect()
    }

    fn bombard(&self, unit: UnitId, fort: &str) -> Action {
        Action::Take {
            offer: "dwf.bombard".into(),
            unit: Some(unit),
            at: self.m.board.find(fort),
            label: "bombard".into(),
            seat: None,
            entry: None,
        }
    }

    /// The refusal of bombarding `fort` by losing `unit`; the game unchanged.
    fn refused(&mut self, unit: UnitId, fort: &str) -> String {
        let a = self.bombard(unit, fort);
        apply(&self.m, &mut self.rules, &self.g, &a)
            .map(|_| panic!("{a:?} was taken"))
            .unwrap_err()
            .to_string()
    }
}

/// L406, L408, L410: a bombardment the rules close is refused with their reason, which
/// names the line: a fort of 3, a gunboat next to a blockade box, no supply unit with the
/// naval units, a fort already down to the 1 step it keeps.
#[test]
fn a_bombardment_the_rules_close_is_refused_with_the_line() {
    let mut t = Game::new();
    let charleston = t.units("SH", "Blockade Box (Charleston)")[0];
    let err = t.refused(charleston, "Charleston SC");
    assert!(
        err.contains("L406: the fort in Charleston SC is worth 3"),
        "{err}"
    );
    let gb = t.units("GB", "Blockade Box (Wilmington)")[0];
    let err = t.refused(gb, "Wilmington");
    assert!(
        err.contains("L406: gunboats bombard only a port with no line to a blockade box"),
        "{err}"
    );
    let savannah = t.units("SH", "Blockade Box (Savannah and Jacksonville)")[0];
    let err = t.refused(savannah, "Savannah");
    assert!(
        err.contains("L408, L410: a supply unit must be expended"),
        "{err}"
    );
    // A ship bombards only a fort next to it.
    let err = t.refused(savannah, "Wilmington");
    assert!(err.contains("is not next to Wilmington"), "{err}");
    // Wilmington's fort of 2: the one more ship (L408), then a step for the next; the
    // third ship may not take its last step.
    let ships = t.units("SH", "Blockade Box (Wilmington)");
    let (a, b) = (
        t.bombard(ships[0], "Wilmington"),
        t.bombard(ships[1], "Wilmington"),
    );
    t.act(a);
    t.act(b);
    let fort = t.units("F2", "Wilmington")[0];
    assert_eq!(t.g.unit(fort).hits, 1, "2 ships lost for 1 step");
    let err = t.refused(ships[2], "Wilmington");
    assert!(
        err.contains("L408: the fort in Wilmington keeps at least 1 step"),
        "{err}"
    );
}

/// Each naval unit lost is an action: the save replays to the same state.
#[test]
fn a_bombardment_replays_from_its_save() {
    let mut t = Game::new();
    let ships = t.units("SH", "Blockade Box (Wilmington)");
    for &s in &ships[..2] {
        let a = t.bombard(s, "Wilmington");
        let wilmington = t.m.board.find("Wilmington");
        assert!(
            t.legal()
                .iter()
                .any(|l| matches!(l, Action::Take { offer, unit, at, .. }
                if offer == "dwf.bombard" && *unit == Some(s) && *at == wilmington)),
            "offered among the legal actions"
        );
        t.act(a);
    }
    let save = Save::new(
        &t.m,
        SavedScenario {
            id: "t".into(),
            xml: Some(PORTS.into()),
        },
        Vec::new(),
        1,
        t.actions.clone(),
        t.g.clone(),
    );
    let text = serde_json::to_string(&save).unwrap();
    let read: Save = serde_json::from_str(&text).unwrap();
    let mut rules = ScriptRules::load(&t.m, Limits::default()).unwrap();
    let (replayed, _) = read
        .replay(&t.m, &mut rules)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(replayed, t.g);
    assert_eq!(t.units("SH", "Blockade Box (Wilmington)").len(), 1);
}
