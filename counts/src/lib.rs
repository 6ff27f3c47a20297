//! The workloads whose instruction counts stand for muster's speed (issue 48, item 3):
//! the figures `docs/performance-notes.md` quotes, each built outside what is counted
//! (the module and its rules load in the benchmark's setup) so that a count is the
//! work itself. The same seeds as the notes' callgrind runs of `muster play` and
//! `muster balance`, so the figures can be put side by side.

use muster_ai::balance::{GameSetup, play_game};
use muster_ai::odds::{Config, Report, Setup, Spec, simulate};
use muster_ai::{Level, player, step};
use muster_core::Module;
use muster_core::game::dice::Pcg32;
use muster_core::game::{Action, Dice, GameState, Place, apply, legal_actions, start};
use muster_scripting::{Limits, ScriptRules};

/// AHD loaded with its rules: what every workload starts from.
pub struct Ahd {
    pub module: Module,
    pub rules: ScriptRules,
}

impl Ahd {
    pub fn load() -> Ahd {
        let module = muster_core::load_module(concat!(env!("CARGO_MANIFEST_DIR"), "/../mods/ahd"))
            .unwrap_or_else(|e| panic!("{e}"));
        let rules = ScriptRules::load(&module, Limits::default()).expect("the AHD rules load");
        Ahd { module, rules }
    }

    /// The first position of `scenario` with the game's dice seeded by `seed`.
    pub fn begin(&mut self, scenario: &str, seed: u64) -> GameState {
        let sc = self.module.scenario(scenario).expect("scenario");
        start(
            &self.module,
            &mut self.rules,
            sc,
            Vec::new(),
            Dice::seeded(seed),
        )
        .expect("the scenario starts")
        .0
    }
}

/// A whole game between random players, as `muster play --union random --confederate
/// random` chooses (uniform over the legal list); returns the number of actions.
pub fn random_game(ahd: &mut Ahd, scenario: &str, seed: u64) -> usize {
    let mut state = ahd.begin(scenario, seed);
    let mut chooser = Pcg32::new(seed, 2);
    let mut n = 0;
    while state.outcome.is_none() {
        let legal = legal_actions(&ahd.module, &mut ahd.rules, &state).expect("legal actions");
        let count = u32::try_from(legal.len()).expect("few actions");
        let action = &legal[(chooser.between_one_and(count) - 1) as usize];
        state = apply(&ahd.module, &mut ahd.rules, &state, action)
            .expect("a legal action applies")
            .0;
        n += 1;
    }
    n
}

/// A whole game of `scenario` between two players of `level`; returns its actions.
pub fn computer_game(ahd: &mut Ahd, scenario: &str, level: Level, seed: u64) -> usize {
    let scenario = ahd.module.scenario(scenario).expect("scenario");
    let setup = GameSetup {
        scenario,
        options: Vec::new(),
        players: vec![level; 2],
        end: None,
        max_actions: 200_000,
    };
    play_game(&ahd.module, &mut ahd.rules, &setup, seed)
        .expect("the game plays")
        .0
        .actions
}

/// The side on move's whole player turn by a player of `level`, from `state`; returns
/// the actions it took.
pub fn player_turn(ahd: &mut Ahd, state: &GameState, level: Level, seed: u64) -> usize {
    let mut player = player(level, seed);
    let mut s = state.clone();
    let mut n = 0;
    while s.outcome.is_none() && s.turn == state.turn && s.player == state.player {
        s = step(player.as_mut(), &ahd.module, &mut ahd.rules, &s)
            .expect("the player acts")
            .1;
        n += 1;
    }
    n
}

/// The start of 1864 with the Union's biggest box activated (the most units, so the most
/// paths to search): the position the legal-actions figure is taken at.
pub fn activated_1864(ahd: &mut Ahd) -> GameState {
    let state = ahd.begin("1864", 1);
    let union = ahd.module.find_side("union").expect("union");
    let biggest = ahd
        .module
        .board
        .box_ids()
        .max_by_key(|&b| {
            state
                .units
                .iter()
                .filter(|u| u.side == union && u.place == Place::Board(b))
                .count()
        })
        .expect("boxes");
    apply(
        &ahd.module,
        &mut ahd.rules,
        &state,
        &Action::Select { at: biggest },
    )
    .expect("the biggest box activates")
    .0
}

/// The odds' figure: a 6-against-6 battle at Vicksburg, the defenders entrenched (4.3)
/// and three attackers crossing the Mississippi (5.34), settled by the rules.
pub fn vicksburg(ahd: &mut Ahd) -> Setup {
    let spec = Spec {
        attackers: "3 Vi, 1 Ci, 2 Vc".into(),
        defenders: "2 Vi, 2 Mi, 1 Ci, 1 Vc".into(),
        at: Some("Vicksburg".into()),
        crossing: 3,
        ..Spec::default()
    };
    let mut setup = Setup::from_spec(&ahd.module, &spec).expect("the battle sets up");
    setup
        .settle(&ahd.module, &mut ahd.rules)
        .expect("the rules settle it");
    setup
}

/// `runs` battles of `setup`, as `muster odds` plays them.
pub fn odds(ahd: &mut Ahd, setup: &Setup, runs: u64) -> Report {
    let config = Config {
        runs,
        ..Config::default()
    };
    simulate(&ahd.module, &mut ahd.rules, setup, &config, None).expect("runs")
}
