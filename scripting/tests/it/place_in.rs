//! A `place` step's `place-in` (docs/module-format.md): AHD recruits only in the
//! Recruitment Cities of the recruiter's colour (7.0), and with `place-in="recruit"` the
//! engine asks the rules about no other box. The placements it lists are exactly those
//! the rules alone allow, and a placement elsewhere is refused naming `place-in`.

use muster_core::game::dice::Pcg32;
use muster_core::game::{Action, Dice, apply, legal_actions, start};
use muster_core::load_module;
use muster_scripting::{Limits, ScriptRules};

use muster_test_support::copy_dir;

#[test]
fn place_in_lists_what_the_rules_alone_allow_and_refuses_other_boxes() {
    let ahd = muster_test_support::ahd_dir();
    let m = muster_test_support::ahd_module();
    let recruit = m
        .board
        .find_value("recruit")
        .expect("AHD's recruitment value");
    let step = m.calendar.steps.iter().find(|s| s.id == "recruitment");
    assert_eq!(step.and_then(|s| s.place_in), Some(recruit));
    // The same module without `place-in`: every box is asked about.
    let dir = tempfile::tempdir().expect("temp dir");
    copy_dir(&ahd, dir.path());
    let calendar = dir.path().join("calendar.xml");
    let text = std::fs::read_to_string(&calendar).expect("read");
    assert!(text.contains(r#" place-in="recruit""#));
    std::fs::write(&calendar, text.replacen(r#" place-in="recruit""#, "", 1)).expect("write");
    let plain = load_module(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plain.calendar.steps[3].place_in, None);

    let mut rules = ScriptRules::load(&m, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    let mut plain_rules =
        ScriptRules::load(&plain, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    let sc = m.scenario("1861").expect("1861");
    let mut state = start(&m, &mut rules, sc, Vec::new(), Dice::seeded(8))
        .expect("starts")
        .0;
    let mut chooser = Pcg32::new(8, 2);
    let (mut compared, mut refused) = (0, 0);
    for _ in 0..1500 {
        if state.outcome.is_some() {
            break;
        }
        let legal = legal_actions(&m, &mut rules, &state).expect("legal");
        let places = |l: &[Action]| l.iter().any(|a| matches!(a, Action::Place { .. }));
        if places(&legal) {
            let all = legal_actions(&plain, &mut plain_rules, &state).expect("legal");
            assert_eq!(legal, all, "turn {:?}", state.turn);
            compared += 1;
            // A piece the rules could place, in a box of no recruitment value to its side.
            let side = state.active_side(&m);
            let Some(Action::Place { kind, .. }) = legal.first() else {
                unreachable!("a placement is listed")
            };
            let at = m
                .board
                .box_ids()
                .find(|&b| m.board.get(b).value(recruit, side) == 0)
                .expect("a box of no value");
            let e = apply(&m, &mut rules, &state, &Action::Place { kind: *kind, at })
                .expect_err("refused");
            assert!(e.to_string().contains("place-in"), "{e}");
            refused += 1;
        }
        let k = u32::try_from(legal.len()).expect("few");
        let a = &legal[(chooser.between_one_and(k) - 1) as usize];
        state = apply(&m, &mut rules, &state, a).expect("applies").0;
    }
    assert!(compared >= 5 && refused == compared, "{compared} compared");
}
