//! A module at a glance: what `muster check` prints, as data (also serialized to JSON).

use serde::Serialize;

use crate::diag::Diagnostic;
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
    /// How many boxes carry each declared tag, by its name.
    pub tags: Vec<TagCount>,
    /// Boxes with a recruitment value for any side.
    pub recruitment_cities: usize,
    pub recruitment_by_side: Vec<SideRecruitment>,
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
pub struct SideRecruitment {
    pub side: String,
    /// Boxes where this side recruits.
    pub cities: usize,
    /// Sum of this side's values over the whole map.
    pub total_value: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct ScenarioSummary {
    pub id: String,
    pub name: String,
    pub rule: Option<String>,
    pub start: String,
    pub end: String,
    pub units_on_board: Vec<SideCount>,
    pub army_maximum: Vec<ArmyMaximum>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SideCount {
    pub side: String,
    pub count: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct ArmyMaximum {
    pub side: String,
    pub computed: u32,
    pub stated: Option<u16>,
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
        let recruitment_by_side = module
            .side_ids()
            .map(|s| SideRecruitment {
                side: module.side(s).id.clone(),
                cities: board
                    .boxes
                    .iter()
                    .filter(|b| b.recruit_value(s) > 0)
                    .count(),
                total_value: board
                    .boxes
                    .iter()
                    .map(|b| u32::from(b.recruit_value(s)))
                    .sum(),
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
            recruitment_cities: board
                .boxes
                .iter()
                .filter(|b| b.is_recruitment_city())
                .count(),
            recruitment_by_side,
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
            army_maximum: module
                .side_ids()
                .map(|side| ArmyMaximum {
                    side: module.side(side).id.clone(),
                    computed: s.army_maximum(module, side),
                    stated: s.side(side).and_then(|x| x.army_max),
                })
                .collect(),
        }
    }
}
