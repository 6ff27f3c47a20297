//! Questions asked in one session (`Rules::ask_each`, the engine's path search): one
//! `game` view for them all, and the answers, traces and errors of asking one by one.

use muster_core::Module;
use muster_core::game::moves::destinations_reading;
use muster_core::game::{
    Answer, Dice, Event, GameState, Place, Question, RuleError, Rules, SharedReads, View,
    destinations,
};
use muster_core::ids::UnitId;
use muster_scripting::ScriptRules;
use muster_test_support::{HouseRule, RandomGame, ahd};

/// The same rules without sessions: `ask_each` is the trait's default, one by one.
struct OneByOne<'a>(&'a mut ScriptRules);

impl Rules for OneByOne<'_> {
    fn ask(&mut self, view: View<'_>, q: Question<'_>) -> Result<Answer, RuleError> {
        self.0.ask(view, q)
    }

    fn notify(
        &mut self,
        view: View<'_>,
        dice: &mut Dice,
        event: Event<'_>,
    ) -> Result<Vec<muster_core::game::Command>, RuleError> {
        self.0.notify(view, dice, event)
    }
}

/// Positions of a random 1861 game: every `every`th of its first `n` actions.
fn positions(m: &Module, rules: &mut ScriptRules, n: usize, every: usize) -> Vec<GameState> {
    RandomGame::new(m, rules, "1861", 5)
        .take(n)
        .take_while(|s| s.outcome.is_none())
        .step_by(every)
        .collect()
}

fn on_board(state: &GameState) -> Vec<UnitId> {
    state
        .unit_ids()
        .filter(|&u| matches!(state.unit(u).place, Place::Board(_)))
        .collect()
}

#[test]
fn a_session_answers_as_one_by_one() {
    let (m, mut rules) = ahd();
    let (_, mut plain) = ahd();
    let states = positions(&m, &mut rules, 600, 20);
    assert!(states.len() >= 20, "{} positions", states.len());
    let mut paths = 0;
    for state in &states {
        let view = View { module: &m, state };
        for u in on_board(state) {
            let in_session = destinations(view, &mut rules, u).expect("session");
            let one_by_one = destinations(view, &mut OneByOne(&mut plain), u).expect("one by one");
            assert_eq!(
                in_session, one_by_one,
                "unit {u:?} at turn {:?}",
                state.turn
            );
            paths += in_session.len();
        }
    }
    // The comparison is of real searches: AHD's pieces go somewhere.
    assert!(paths > 1000, "{paths} destinations");
}

#[test]
fn a_session_keeps_the_trace_of_each_question() {
    let (m, mut rules) = ahd();
    let (_, mut plain) = ahd();
    let state = positions(&m, &mut rules, 1, 1).remove(0);
    let view = View {
        module: &m,
        state: &state,
    };
    let u = on_board(&state)[0];
    rules.set_trace(true);
    plain.set_trace(true);
    destinations(view, &mut rules, u).expect("session");
    destinations(view, &mut OneByOne(&mut plain), u).expect("one by one");
    let (a, b) = (rules.take_trace(), plain.take_trace());
    assert!(!a.is_empty());
    assert_eq!(a, b);
    assert!(
        a.iter()
            .any(|t| t.hook == "may_enter" && !t.answers.is_empty())
    );
}

/// AHD's rules with `extra` appended to `rules/init.luau`.
fn ahd_with(extra: &str) -> (tempfile::TempDir, Module, ScriptRules) {
    HouseRule::loaded(extra)
}

#[test]
fn a_failing_question_ends_the_session_with_its_error_and_the_rules_go_on() {
    let (m, mut plain) = ahd();
    let state = positions(&m, &mut plain, 1, 1).remove(0);
    let view = View {
        module: &m,
        state: &state,
    };
    // A piece with two destinations at least: its search asks `may_stop` twice.
    let mover = on_board(&state)
        .into_iter()
        .find(|&u| destinations(view, &mut plain, u).is_ok_and(|d| d.len() >= 2))
        .expect("a piece that can go two places");
    // Keeps the view of its first call and fails its second, once.
    let (_dir, m, mut rules) = ahd_with(
        r#"
local asked, kept = 0, nil
hooks.on("may_stop", function(game, unit, path)
	asked += 1
	if asked == 1 then
		kept = game
	elseif asked == 2 then
		error("the second path")
	end
	return true
end, { id = "test.fails-once" })
hooks.on("may_upgrade", function()
	return kept == nil or kept:unit_hits(1) >= 0
end, { id = "test.uses-kept" })
"#,
    );
    let view = View {
        module: &m,
        state: &state,
    };
    let err = destinations(view, &mut rules, mover).expect_err("the second path fails");
    assert_eq!(err.hook, "may_stop");
    assert!(err.message.contains("the second path"), "{}", err.message);
    // The view kept from the session went with it.
    let e = rules
        .ask(view, Question::MayUpgrade { unit: mover })
        .expect_err("a kept view is an error later");
    assert!(e.message.contains("destructed"), "{}", e.message);
    // And the rules answer the next search as before.
    let again = destinations(view, &mut rules, mover).expect("answers again");
    assert_eq!(again, destinations(view, &mut plain, mover).expect("plain"));
}

/// The `game` view keeps its getters' answers for the view that gave them (a view is
/// over one state): a later view over another state reads that state, and a view kept
/// past its call fails even through a getter kept with it, called before anything else
/// reads (so the dead view is still the last that read). `offer_worth` has no AHD
/// handler: this one is the only script that runs.
#[test]
fn a_views_kept_answers_are_its_own() {
    let (_dir, m, mut rules) = ahd_with(
        r#"
local kept, controller = nil, nil
hooks.on("offer_worth", function(game, offer)
	local box = offer.box
	if kept == nil then
		kept, controller = game, game.controller
	end
	local kept_answers = pcall(controller, kept, box)
	local first = game:controller(box)
	-- Asked again in the same view: the kept answer, the same.
	assert(game:controller(box) == first)
	assert(game:enemy_in(box, "union") == game:enemy_in(box, "union"))
	return (if kept_answers then 10 else 0) + (if first == "union" then 1 else 0)
end, { id = "test.kept" })
"#,
    );
    let mut a = positions(&m, &mut rules, 1, 1).remove(0);
    let union = m.find_side("union").expect("union");
    let confederacy = m.find_side("confederate").expect("confederate");
    let at = m.board.find("Washington").expect("Washington");
    a.boxes[at.index()].controller = Some(union);
    let mut b = a.clone();
    b.boxes[at.index()].controller = Some(confederacy);
    let offer = muster_core::game::Offer {
        id: "look".into(),
        label: "look at Washington".into(),
        unit: None,
        at: Some(at),
        cost: Vec::new(),
        seat: None,
        form: Vec::new(),
        entry: None,
        fight: false,
        fought: None,
        refused: None,
    };
    let mut worth = |state: &GameState| {
        let view = View { module: &m, state };
        rules
            .ask(view, Question::OfferWorth { offer: &offer })
            .expect("answers")
    };
    // The first view is live when kept: its getter answers (10), and the Union holds
    // Washington (1).
    assert_eq!(worth(&a), Answer::Int(11));
    // A later view, over a state where the Confederacy holds Washington, reads that;
    // the kept view fails, though it was the last to read Washington's controller.
    assert_eq!(worth(&b), Answer::Int(0));
    assert_eq!(worth(&a), Answer::Int(1));
    // In a session too: one view for many questions, each answer the state's.
    let view = View {
        module: &m,
        state: &b,
    };
    let mut in_session = Vec::new();
    rules
        .ask_each(view, &mut |ask| {
            for _ in 0..3 {
                in_session.push(ask.ask_int(Question::OfferWorth { offer: &offer })?);
            }
            Ok(())
        })
        .expect("session");
    assert_eq!(in_session, vec![Some(0); 3]);
}

/// A piece's destinations, what their search read, and where it searched from.
type Searched = (
    UnitId,
    Place,
    Vec<muster_core::game::Destination>,
    SharedReads,
);

/// `Rules::ask_each_reading`: where every read of a search answers the same, the search
/// finds the same destinations. Checked against the search itself in the positions that
/// follow each (a random game's next moves change the board here and there).
#[test]
fn where_what_a_search_read_answers_the_same_it_finds_the_same() {
    let (m, mut rules) = ahd();
    let states = positions(&m, &mut rules, 400, 4);
    assert!(states.len() >= 60, "{} positions", states.len());
    let mut searched: Vec<Vec<Searched>> = Vec::new();
    for state in &states {
        let view = View { module: &m, state };
        let mut here = Vec::new();
        for u in on_board(state) {
            let (found, reads) = destinations_reading(view, &mut rules, u).expect("search");
            let reads = reads.expect("AHD's movement questions read only plain getters");
            assert!(
                reads.hold(&m, state),
                "what was read holds where it was read"
            );
            here.push((u, state.unit(u).place, found, reads));
        }
        searched.push(here);
    }
    let (mut held, mut failed) = (0, 0);
    for (i, state) in states.iter().enumerate() {
        let view = View { module: &m, state };
        for earlier in searched[i.saturating_sub(5)..i].iter().flatten() {
            let (u, place, found, reads) = earlier;
            if state.unit(*u).place != *place {
                continue;
            }
            if reads.hold(&m, state) {
                held += 1;
                let again = destinations(view, &mut rules, *u).expect("search");
                assert_eq!(&again, found, "unit {u:?} at turn {:?}", state.turn);
            } else {
                failed += 1;
            }
        }
    }
    // Both happen: most pieces' surroundings stay as they were, some change.
    assert!(held > 1000 && failed > 50, "{held} held, {failed} failed");
}

/// A change to a thing read fails the check: a piece that has moved by sea (AHD 4.6)
/// makes no other move, which the search read as `relocated`.
#[test]
fn a_change_to_what_was_read_fails_the_check() {
    let (m, mut rules) = ahd();
    let state = positions(&m, &mut rules, 1, 1).remove(0);
    let view = View {
        module: &m,
        state: &state,
    };
    let u = on_board(&state)
        .into_iter()
        .find(|&u| {
            !destinations(view, &mut rules, u)
                .expect("search")
                .is_empty()
        })
        .expect("a piece that may move");
    let (_, reads) = destinations_reading(view, &mut rules, u).expect("search");
    let reads = reads.expect("read");
    let mut moved = state.clone();
    let Place::Board(at) = state.unit(u).place else {
        panic!("on the board")
    };
    moved
        .turn_log
        .moves
        .push(muster_core::game::moves::MoveRecord {
            unit: u,
            path: muster_core::game::Path {
                from: at,
                steps: Vec::new(),
            },
            jump: false,
            relocated_to: Some(at),
        });
    assert!(reads.hold(&m, &state));
    assert!(!reads.hold(&m, &moved));
    let view = View {
        module: &m,
        state: &moved,
    };
    assert!(
        destinations(view, &mut rules, u)
            .expect("search")
            .is_empty()
    );
}

/// A question that reads a list (which cannot be checked again) makes the session tell
/// nothing; the answers are as before. And rules that cannot tell (the trait's default)
/// tell nothing either.
#[test]
fn a_search_that_reads_a_list_tells_nothing() {
    let (_dir, m, mut rules) = ahd_with(
        r#"
hooks.on("may_enter", function(game, unit, path)
	return #game:units_on_board() >= 0
end, { id = "test.lists" })
"#,
    );
    let (_, mut plain) = ahd();
    let state = positions(&m, &mut plain, 1, 1).remove(0);
    let view = View {
        module: &m,
        state: &state,
    };
    for u in on_board(&state) {
        let (found, reads) = destinations_reading(view, &mut rules, u).expect("search");
        assert!(reads.is_none());
        assert_eq!(found, destinations(view, &mut plain, u).expect("search"));
        let (_, reads) =
            destinations_reading(view, &mut OneByOne(&mut plain), u).expect("one by one");
        assert!(reads.is_none());
    }
}

/// What a `dug_in` question read of a box (AHD's: the pieces in it, 5.31) holds while
/// the box keeps its pieces, and fails once a piece enters or leaves it, wherever that
/// piece sits in the box's list: the check compares the list without making it.
#[test]
fn a_box_s_pieces_read_hold_only_while_they_stay() {
    let (m, mut rules) = ahd();
    let state = positions(&m, &mut rules, 1, 1).remove(0);
    let units = on_board(&state);
    let at = |u: UnitId| match state.unit(u).place {
        Place::Board(b) => b,
        _ => unreachable!("on the board"),
    };
    // A box with two pieces or more, and a piece elsewhere.
    let crowded = units
        .iter()
        .map(|&u| at(u))
        .find(|&b| units.iter().filter(|&&u| at(u) == b).count() >= 2)
        .expect("a box with two pieces");
    let here: Vec<UnitId> = units
        .iter()
        .copied()
        .filter(|&u| at(u) == crowded)
        .collect();
    let away = *units
        .iter()
        .find(|&&u| at(u) != crowded)
        .expect("a piece elsewhere");
    let side = state.unit(here[0]).side;
    let view = View {
        module: &m,
        state: &state,
    };
    let reads = rules
        .ask_each_reading(view, &mut |ask| {
            ask.ask_bool(Question::DugIn { side, at: crowded })?;
            Ok(())
        })
        .expect("asked")
        .expect("dug_in reads only plain getters");
    assert!(reads.hold(&m, &state), "holds where it was read");
    let moved = |u: UnitId, to: Place| {
        let mut s = state.clone();
        s.units[u.index()].place = to;
        s
    };
    // In: a piece from elsewhere (a longer list). Out: the first or the last piece of
    // the box (a shorter one, differing at its start or its end).
    assert!(!reads.hold(&m, &moved(away, Place::Board(crowded))));
    assert!(!reads.hold(&m, &moved(here[0], Place::Board(at(away)))));
    assert!(!reads.hold(
        &m,
        &moved(*here.last().expect("pieces"), Place::Board(at(away)))
    ));
    // A piece moving elsewhere on the board leaves the box's read as it was.
    let elsewhere = units
        .iter()
        .map(|&u| at(u))
        .find(|&b| b != crowded && b != at(away))
        .expect("a third box");
    assert!(reads.hold(&m, &moved(away, Place::Board(elsewhere))));
}

/// `selected_box` is a read the check can ask again: a search whose questions read it
/// tells what it read (it spoiled the session before), which holds while the selection
/// stays and fails once another box is selected.
#[test]
fn the_selected_box_read_holds_only_while_it_stays() {
    let (_dir, m, mut rules) = ahd_with(
        r#"
hooks.on("may_enter", function(game, unit, path)
	return game:selected_box() == nil or game:selected_box() ~= path.from
end, { id = "test.selected" })
"#,
    );
    let (_, mut plain) = ahd();
    let mut state = positions(&m, &mut plain, 1, 1).remove(0);
    state.moving.get_or_insert_with(Default::default).active = None;
    let view = View {
        module: &m,
        state: &state,
    };
    let u = on_board(&state)
        .into_iter()
        .find(|&u| {
            !destinations(view, &mut rules, u)
                .expect("search")
                .is_empty()
        })
        .expect("a piece that may move");
    let (_, reads) = destinations_reading(view, &mut rules, u).expect("search");
    let reads = reads.expect("the session tells what it read");
    assert!(reads.hold(&m, &state));
    let Place::Board(at) = state.unit(u).place else {
        panic!("on the board")
    };
    let mut selected = state.clone();
    selected.moving.get_or_insert_with(Default::default).active =
        Some(muster_core::game::moves::SelectedBox { at, ready: vec![u] });
    assert!(!reads.hold(&m, &selected));
}
