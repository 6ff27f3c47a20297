//! The modder's reference (`muster_scripting::api`) against what the engine really
//! offers scripts: a probe script enumerates the `game` view's methods, `defs` and its
//! records, the `hooks` table and its options, counts each hook's arguments, and asks the
//! command parser for its kinds. Whatever exists in the code and not in the reference,
//! or the reverse, fails here by name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path as FsPath;

use muster_core::game::{Dice, Event, GameState, Offer, Path, Question, Rules, View};
use muster_core::ids::{BoxId, SeatId, SideId, UnitId, UnitTypeId};
use muster_core::module::ScriptEntry;
use muster_core::{Module, load_module};
use muster_scripting::{HookKind, Limits, ScriptRules, api, catalogue};

/// The probe's fixed part; each hook's handler is added by `probe_script`.
const PROBE: &str = r##"
local function keys(t)
	local out = {}
	for k in pairs(t) do
		table.insert(out, tostring(k))
	end
	table.sort(out)
	return table.concat(out, " ")
end
print("hooks-table " .. keys(hooks))
local ok, err = pcall(hooks.on, "turn_started", function() end, { zzzzzzzz = true })
print("hooks-options " .. tostring(ok) .. " " .. tostring(err))
print("defs " .. keys(defs))
print("record module " .. keys(defs.module))
for _, list in { "sides", "boxes", "lines", "kinds", "units", "classes", "qualities", "markers", "options" } do
	local seen = {}
	for _, item in defs[list] do
		for k in pairs(item) do
			seen[k] = true
		end
	end
	print("record " .. list .. " " .. keys(seen))
end
local function record(name, t)
	if type(t) == "table" then
		print("record " .. name .. " " .. keys(t))
	end
end
local function probe(hook, answer)
	return function(game, ...)
		print("args " .. hook .. " " .. select("#", ...))
		local first = ...
		if hook == "unit_moved" or hook == "may_enter" then
			record("path", select(2, ...))
			record("path_step", (select(2, ...)).steps[1])
		elseif hook == "offer_taken" then
			record("offer", first)
		elseif hook == "step_started" and first:sub(1, 4) == "cmd:" then
			return { { kind = first:sub(5) } }
		end
		return answer
	end
end
"##;

/// The probe with a handler for every hook of the catalogue, answering the combine
/// rule's identity (or nothing).
fn probe_script() -> String {
    let mut s = PROBE.to_string();
    for h in catalogue() {
        let answer = match h.kind {
            HookKind::Question(c) => match c {
                muster_scripting::Combine::All => "true",
                muster_scripting::Combine::Any => "false",
                muster_scripting::Combine::Sum => "0",
                _ => "nil",
            },
            HookKind::Event => "nil",
        };
        s.push_str(&format!(
            "hooks.on(\"{0}\", probe(\"{0}\", {answer}))\n",
            h.name
        ));
    }
    s
}

struct Probe {
    _dir: tempfile::TempDir,
    module: Module,
    rules: ScriptRules,
    state: GameState,
}

impl Probe {
    /// The TripleA adaptation (it has markers, attributes and generals) with only the
    /// probe for rules.
    fn new() -> Self {
        let path = FsPath::new(env!("CARGO_MANIFEST_DIR")).join("../mods/ahd-triplea");
        let mut module = load_module(&path).unwrap_or_else(|e| panic!("{e}"));
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("rules")).expect("mkdir");
        std::fs::write(dir.path().join("rules/init.luau"), probe_script()).expect("write");
        module.scripts = vec![ScriptEntry {
            module: "probe".into(),
            dir: dir.path().to_path_buf(),
            entry: "rules/init.luau".into(),
        }];
        let rules = ScriptRules::load(&module, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
        let state = GameState::new(&module, &module.scenarios[0], Vec::new(), Dice::seeded(1))
            .unwrap_or_else(|e| panic!("{e}"));
        Self {
            _dir: dir,
            module,
            rules,
            state,
        }
    }

    fn ask(&mut self, q: Question<'_>) {
        let view = View {
            module: &self.module,
            state: &self.state,
        };
        self.rules
            .ask(view, q)
            .unwrap_or_else(|e| panic!("{q:?}: {e}"));
    }

    fn notify(&mut self, e: Event<'_>) -> Result<(), String> {
        let view = View {
            module: &self.module,
            state: &self.state,
        };
        let mut dice = Dice::seeded(1);
        self.rules
            .notify(view, &mut dice, e)
            .map(|_| ())
            .map_err(|e| e.message)
    }

    /// Every line printed since the last call, by its first word.
    fn printed(&mut self) -> Vec<(String, String)> {
        self.rules
            .take_output()
            .into_iter()
            .map(|l| match l.split_once(' ') {
                Some((a, b)) => (a.to_string(), b.to_string()),
                None => (l, String::new()),
            })
            .collect()
    }

    /// Calls every hook once: questions, events and the offers list.
    fn call_every_hook(&mut self) {
        let path = Path {
            from: BoxId(0),
            steps: vec![muster_core::game::moves::Step {
                line: self.module.board.neighbours(BoxId(0))[0].1,
                to: self.module.board.neighbours(BoxId(0))[0].0,
            }],
        };
        let offer = Offer {
            id: "x".into(),
            label: "x".into(),
            unit: Some(UnitId(0)),
            at: Some(BoxId(0)),
            cost: Vec::new(),
            seat: Some(SeatId(0)),
            form: vec![muster_core::game::Field {
                id: "n".into(),
                label: "n".into(),
                kind: muster_core::game::FieldKind::Number { min: 0, max: 3 },
            }],
            entry: Some(muster_core::game::Entry(
                [("n".to_string(), muster_core::game::entry::Value::Number(1))].into(),
            )),
            // Every optional field set, so the probe sees each key the reference lists.
            fight: true,
            fought: Some(muster_core::game::Fought {
                losses: vec![(UnitId(0), 1)],
                holder: Some(SideId(0)),
                attacker: Some(SideId(0)),
                defender: Some(SideId(1)),
                rounds: 1,
                log: vec!["fought".into()],
            }),
            // A closed offer is never taken: no hook sees `refused`.
            refused: None,
        };
        let (u, s, b) = (UnitId(0), SideId(0), BoxId(0));
        for e in [
            Event::TurnStarted,
            Event::PlayerTurnStarted,
            Event::StepStarted { step: "s" },
            Event::UnitMoved {
                unit: u,
                path: &path,
            },
            Event::UnitRelocated {
                unit: u,
                from: b,
                to: b,
            },
            Event::BoxSelected { at: b },
            Event::PieceActivated { unit: u, cost: 1 },
            Event::OfferTaken { offer: &offer },
            Event::BattleStarted { at: b },
            Event::UnitReinforced { unit: u, from: b },
            Event::UnitEliminated { unit: u },
            Event::HitAbsorbed {
                shooter: u,
                target: u,
            },
            Event::BattleEnded {
                at: b,
                winner: None,
            },
            Event::UnitUpgraded { unit: u },
            Event::UnitPlaced { unit: u },
            Event::StepEnded { step: "s" },
            Event::ControlChanged,
            Event::PlayerTurnEnded,
            Event::TurnEnded,
            Event::GameEnded,
        ] {
            self.notify(e).unwrap_or_else(|m| panic!("{e:?}: {m}"));
        }
        for q in [
            Question::MayEnter {
                unit: u,
                path: &path,
            },
            Question::MayStop {
                unit: u,
                path: &path,
            },
            Question::IsJump {
                unit: u,
                path: &path,
            },
            Question::MoveLimit { unit: u },
            Question::ActivationCost { unit: u },
            Question::MovePoints { unit: u },
            Question::MoveCost {
                unit: u,
                path: &path,
            },
            Question::PickUpCost {
                unit: u,
                carrier: u,
                paid: 0,
            },
            Question::MayWithdraw,
            Question::RetreatTo {
                side: s,
                to: b,
                withdrawal: false,
            },
            Question::MayReinforce { unit: u },
            Question::MayTarget {
                shooter: u,
                target: u,
            },
            Question::ShotModifier {
                shooter: u,
                target: u,
            },
            Question::AbsorbsHit {
                shooter: u,
                target: u,
            },
            Question::Yields { side: s },
            Question::MayUpgrade { unit: u },
            Question::MayPlace {
                kind: UnitTypeId(0),
                at: b,
            },
            Question::BoxWorth { side: s, at: b },
            Question::OfferWorth { offer: &offer },
            Question::DugIn { side: s, at: b },
            Question::Commands {
                seat: SeatId(0),
                unit: u,
            },
            Question::Sees {
                seat: SeatId(0),
                unit: u,
                seen: muster_core::format::Sight::Full,
            },
        ] {
            self.ask(q);
        }
        let view = View {
            module: &self.module,
            state: &self.state,
        };
        self.rules
            .offers(view, "s")
            .unwrap_or_else(|e| panic!("offers: {e}"));
        self.rules
            .evacuations(view, s, false)
            .unwrap_or_else(|e| panic!("evacuations: {e}"));
        self.rules
            .victory_progress(view)
            .unwrap_or_else(|e| panic!("victory_progress: {e}"));
        self.rules
            .victory_threats(view)
            .unwrap_or_else(|e| panic!("victory_threats: {e}"));
        self.rules
            .refuses_entry(view, &offer)
            .unwrap_or_else(|e| panic!("accepts_entry: {e}"));
        self.rules
            .refuses_composition(view, u)
            .unwrap_or_else(|e| panic!("composition: {e}"));
        self.rules
            .referee_entry(view, &mut Dice::seeded(1), &offer)
            .unwrap_or_else(|e| panic!("referee_entry: {e}"));
        self.rules
            .battle_losses(view)
            .unwrap_or_else(|e| panic!("battle_losses: {e}"));
        self.rules
            .end_step_refusal(view, "s")
            .unwrap_or_else(|e| panic!("end_step_refusal: {e}"));
    }
}

fn words(s: &str) -> BTreeSet<String> {
    s.split_whitespace().map(str::to_string).collect()
}

/// Names in `code` missing from `doc` and the reverse, as a message; empty when equal.
fn differences(what: &str, code: &BTreeSet<String>, doc: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    let missing: Vec<_> = code.difference(doc).collect();
    if !missing.is_empty() {
        out.push(format!(
            "{what}: in the code but not in scripting/src/api: {missing:?}"
        ));
    }
    let extra: Vec<_> = doc.difference(code).collect();
    if !extra.is_empty() {
        out.push(format!(
            "{what}: in scripting/src/api but not in the code: {extra:?}"
        ));
    }
    out
}

fn names<'a>(it: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    it.into_iter().map(str::to_string).collect()
}

#[test]
fn the_reference_describes_exactly_what_scripts_see() {
    let mut probe = Probe::new();
    let mut printed = probe.printed();
    probe.call_every_hook();
    printed.extend(probe.printed());
    let first = |word: &str| {
        printed
            .iter()
            .find(|(w, _)| w == word)
            .map(|(_, rest)| rest.clone())
            .unwrap_or_else(|| panic!("the probe printed no '{word}' line: {printed:?}"))
    };
    let mut problems = Vec::new();

    // Hooks: the catalogue, and each hook's arguments (after `game`).
    let code = names(catalogue().iter().map(|h| h.name));
    let doc = names(api::HOOKS.iter().map(|h| h.name));
    problems.extend(differences("hooks", &code, &doc));
    let counted: BTreeMap<String, usize> = printed
        .iter()
        .filter(|(w, _)| w == "args")
        .filter_map(|(_, rest)| {
            let (hook, n) = rest.split_once(' ')?;
            Some((hook.to_string(), n.parse().ok()?))
        })
        .collect();
    problems.extend(differences(
        "hooks called by this test (add the new one to call_every_hook)",
        &counted.keys().cloned().collect(),
        &code,
    ));
    for h in api::HOOKS {
        if let Some(&n) = counted.get(h.name)
            && n != h.params.len()
        {
            problems.push(format!(
                "hook '{}': the engine passes {n} arguments after game, the reference {}",
                h.name,
                h.params.len()
            ));
        }
    }

    // The view's methods, as the script sees them (Rust methods and Luau wrappers).
    let code = names(
        api::registered_view_methods(&probe.module, &probe.state)
            .unwrap_or_else(|e| panic!("{e}"))
            .iter()
            .map(String::as_str),
    );
    let doc = names(api::METHODS.iter().map(|m| m.name));
    problems.extend(differences("game view methods", &code, &doc));

    // `defs` and its records; the hook arguments' records.
    let code = words(&first("defs"));
    let doc = names(api::DEFS.iter().map(|f| f.name));
    problems.extend(differences("defs fields", &code, &doc));
    let record = |name: &str| {
        names(
            api::RECORDS
                .iter()
                .find(|r| r.name == name)
                .unwrap_or_else(|| panic!("no record {name} in the reference"))
                .fields
                .iter()
                .map(|f| f.name),
        )
    };
    let mut records: BTreeMap<String, String> = BTreeMap::new();
    for (w, rest) in &printed {
        if w == "record" {
            let (list, fields) = rest.split_once(' ').unwrap_or((rest, ""));
            records
                .entry(list.to_string())
                .or_insert_with(|| fields.to_string());
        }
    }
    for (list, name) in [
        ("module", "ModuleInfo"),
        ("sides", "Side"),
        ("boxes", "Box"),
        ("lines", "Line"),
        ("kinds", "LineKind"),
        ("units", "UnitType"),
        ("classes", "Named"),
        ("qualities", "Named"),
        ("markers", "Named"),
        ("options", "OptionDef"),
        ("path", "Path"),
        ("path_step", "PathStep"),
        ("offer", "Offer"),
    ] {
        let code = words(records.get(list).map_or("", String::as_str));
        problems.extend(differences(
            &format!("record {name} ({list})"),
            &code,
            &record(name),
        ));
    }

    // The `hooks` table and the options of `hooks.on`.
    let code = words(&first("hooks-table"));
    let doc = names(api::HOOKS_TABLE.iter().map(|f| f.name));
    problems.extend(differences("hooks table", &code, &doc));
    let err = first("hooks-options");
    let listed = err
        .split_once("unknown option 'zzzzzzzz' (")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(list, _)| list.to_string())
        .unwrap_or_else(|| panic!("hooks.on's refusal lists no options: {err}"));
    let code = names(listed.split(", "));
    let doc = names(api::HOOK_OPTIONS.iter().map(|f| f.name));
    problems.extend(differences("hooks.on options", &code, &doc));

    // Commands: the parser's own list of kinds (from its refusal of an unknown one), and
    // each documented kind accepted as a kind, its first required field documented.
    let err = probe
        .notify(Event::StepStarted {
            step: "cmd:zzzzzzzzzzzz",
        })
        .expect_err("an unknown command kind is refused");
    let listed = err
        .split_once("commands are ")
        .map(|(_, list)| list.to_string())
        .unwrap_or_else(|| panic!("the refusal lists no commands: {err}"));
    let code = names(listed.split(", "));
    let doc = names(api::COMMANDS.iter().map(|c| c.kind));
    problems.extend(differences("commands", &code, &doc));
    for c in api::COMMANDS {
        let step = format!("cmd:{}", c.kind);
        match probe.notify(Event::StepStarted { step: &step }) {
            Ok(()) => problems.push(format!(
                "command '{}' with no fields was accepted: are all its fields optional?",
                c.kind
            )),
            Err(m) if m.contains("unknown command") => {
                problems.push(format!("command '{}' is unknown to the engine", c.kind))
            }
            Err(m) => {
                if !c
                    .fields
                    .iter()
                    .any(|f| m.contains(&format!("'{}'", f.name)))
                {
                    problems.push(format!(
                        "command '{}': the engine asks for a field the reference lacks: {m}",
                        c.kind
                    ));
                }
            }
        }
    }

    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_hook_of_the_reference_has_a_kind() {
    for h in api::HOOKS {
        assert!(api::kind_of(h.name).is_some(), "{}", h.name);
    }
}

#[test]
fn the_generated_files_name_every_entry() {
    let md = api::reference();
    let d = api::definitions();
    for h in api::HOOKS {
        assert!(md.contains(&format!("#### `{}`", h.name)), "{}", h.name);
        assert!(d.contains(&format!("\"{}\"", h.name)), "{}", h.name);
    }
    for m in api::METHODS {
        assert!(md.contains(&format!("`game:{}(", m.name)), "{}", m.name);
        assert!(
            d.contains(&format!("function {}(self", m.name)),
            "{}",
            m.name
        );
    }
    for c in api::COMMANDS {
        assert!(d.contains(&format!("kind: \"{}\"", c.kind)), "{}", c.kind);
    }
}
