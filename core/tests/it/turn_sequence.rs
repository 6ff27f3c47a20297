//! The turn sequence as data: steps declared in the calendar, played in order for each
//! side, only in the months they name, repeated, and after every player turn; resources
//! that steps spend, that rules set, and that expire when a step ends. Uses the mini
//! fixture with its calendar rewritten, and rules written in Rust that log every event.

use std::path::Path;

use muster_core::game::{
    Action, ActionError, Answer, Command, Dice, Event, GameState, Offer, Question, RuleError,
    Rules, View, apply, legal_actions, start,
};
use muster_core::{Module, load_module};
use muster_test_support::copy_dir;

const MINI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini");

/// The mini module with `calendar.xml`'s `<player-turn>` body and what follows it
/// replaced.
fn mini_with(steps: &str) -> (tempfile::TempDir, Module) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("mini");
    copy_dir(Path::new(MINI), &dir);
    let cal = format!(
        r#"<calendar start="09/1861" end="11-12/1861" last="01-02/1862">
  <year turns="01-02 03 04 05 06 07 08 09 10 11-12"/>
  {steps}
</calendar>"#
    );
    std::fs::write(dir.join("calendar.xml"), cal).expect("write calendar");
    let m = load_module(&dir).unwrap_or_else(|e| panic!("{e}"));
    (tmp, m)
}

/// Rules that allow nothing to move, set `moves` to 2 when a step starts, and record
/// every event as `hook:step (turn side)`.
#[derive(Default)]
struct Recorder {
    seen: Vec<String>,
    /// A command to answer `step_started` with instead.
    answer: Option<Command>,
    /// Offer a levy (for one move) in script steps, this many times in all.
    levies: u32,
    /// Also list a closed offer, a draft, refused with this reason.
    draft_refused: Option<String>,
    /// Say the rules answer `sees` (they may hide pieces); otherwise they hide nothing.
    hides: bool,
}

impl Rules for Recorder {
    /// Every hook may answer but `sees`, unless told to hide.
    fn answers(&self, hook: &str) -> bool {
        self.hides || hook != muster_core::game::sight::SEES
    }

    fn ask(&mut self, _: View<'_>, q: Question<'_>) -> Result<Answer, RuleError> {
        Ok(match q {
            Question::MayEnter { .. } | Question::MayPlace { .. } => Answer::Bool(false),
            _ => Answer::None,
        })
    }

    fn notify(
        &mut self,
        view: View<'_>,
        _: &mut Dice,
        e: Event<'_>,
    ) -> Result<Vec<Command>, RuleError> {
        let (m, s) = (view.module, view.state);
        let who = &m.side(s.active_side(m)).id;
        let turn = &m.calendar.turn(s.turn).label;
        match e {
            Event::StepStarted { step } => {
                self.seen.push(format!("{step} ({turn} {who})"));
                if let Some(c) = &self.answer {
                    return Ok(vec![c.clone()]);
                }
                let moves = m.find_resource("moves").expect("declared");
                return Ok(vec![Command::AddResource {
                    side: s.active_side(m),
                    resource: moves,
                    amount: 2,
                }]);
            }
            Event::TurnEnded => self.seen.push(format!("turn ended ({turn})")),
            Event::OfferTaken { offer } => {
                self.levies -= 1;
                self.seen.push(format!("took {} ({turn} {who})", offer.id));
            }
            _ => {}
        }
        Ok(Vec::new())
    }

    fn offers(&mut self, view: View<'_>, step: &str) -> Result<Vec<Offer>, RuleError> {
        let moves = view.module.find_resource("moves").expect("declared");
        Ok(if self.levies > 0 && step == "purchase" {
            vec![Offer {
                id: "levy".into(),
                label: "raise a levy".into(),
                unit: None,
                at: None,
                cost: vec![(moves, 1)],
                seat: None,
                form: Vec::new(),
                entry: None,
                fight: false,
                fought: None,
                refused: None,
            }]
            .into_iter()
            .chain(self.draft_refused.clone().map(|why| Offer {
                id: "draft".into(),
                label: "call a draft".into(),
                unit: None,
                at: None,
                cost: Vec::new(),
                seat: None,
                form: Vec::new(),
                entry: None,
                fight: false,
                fought: None,
                refused: Some(why),
            }))
            .collect()
        } else {
            Vec::new()
        })
    }
}

/// Plays by ending every step, until the game is over; returns the events seen.
fn play_out(m: &Module, rules: &mut Recorder) -> GameState {
    let (mut g, _) = start(m, rules, &m.scenarios[0], Vec::new(), Dice::seeded(1)).unwrap();
    while g.outcome.is_none() {
        let legal = legal_actions(m, rules, &g).unwrap();
        assert!(legal.contains(&Action::EndStep), "{legal:?}");
        g = apply(m, rules, &g, &Action::EndStep).unwrap().0;
        g.check_invariants(m).unwrap();
    }
    g
}

#[test]
fn steps_play_in_order_in_their_months_repeated_and_at_turn_end() {
    let (_tmp, m) = mini_with(
        r#"<player-turn sides="north south">
    <step id="movement" name="Movement" procedure="move" spends="moves"/>
    <step id="purchase" name="Purchase" procedure="script" repeat="2"/>
    <step id="autumn" name="Autumn levy" procedure="script" months="10 11"/>
  </player-turn>
  <turn-end>
    <step id="supply" name="Supply" procedure="script" months="09 01" side="south"/>
  </turn-end>"#,
    );
    let mut rules = Recorder::default();
    let g = play_out(&m, &mut rules);
    assert_eq!(g.outcome.as_ref().map(|o| o.winner), Some(None));
    let want = [
        // 09/1861: no autumn levy; the quarterly supply step after both player turns.
        "movement (09/1861 north)",
        "purchase (09/1861 north)",
        "purchase (09/1861 north)",
        "movement (09/1861 south)",
        "purchase (09/1861 south)",
        "purchase (09/1861 south)",
        "supply (09/1861 south)",
        "turn ended (09/1861)",
        // 10/1861: the levy, no supply.
        "movement (10/1861 north)",
        "purchase (10/1861 north)",
        "purchase (10/1861 north)",
        "autumn (10/1861 north)",
        "movement (10/1861 south)",
        "purchase (10/1861 south)",
        "purchase (10/1861 south)",
        "autumn (10/1861 south)",
        "turn ended (10/1861)",
        // 11-12/1861 holds November: the levy again; the game ends after it.
        "movement (11-12/1861 north)",
        "purchase (11-12/1861 north)",
        "purchase (11-12/1861 north)",
        "autumn (11-12/1861 north)",
        "movement (11-12/1861 south)",
        "purchase (11-12/1861 south)",
        "purchase (11-12/1861 south)",
        "autumn (11-12/1861 south)",
        "turn ended (11-12/1861)",
    ];
    assert_eq!(rules.seen, want);
}

#[test]
fn resources_are_spent_by_steps_and_expire_as_declared() {
    let (_tmp, m) = mini_with(
        r#"<player-turn sides="north south">
    <step id="movement" name="Movement" procedure="move" spends="moves"/>
    <step id="muster" name="Muster" procedure="place" spends="moves"/>
  </player-turn>"#,
    );
    let moves = m.find_resource("moves").unwrap();
    let mut rules = Recorder::default();
    let (g, _) = start(&m, &mut rules, &m.scenarios[0], Vec::new(), Dice::seeded(1)).unwrap();
    let north = g.active_side(&m);
    assert_eq!(
        g.resource(north, moves),
        2,
        "set by the rules at the step's start"
    );
    // Selecting a box spends one.
    let select = legal_actions(&m, &mut rules, &g)
        .unwrap()
        .into_iter()
        .find(|a| matches!(a, Action::Select { .. }))
        .expect("a box to select");
    let g = apply(&m, &mut rules, &g, &select).unwrap().0;
    assert_eq!(g.resource(north, moves), 1);
    let g = apply(&m, &mut rules, &g, &Action::Release).unwrap().0;
    // `moves` expires with the step: the next step's start adds 2 to nothing.
    let g = apply(&m, &mut rules, &g, &Action::EndStep).unwrap().0;
    assert_eq!(g.current_step(&m).unwrap().id, "muster");
    assert_eq!(g.resource(north, moves), 2);
    // The situation line shows what the mover holds.
    let text = muster_core::game::describe::situation(&m, &g);
    assert!(text.contains("Muster step, 2 moves left"), "{text}");
}

#[test]
fn a_resource_command_that_goes_below_zero_fails_and_changes_nothing() {
    let (_tmp, m) = mini_with(
        r#"<player-turn sides="north south">
    <step id="movement" name="Movement" procedure="move" spends="moves"/>
  </player-turn>"#,
    );
    let moves = m.find_resource("moves").unwrap();
    let mut rules = Recorder::default();
    let (g, _) = start(&m, &mut rules, &m.scenarios[0], Vec::new(), Dice::seeded(1)).unwrap();
    let before = g.clone();
    rules.answer = Some(Command::AddResource {
        side: muster_core::ids::SideId(1),
        resource: moves,
        amount: -1,
    });
    // Ending North's step starts South's, whose rules take a move South does not have.
    let err = apply(&m, &mut rules, &g, &Action::EndStep).unwrap_err();
    assert!(
        matches!(&err, ActionError::Illegal(why) if why.contains("south would have -1 moves")),
        "{err}"
    );
    assert_eq!(g, before);
}

/// A script step lasts while the rules offer something: here a levy for one of the
/// side's moves, twice; then it ends by itself.
#[test]
fn a_script_step_lasts_while_something_is_offered() {
    let (_tmp, m) = mini_with(
        r#"<player-turn sides="north south">
    <step id="purchase" name="Purchase" procedure="script"/>
  </player-turn>"#,
    );
    let mut rules = Recorder {
        levies: 2,
        ..Recorder::default()
    };
    let (g, _) = start(&m, &mut rules, &m.scenarios[0], Vec::new(), Dice::seeded(1)).unwrap();
    let legal = legal_actions(&m, &mut rules, &g).unwrap();
    assert_eq!(legal.len(), 2, "{legal:?}");
    assert!(matches!(&legal[0], Action::Take { offer, .. } if offer == "levy"));
    assert_eq!(legal[1], Action::EndStep);
    let g = apply(&m, &mut rules, &g, &legal[0]).unwrap().0;
    let moves = m.find_resource("moves").unwrap();
    let north = m.find_side("north").unwrap();
    assert_eq!(
        g.resource(north, moves),
        1,
        "the levy cost one of two moves"
    );
    assert_eq!(g.current_step(&m).unwrap().id, "purchase");
    let take = legal_actions(&m, &mut rules, &g).unwrap()[0].clone();
    let g = apply(&m, &mut rules, &g, &take).unwrap().0;
    // Nothing more is offered: North's step ended and South's began (and ended).
    assert_eq!(
        rules.seen[..4],
        [
            "purchase (09/1861 north)",
            "took levy (09/1861 north)",
            "took levy (09/1861 north)",
            "purchase (09/1861 south)",
        ]
    );
    assert!(
        g.outcome.is_some(),
        "with nothing offered, every step ended by itself"
    );
}

/// Rules that allow every placement and give the side two moves when a step starts.
struct Placer;

impl Rules for Placer {
    fn ask(&mut self, _: View<'_>, q: Question<'_>) -> Result<Answer, RuleError> {
        Ok(match q {
            Question::MayPlace { .. } => Answer::Bool(true),
            Question::MayEnter { .. } => Answer::Bool(false),
            _ => Answer::None,
        })
    }

    fn notify(
        &mut self,
        view: View<'_>,
        _: &mut Dice,
        e: Event<'_>,
    ) -> Result<Vec<Command>, RuleError> {
        let (m, s) = (view.module, view.state);
        if let Event::StepStarted { .. } = e {
            return Ok(vec![Command::AddResource {
                side: s.active_side(m),
                resource: m.find_resource("moves").expect("declared"),
                amount: 2,
            }]);
        }
        Ok(Vec::new())
    }
}

/// `place-stock="true"`: a place step draws on the stock once the pool has none of a
/// type (DWF's replacements from every counter not in play); without it, the pool
/// alone (AHD's recruitment): North's spare Veteran Infantry, in the stock, is placed
/// only with it.
#[test]
fn a_place_step_draws_on_the_stock_only_when_it_says_so() {
    let places = |stock: &str| {
        let (tmp, m) = mini_with(&format!(
            r#"<player-turn sides="north south">
    <step id="muster" name="Muster" procedure="place" spends="moves"{stock}/>
  </player-turn>"#
        ));
        let mut rules = Placer;
        let (g, _) = start(&m, &mut rules, &m.scenarios[0], Vec::new(), Dice::seeded(1)).unwrap();
        let legal = legal_actions(&m, &mut rules, &g).unwrap();
        (tmp, m, g, legal)
    };
    let (_tmp, m, g, legal) = places("");
    let vi = m.units.ids().find(|&k| m.units.get(k).id == "Vi").unwrap();
    let north = g.active_side(&m);
    assert_eq!(
        g.count(north, vi, |p| p == muster_core::game::Place::Pool),
        0
    );
    assert!(
        !legal
            .iter()
            .any(|a| matches!(a, Action::Place { kind, .. } if *kind == vi)),
        "no Veteran Infantry in the pool: {legal:?}"
    );
    let (_tmp, m, g, legal) = places(r#" place-stock="true""#);
    let in_stock = |g: &GameState| g.count(north, vi, |p| p == muster_core::game::Place::Stock);
    let place = legal
        .iter()
        .find(|a| matches!(a, Action::Place { kind, .. } if *kind == vi))
        .expect("a Veteran Infantry from the stock")
        .clone();
    let before = in_stock(&g);
    let g = apply(&m, &mut Placer, &g, &place).unwrap().0;
    assert_eq!(in_stock(&g), before - 1, "the piece came from the stock");
    let Action::Place { at, .. } = place else {
        unreachable!()
    };
    assert!(
        g.unit_ids()
            .any(|u| g.unit(u).kind == vi && g.unit(u).place == muster_core::game::Place::Board(at))
    );
}

#[test]
fn place_stock_is_refused_outside_a_place_step() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("mini");
    copy_dir(Path::new(MINI), &dir);
    let cal = r#"<calendar start="09/1861" end="11-12/1861" last="01-02/1862">
  <year turns="01-02 03 04 05 06 07 08 09 10 11-12"/>
  <player-turn sides="north south">
    <step id="movement" name="Movement" procedure="move" spends="moves" place-stock="true"/>
  </player-turn>
</calendar>"#;
    std::fs::write(dir.join("calendar.xml"), cal).expect("write calendar");
    let err = load_module(&dir).expect_err("place-stock on a move step");
    let text = err.to_string();
    assert!(
        text.contains("calendar.xml:4:")
            && text.contains("place-stock is for procedure=\"place\" steps"),
        "{text}"
    );
}

/// A closed offer (`refused`: the rules' reason) is neither listed nor taken: a `Take`
/// of it is refused with the rules' own reason, and nothing changes.
#[test]
fn a_closed_offer_is_refused_with_the_rules_reason() {
    let (_tmp, m) = mini_with(
        r#"<player-turn sides="north south">
    <step id="purchase" name="Purchase" procedure="script"/>
  </player-turn>"#,
    );
    let mut rules = Recorder {
        levies: 1,
        draft_refused: Some("§9: no draft before 1862".into()),
        ..Recorder::default()
    };
    let (g, _) = start(&m, &mut rules, &m.scenarios[0], Vec::new(), Dice::seeded(1)).unwrap();
    let legal = legal_actions(&m, &mut rules, &g).unwrap();
    assert!(
        !legal
            .iter()
            .any(|a| matches!(a, Action::Take { offer, .. } if offer == "draft")),
        "{legal:?}"
    );
    let draft = Action::Take {
        offer: "draft".into(),
        unit: None,
        at: None,
        label: "call a draft".into(),
        seat: None,
        entry: None,
    };
    match apply(&m, &mut rules, &g, &draft) {
        Err(ActionError::Illegal(why)) => assert_eq!(
            why,
            "the rules close that decision now: §9: no draft before 1862"
        ),
        other => panic!("{other:?}"),
    }
    assert!(!rules.seen.iter().any(|s| s.contains("took")));
    // Where a seat does not see everything, by the seats' data or by a rule that may
    // hide (`sees`), the reason is not told (fail closed).
    let withheld = format!(
        "the rules close that decision now: {}",
        muster_core::game::why::HIDDEN_REASON
    );
    let mut hidden = m.clone();
    hidden.seats[0].enemies = muster_core::format::Sight::Presence;
    match apply(&hidden, &mut rules, &g, &draft) {
        Err(ActionError::Illegal(why)) => assert_eq!(why, withheld),
        other => panic!("{other:?}"),
    }
    rules.hides = true;
    match apply(&m, &mut rules, &g, &draft) {
        Err(ActionError::Illegal(why)) => assert_eq!(why, withheld, "a `sees` rule may hide"),
        other => panic!("{other:?}"),
    }
}
