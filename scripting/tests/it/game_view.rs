//! The `game` view the engine lends to the rule scripts (`ScriptRules`): a script that keeps
//! it, or one of its methods, past the call gets a clean error when it uses it later, in a
//! question or an event, and the rules go on answering.

use muster_core::Module;
use muster_core::game::{Dice, Event, GameState, Question, RuleError, Rules, View};
use muster_core::ids::{BoxId, SideId, UnitId};
use muster_scripting::ScriptRules;
use muster_test_support::HouseRule;

/// Handlers added to the AHD rules: some keep the view, others use what was kept.
const KEEPERS: &str = r#"
local kept, kept_list = nil, nil
hooks.on("offers", function(game)
	kept, kept_list = game, game.units_at
	return nil
end)
hooks.on("turn_started", function(game)
	kept, kept_list = game, game.units_at
	return {}
end)
-- Uses the kept view (a method call on it).
hooks.on("may_upgrade", function()
	if kept == nil then
		return true
	end
	return kept:unit_hits(1) >= 0
end)
-- Calls a kept method (one wrapped in Luau) with the kept view, then forgets both.
hooks.on("box_worth", function()
	if kept_list == nil then
		return 0
	end
	local list, k = kept_list, kept
	kept, kept_list = nil, nil
	return if #list(k, 1) >= 0 then 0 else 1
end)
-- Calls a kept method with the view of its own call: that is fine.
hooks.on("may_reinforce", function(game)
	if kept_list == nil then
		return true
	end
	return #kept_list(game, 1) >= 0
end)
"#;

/// The AHD module with `KEEPERS` appended to its rules, its rules and a starting state.
fn keepers() -> (tempfile::TempDir, Module, ScriptRules, GameState) {
    ahd_with(KEEPERS)
}

/// The AHD module with `extra` appended to its rules, its rules and a starting state.
fn ahd_with(extra: &str) -> (tempfile::TempDir, Module, ScriptRules, GameState) {
    let (dir, m, rules) = HouseRule::loaded(extra);
    let g = GameState::new(&m, &m.scenarios[0], Vec::new(), Dice::seeded(1))
        .unwrap_or_else(|e| panic!("{e}"));
    (dir, m, rules, g)
}

fn ask(
    rules: &mut ScriptRules,
    m: &Module,
    g: &GameState,
    q: Question<'_>,
) -> Result<(), RuleError> {
    rules
        .ask(
            View {
                module: m,
                state: g,
            },
            q,
        )
        .map(|_| ())
}

fn assert_destructed(result: Result<(), RuleError>, hook: &str) {
    match result {
        Err(e) => {
            assert_eq!(e.hook, hook);
            assert!(e.message.contains("destructed"), "{}", e.message);
        }
        Ok(()) => panic!("a kept game view was used after its call"),
    }
}

#[test]
fn a_kept_game_view_is_an_error_later() {
    let (_dir, m, mut rules, g) = keepers();
    let unit = UnitId::from_index(0).expect("unit");
    let worth = Question::BoxWorth {
        side: SideId(0),
        at: BoxId(0),
    };
    // Nothing kept yet: the handlers answer.
    ask(&mut rules, &m, &g, Question::MayUpgrade { unit }).expect("may_upgrade");

    // Kept by a question, used by a later question: a method call, then a kept method.
    rules
        .offers(
            View {
                module: &m,
                state: &g,
            },
            "movement",
        )
        .expect("offers");
    assert_destructed(
        ask(&mut rules, &m, &g, Question::MayUpgrade { unit }),
        "may_upgrade",
    );
    ask(&mut rules, &m, &g, Question::MayReinforce { unit }).expect("own view");
    assert_destructed(ask(&mut rules, &m, &g, worth), "box_worth");
    ask(&mut rules, &m, &g, Question::MayUpgrade { unit }).expect("usable again");

    // Kept by an event, used by later questions about a state that changed in between.
    let mut dice = Dice::seeded(2);
    rules
        .notify(
            View {
                module: &m,
                state: &g,
            },
            &mut dice,
            Event::TurnStarted,
        )
        .expect("turn_started");
    let later = g.clone();
    drop(g);
    assert_destructed(
        ask(&mut rules, &m, &later, Question::MayUpgrade { unit }),
        "may_upgrade",
    );
    ask(&mut rules, &m, &later, Question::MayReinforce { unit }).expect("own view");
    assert_destructed(ask(&mut rules, &m, &later, worth), "box_worth");
    ask(&mut rules, &m, &later, Question::MayUpgrade { unit }).expect("usable again");
}

/// Handlers that try to change the path they are lent, and one that tells whether it
/// changed.
const VANDALS: &str = r#"
hooks.on("may_stop", function(game, unit, path)
	path.steps[1].to = 99
	return true
end)
hooks.on("may_enter", function(game, unit, path)
	path.from = 99
	return true
end)
hooks.on("is_jump", function(game, unit, path)
	return path.from == 99 or path.steps[1].to == 99 or #path.steps ~= 1
end)
"#;

/// The engine lends one path table to every question about the path (a path search
/// asks up to three), so it is read-only: a handler that changes it gets an error
/// naming its hook, and the next question sees the path as it was.
#[test]
fn a_path_is_read_only() {
    let (_dir, m, mut rules, g) = ahd_with(VANDALS);
    let unit = g
        .unit_ids()
        .find(|&u| matches!(g.unit(u).place, muster_core::game::Place::Board(_)))
        .expect("a unit on the board");
    let muster_core::game::Place::Board(from) = g.unit(unit).place else {
        unreachable!()
    };
    let (to, line) = m.board.neighbours(from)[0];
    let path = muster_core::game::Path {
        from,
        steps: vec![muster_core::game::Step { line, to }],
    };
    for (q, hook) in [
        (Question::MayStop { unit, path: &path }, "may_stop"),
        (Question::MayEnter { unit, path: &path }, "may_enter"),
    ] {
        match ask(&mut rules, &m, &g, q) {
            Err(e) => {
                assert_eq!(e.hook, hook);
                assert!(e.message.contains("readonly"), "{}", e.message);
            }
            Ok(()) => panic!("{hook}: a handler changed the path"),
        }
    }
    let jump = rules
        .ask(
            View {
                module: &m,
                state: &g,
            },
            Question::IsJump { unit, path: &path },
        )
        .expect("is_jump");
    assert_eq!(jump, muster_core::game::rules::Answer::Bool(false));
}

/// A `move_cost` handler that reads the path table it is lent back as a number (`from`,
/// how many steps, each step's line and box), or a negative number for what is wrong:
/// -1 a table not read-only, -2 a step (line and box) lent as two different tables.
const PATH_READER: &str = r#"
local step_tables = {}
hooks.on("move_cost", function(game, unit, path)
	if not table.isfrozen(path) or not table.isfrozen(path.steps) then
		return -1
	end
	local n = path.from * 1000000 + #path.steps * 10000
	for i, step in path.steps do
		if not table.isfrozen(step) then
			return -1
		end
		local key = `{step.line}:{step.to}`
		local seen = step_tables[key]
		if seen ~= nil and seen ~= step then
			return -2
		end
		step_tables[key] = step
		n += i * (step.line * 100 + step.to)
	end
	return n
end)
"#;

/// Path tables are built in one call from Rust: each is `{ from, steps = { { line, to },
/// ... } }`, read-only throughout, and a step is one table in every path it is part of
/// (a step repeated within one path too), whether the path is new or kept.
#[test]
fn a_path_table_holds_its_boxes_and_lines_and_shares_its_steps() {
    use muster_core::game::rules::Answer;
    use muster_core::game::{Path, Step};
    let (_dir, m, mut rules, g) = ahd_with(PATH_READER);
    let unit = UnitId::from_index(0).expect("a unit");
    let from = m.board.find("Washington").expect("Washington");
    let (to, line) = m.board.neighbours(from)[0];
    let (beyond, line2) = m.board.neighbours(to)[0];
    let one = Step { line, to };
    let back = Step { line, to: from };
    let two = Step {
        line: line2,
        to: beyond,
    };
    let idx = |i: usize| i64::try_from(i).expect("small") + 1;
    let code = |from: BoxId, steps: &[Step]| {
        let mut n = idx(from.index()) * 1_000_000 + idx(steps.len()) * 10_000 - 10_000;
        for (i, s) in steps.iter().enumerate() {
            n += idx(i) * (idx(s.line.index()) * 100 + idx(s.to.index()));
        }
        n
    };
    let paths = [
        Path {
            from,
            steps: vec![one],
        },
        Path {
            from,
            steps: vec![one, two],
        },
        Path {
            from: to,
            steps: vec![two],
        },
        Path {
            from,
            steps: vec![back, one, back],
        },
        Path {
            from,
            steps: Vec::new(),
        },
        // Kept from the first time.
        Path {
            from,
            steps: vec![one, two],
        },
    ];
    for path in &paths {
        let answer = rules
            .ask(
                View {
                    module: &m,
                    state: &g,
                },
                Question::MoveCost { unit, path },
            )
            .expect("move_cost");
        assert_eq!(
            answer,
            Answer::Int(code(path.from, &path.steps)),
            "{path:?}"
        );
    }
}

/// A `box_worth` handler answering with the graph queries, and one that passes a bad
/// condition: the queries answer as the engine's search does; a mistake names the call.
const GRAPH: &str = r#"
hooks.remove("ahd.box-worth")
hooks.on("box_worth", function(game, side, box)
	local wash, rich = defs.box("Washington"), defs.box("Richmond")
	if box == wash then
		return game:distance(wash, rich) or -1
	end
	if box == rich then
		local near, d = game:nearest(wash, { rich, box }, { lines = { "rail" } })
		local path = game:path(wash, rich)
		local reach = game:reach(wash, { max = 1 })
		assert(reach[wash] == 0)
		assert(path ~= nil and path[1] == wash and path[#path] == rich)
		return (d or -1) * 1000 + #path
	end
	return game:distance(wash, box, { sides = "union" }) or 0
end)
"#;

#[test]
fn the_graph_queries_answer_as_the_engine_searches_and_name_a_bad_condition() {
    use muster_core::game::graph::{Passage, distance};
    let (_dir, m, mut rules, g) = ahd_with(GRAPH);
    let side = m.find_side("union").expect("union");
    let (wash, rich) = (
        m.board.find("Washington").expect("Washington"),
        m.board.find("Richmond").expect("Richmond"),
    );
    let worth = |rules: &mut ScriptRules, at: BoxId| {
        rules.ask(
            View {
                module: &m,
                state: &g,
            },
            Question::BoxWorth { side, at },
        )
    };
    let d = distance(&m, &g, wash, rich, &Passage::default()).expect("a path");
    assert_eq!(
        worth(&mut rules, wash).expect("an answer"),
        muster_core::game::rules::Answer::Int(i64::from(d))
    );
    // Richmond by rail: its distance by rail, and the path as long as the distance.
    let rail = Passage {
        kinds: vec![m.board.find_kind("rail").expect("rail")],
        ..Passage::default()
    };
    let by_rail = distance(&m, &g, wash, rich, &rail).expect("a rail path");
    assert_eq!(
        worth(&mut rules, rich).expect("an answer"),
        muster_core::game::rules::Answer::Int(i64::from(by_rail) * 1000 + i64::from(d) + 1)
    );
    // A condition the Passage has no field for: the call and a "did you mean".
    let other = m
        .board
        .box_ids()
        .find(|&b| b != wash && b != rich)
        .expect("a third box");
    let err = worth(&mut rules, other).expect_err("a bad condition");
    assert!(
        err.message.contains("game:distance(") && err.message.contains("no condition 'sides'"),
        "{}",
        err.message
    );
}

/// An `end_step_refusal` handler that refuses with the step id it was given.
const STEP_ECHO: &str = r#"
hooks.on("end_step_refusal", function(game, step)
	return `refused in {step}`
end)
"#;

/// Step ids are made Lua strings once and kept: each hook still gets the step it is
/// asked about, whichever came before.
#[test]
fn a_hook_gets_the_step_it_is_asked_about() {
    let (_dir, m, mut rules, g) = ahd_with(STEP_ECHO);
    for step in ["move", "recruit", "move", "combat", "recruit"] {
        let why = rules
            .end_step_refusal(
                View {
                    module: &m,
                    state: &g,
                },
                step,
            )
            .expect("an answer");
        assert_eq!(why.as_deref(), Some(format!("refused in {step}").as_str()));
    }
}

/// `board_pieces` checked against the piece-by-piece getters: `box_worth` answers the
/// number of pieces on the board, or -1000 less the number of pieces it misreads.
const BOARD_PIECES: &str = r#"
hooks.remove("ahd.box-worth")
hooks.on("box_worth", function(game, side, box)
	local pieces = game:board_pieces()
	local ids = game:units_on_board()
	if #pieces ~= #ids then
		return -1
	end
	local bad = 0
	for i, p in pieces do
		local u = ids[i]
		if p.unit ~= u or p.box ~= game:unit_box(u) or p.side ~= game:unit_side(u)
			or p.type ~= game:unit_type(u) or p.class ~= game:unit_class(u)
			or p.hits ~= game:unit_hits(u) then
			bad += 1
		end
	end
	return if bad > 0 then -1000 - bad else #pieces
end)
"#;

#[test]
fn board_pieces_reads_every_piece_on_the_board_as_the_getters_do() {
    let (_dir, m, mut rules, _) = ahd_with(BOARD_PIECES);
    let on_board = |g: &GameState| {
        g.unit_ids()
            .filter(|&u| matches!(g.unit(u).place, muster_core::game::Place::Board(_)))
            .collect::<Vec<_>>()
    };
    // 1861's and 1864's pieces, each one page (pages are tested in `view.rs`).
    let mut counts = Vec::new();
    for scenario in ["1861", "1864"] {
        let s = m
            .scenarios
            .iter()
            .find(|s| s.id == scenario)
            .expect(scenario);
        let mut g = GameState::new(&m, s, Vec::new(), Dice::seeded(1)).expect("a state");
        let pieces = on_board(&g);
        // A reduced piece, to see its hits, and a Leader (a type without a class) beside
        // it, to see `class` absent.
        g.units[pieces[0].index()].hits = 1;
        let leader = m.units.find("Ldr").expect("Ldr");
        let ldr = g
            .unit_ids()
            .find(|&u| g.unit(u).kind == leader)
            .expect("a Leader");
        assert!(m.units.get(leader).class.is_none());
        g.units[ldr.index()].place = g.unit(pieces[0]).place;
        let pieces = on_board(&g);
        let side = m.find_side("union").expect("union");
        let at = m.board.find("Washington").expect("Washington");
        let answer = rules
            .ask(
                View {
                    module: &m,
                    state: &g,
                },
                Question::BoxWorth { side, at },
            )
            .expect("an answer");
        assert_eq!(
            answer,
            muster_core::game::rules::Answer::Int(pieces.len() as i64),
            "{scenario}"
        );
        counts.push(pieces.len());
    }
    assert!(counts[0] > 20 && counts[1] > counts[0], "{counts:?}");
}

/// `pieces_in` checked against a scan of `pieces` with each piece's side and place:
/// `box_worth` answers the pieces counted in every place off the board, or -1000 less the
/// number of counts that differ from the scan's.
const PIECES_IN: &str = r#"
hooks.remove("ahd.box-worth")
hooks.on("box_worth", function(game, side, box)
	local bad, total = 0, 0
	for _, t in defs.units do
		local scanned = {}
		for _, u in game:pieces(t.id) do
			local key = `{game:unit_place(u)}/{game:unit_side(u)}`
			scanned[key] = (scanned[key] or 0) + 1
		end
		for _, place in { "pool", "stock", "set_aside" } do
			for _, s in defs.sides do
				local n = game:pieces_in(place, t.id, s.id)
				if n ~= (scanned[`{place}/{s.id}`] or 0) then
					bad += 1
				end
				total += n
			end
			-- The side defaults to the side to act.
			if game:pieces_in(place, t.id) ~= game:pieces_in(place, t.id, game:active_side()) then
				bad += 1
			end
		end
	end
	return if bad > 0 then -1000 - bad else total
end)
-- Bad arguments, by the unit asked about.
local BAD = {
	function(game) return game:pieces_in("pol", "Mi", "union") end,
	function(game) return game:pieces_in("board", "Mi", "union") end,
	function(game) return game:pieces_in("pool", "Mj", "union") end,
	function(game) return game:pieces_in("pool", "Mi", "yankee") end,
	function(game) return game:pieces_in(1, "Mi") end,
	function(game) return game:pieces_in("pool", nil) end,
}
hooks.on("may_upgrade", function(game, unit)
	return BAD[unit](game) >= 0
end)
"#;

#[test]
fn pieces_in_counts_a_side_s_pieces_of_a_type_off_the_board_as_a_scan_does() {
    use muster_core::game::Place;
    let (_dir, m, mut rules, mut g) = ahd_with(PIECES_IN);
    let kind = |id: &str| m.units.find(id).expect(id);
    // Pieces of both sides into each place off the board, each the first of its side and
    // type found elsewhere ("*": on the board, of any type).
    let moves = [
        ("union", "Mi", Place::Pool),
        ("union", "Mi", Place::Pool),
        ("confederate", "Mi", Place::Stock),
        ("union", "Mc", Place::SetAside),
        ("confederate", "*", Place::Stock),
        ("confederate", "*", Place::SetAside),
    ];
    for (side, t, place) in moves {
        let side = m.find_side(side).expect("side");
        let u = g
            .unit_ids()
            .find(|&u| {
                let unit = g.unit(u);
                let kind_fits = if t == "*" {
                    matches!(unit.place, Place::Board(_))
                } else {
                    unit.kind == kind(t)
                };
                unit.side == side && kind_fits && unit.place != place
            })
            .unwrap_or_else(|| panic!("no {t} of {side:?} to move to {place:?}"));
        g.units[u.index()].place = place;
    }
    let off_board = g
        .units
        .iter()
        .filter(|u| !matches!(u.place, Place::Board(_)))
        .count();
    for place in [Place::Pool, Place::Stock, Place::SetAside] {
        assert!(g.units.iter().any(|u| u.place == place), "{place:?}");
    }
    // Types with no piece in a place count 0 (Crack Infantry in the pool), as do types
    // with no piece of a side (Foreign Intervention is the Confederacy's).
    assert!(
        !g.units
            .iter()
            .any(|u| u.kind == kind("Ci") && u.place == Place::Pool)
    );
    let side = m.find_side("union").expect("union");
    let at = m.board.find("Washington").expect("Washington");
    let answer = rules
        .ask(
            View {
                module: &m,
                state: &g,
            },
            Question::BoxWorth { side, at },
        )
        .expect("an answer");
    assert_eq!(
        answer,
        muster_core::game::rules::Answer::Int(off_board as i64)
    );
    let expected = [
        "game:pieces_in(\"pol\", \"Mi\", \"union\"): no place 'pol' off the board; did you mean 'pool'?",
        "game:pieces_in(\"board\", \"Mi\", \"union\"): no place 'board' off the board; the places off the board are pool, stock and set_aside",
        "game:pieces_in(\"pool\", \"Mj\", \"union\"): no unit type 'Mj'; did you mean 'Mi'?",
        "game:pieces_in(\"pool\", \"Mi\", \"yankee\"): argument 3 must be a side id (union, confederate)",
        "game:pieces_in(1, \"Mi\"): argument 1 must be a string, got 1",
        "game:pieces_in(\"pool\", nil): argument 2 must be a string, got nil",
    ];
    for (i, want) in expected.iter().enumerate() {
        let unit = UnitId::from_index(i).expect("unit");
        let err = ask(&mut rules, &m, &g, Question::MayUpgrade { unit }).expect_err(want);
        assert!(err.message.contains(want), "{want}\n{}", err.message);
    }
}
