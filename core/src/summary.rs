//! A module at a glance: what `muster check` prints, as data (also serialized to JSON).

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::ids::BoxValueId;
use crate::module::Module;
use crate::scenario::Scenario;

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub id: String,
    pub name: String,
    pub version: String,
    pub engine: String,
    pub extends: Vec<String>,
    /// Every module loaded, in load order (the base first).
    pub stack: Vec<crate::module::StackEntry>,
    pub sides: Vec<String>,
    pub boxes: usize,
    pub lines: usize,
    pub lines_by_kind: Vec<KindCount>,
    /// The module's tallies, by name (`army maximum`).
    pub tallies: Vec<String>,
    /// How many boxes carry each declared tag, by its name.
    pub tags: Vec<TagCount>,
    /// Each declared box value: how many boxes have it, per side.
    pub box_values: Vec<BoxValueSummary>,
    pub unit_types: usize,
    pub optional_rules: usize,
    /// Turns of a standard game and of the whole track.
    pub turns: usize,
    pub track_turns: usize,
    pub scenarios: Vec<ScenarioSummary>,
    pub warnings: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Serialize)]
pub struct TagCount {
    pub tag: String,
    pub count: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct KindCount {
    pub kind: String,
    pub count: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct BoxValueSummary {
    pub id: String,
    pub name: String,
    /// Boxes with the value for any side.
    pub boxes: usize,
    pub by_side: Vec<SideValue>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SideValue {
    pub side: String,
    /// Boxes with the value for this side.
    pub boxes: usize,
    /// This side's values over the whole map, added up.
    pub total: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct ScenarioSummary {
    pub id: String,
    pub name: String,
    pub rule: Option<String>,
    pub start: String,
    pub end: String,
    pub units_on_board: Vec<SideCount>,
    /// Each tally for each side at the start.
    pub tallies: Vec<TallyValue>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SideCount {
    pub side: String,
    pub count: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct TallyValue {
    pub tally: String,
    pub side: String,
    pub computed: u32,
    /// What the scenario states, if it does.
    pub stated: Option<u32>,
}

impl Summary {
    pub fn of(module: &Module) -> Self {
        let board = &module.board;
        let lines_by_kind = board
            .kinds
            .iter()
            .enumerate()
            .map(|(k, kind)| KindCount {
                kind: kind.id.clone(),
                count: board.lines.iter().filter(|l| l.kind.index() == k).count(),
            })
            .collect();
        let box_values = board
            .values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| Some((BoxValueId::from_index(i)?, v)))
            .map(|(id, v)| BoxValueSummary {
                id: v.id.clone(),
                name: v.name.clone(),
                boxes: board
                    .boxes
                    .iter()
                    .filter(|b| module.side_ids().any(|s| b.value(id, s) > 0))
                    .count(),
                by_side: module
                    .side_ids()
                    .map(|s| SideValue {
                        side: module.side(s).id.clone(),
                        boxes: board.boxes.iter().filter(|b| b.value(id, s) > 0).count(),
                        total: board.boxes.iter().map(|b| u32::from(b.value(id, s))).sum(),
                    })
                    .collect(),
            })
            .collect();
        Self {
            id: module.id.clone(),
            name: module.name.clone(),
            version: module.version.clone(),
            engine: module.engine.clone(),
            extends: module.extends.clone(),
            stack: module.stack.clone(),
            sides: module.sides.iter().map(|s| s.id.clone()).collect(),
            boxes: board.boxes.len(),
            lines: board.lines.len(),
            lines_by_kind,
            tags: board
                .tags
                .iter()
                .map(|t| TagCount {
                    tag: t.name.clone(),
                    count: board.tagged(&t.id),
                })
                .collect(),
            box_values,
            tallies: module.tallies.iter().map(|t| t.name.clone()).collect(),
            unit_types: module.units.types.len(),
            optional_rules: module.options.len(),
            turns: module.calendar.end.index() + 1,
            track_turns: module.calendar.turns.len(),
            scenarios: module
                .scenarios
                .iter()
                .map(|s| ScenarioSummary::of(module, s))
                .collect(),
            warnings: module.warnings.clone(),
        }
    }
}

impl ScenarioSummary {
    pub fn of(module: &Module, s: &Scenario) -> Self {
        let cal = &module.calendar;
        Self {
            id: s.id.clone(),
            name: s.name.clone(),
            rule: s.rule.clone(),
            start: cal.turn(s.start).label.clone(),
            end: cal.turn(s.end).label.clone(),
            units_on_board: module
                .side_ids()
                .map(|side| SideCount {
                    side: module.side(side).id.clone(),
                    count: s
                        .side(side)
                        .map_or(0, |x| x.placements.iter().map(|p| u32::from(p.count)).sum()),
                })
                .collect(),
            tallies: module
                .tally_ids()
                .flat_map(|t| {
                    module.side_ids().map(move |side| TallyValue {
                        tally: module.tally(t).id.clone(),
                        side: module.side(side).id.clone(),
                        computed: s.tally(module, t, side),
                        stated: s.side(side).and_then(|x| {
                            x.stated.iter().find(|(id, _)| *id == t).map(|&(_, v)| v)
                        }),
                    })
                })
                .collect(),
        }
    }
}
