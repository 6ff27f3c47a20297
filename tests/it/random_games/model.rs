//! The second model of *A House Divided*: the module's names the checks need, where
//! each side's units stand, and one game's checker with the optional rules' cases
//! (5.41's evacuations, 11.3's sudden death) it must know.

use super::*;

/// The module with the names the checks need, resolved once.
pub(crate) struct Ahd {
    pub(crate) m: Module,
    pub(crate) union: SideId,
    pub(crate) confederate: SideId,
    pub(crate) washington: BoxId,
    /// 10.0: the seven Confederate Recruitment Cities of value 2 or 3.
    pub(crate) key_cities: Vec<BoxId>,
}

impl Ahd {
    pub(crate) fn load() -> Ahd {
        let m = muster_test_support::ahd_module();
        let find = |name: &str| {
            m.board
                .find(name)
                .unwrap_or_else(|| panic!("no box {name}"))
        };
        let key_cities = [
            "New Orleans",
            "Charleston (South Carolina)",
            "Mobile",
            "Wilmington",
            "Atlanta",
            "Richmond",
            "Memphis",
        ]
        .map(find)
        .to_vec();
        Ahd {
            union: m.find_side("union").expect("side union"),
            confederate: m.find_side("confederate").expect("side confederate"),
            washington: find("Washington"),
            key_cities,
            m,
        }
    }

    pub(crate) fn enemy(&self, side: SideId) -> SideId {
        if side == self.union {
            self.confederate
        } else {
            self.union
        }
    }

    pub(crate) fn kind(&self, state: &GameState, u: UnitId) -> UnitTypeId {
        state.unit(u).kind
    }

    pub(crate) fn class(&self, state: &GameState, u: UnitId) -> &str {
        let t = self.m.units.get(self.kind(state, u));
        t.class
            .map_or("", |c| self.m.units.classes[c.index()].id.as_str())
    }

    pub(crate) fn is_cavalry(&self, state: &GameState, u: UnitId) -> bool {
        self.class(state, u) == "cavalry"
    }

    pub(crate) fn is_infantry(&self, state: &GameState, u: UnitId) -> bool {
        self.class(state, u) == "infantry"
    }

    pub(crate) fn is_militia(&self, kind: UnitTypeId) -> bool {
        self.m
            .units
            .get(kind)
            .quality
            .is_some_and(|q| self.m.units.qualities[q.index()].id == "militia")
    }

    pub(crate) fn line_kind(&self, l: LineId) -> &str {
        let line = self.m.board.line(l);
        self.m.board.kinds[line.kind.index()].id.as_str()
    }

    pub(crate) fn is_recruitment_city(&self, b: BoxId) -> bool {
        ahd_terms::is_recruitment_city(&self.m, self.m.board.get(b))
    }

    pub(crate) fn name(&self, b: BoxId) -> &str {
        &self.m.board.get(b).name
    }

    /// What the mover has left of the resource the current step spends.
    pub(crate) fn left(&self, state: &GameState) -> i64 {
        state.step_left(&self.m)
    }

    /// The procedure of the step the state is in, game over or not.
    pub(crate) fn step(&self, state: &GameState) -> Procedure {
        self.m.calendar.steps[usize::from(state.step)].procedure
    }

    /// Index of the Combat segment in a player turn.
    pub(crate) fn combat_index(&self) -> u8 {
        let i = self
            .m
            .calendar
            .steps
            .iter()
            .position(|s| s.procedure == Procedure::Battles)
            .expect("a combat segment");
        u8::try_from(i).expect("few segments")
    }

    /// Boxes holding units of more than one side.
    pub(crate) fn shared(&self, state: &GameState) -> Vec<BoxId> {
        let mut sides = vec![0u32; self.m.board.boxes.len()];
        for u in &state.units {
            if let Place::Board(b) = u.place {
                sides[b.index()] |= 1 << u.side.index();
            }
        }
        self.m
            .board
            .box_ids()
            .filter(|b| sides[b.index()].count_ones() > 1)
            .collect()
    }

    /// 10.0: a condition that ends play at once, and whom it favours.
    pub(crate) fn sudden_winner(&self, state: &GameState) -> Option<SideId> {
        if self
            .key_cities
            .iter()
            .all(|&b| state.controller(b) == Some(self.union))
        {
            return Some(self.union);
        }
        if state.controller(self.washington) == Some(self.confederate) {
            return Some(self.confederate);
        }
        if state.army_maximum(&self.m, self.confederate) > state.army_maximum(&self.m, self.union) {
            return Some(self.confederate);
        }
        None
    }

    /// 10.0, 11.1: who wins when the last turn is over with no sudden victory.
    pub(crate) fn winner_at_the_end(&self, scenario: &str, state: &GameState) -> SideId {
        let (u, c) = (
            state.army_maximum(&self.m, self.union),
            state.army_maximum(&self.m, self.confederate),
        );
        if scenario == "1861-short" && u >= c + 5 {
            self.union
        } else {
            self.confederate
        }
    }
}

/// The units in each box, gathered once per state: the checks ask about every box, and
/// scanning every piece for each would make a debug run several times slower.
pub(crate) struct Where<'s> {
    pub(crate) state: &'s GameState,
    pub(crate) at: Vec<Vec<UnitId>>,
}

impl<'s> Where<'s> {
    pub(crate) fn new(ahd: &Ahd, state: &'s GameState) -> Self {
        let mut at = vec![Vec::new(); ahd.m.board.boxes.len()];
        for u in state.unit_ids() {
            if let Place::Board(b) = state.unit(u).place {
                at[b.index()].push(u);
            }
        }
        Where { state, at }
    }

    pub(crate) fn units(&self, b: BoxId) -> &[UnitId] {
        &self.at[b.index()]
    }

    pub(crate) fn of(&self, side: SideId, b: BoxId) -> Vec<UnitId> {
        self.units(b)
            .iter()
            .copied()
            .filter(|&u| self.state.unit(u).side == side)
            .collect()
    }

    pub(crate) fn has(&self, side: SideId, b: BoxId) -> bool {
        self.units(b)
            .iter()
            .any(|&u| self.state.unit(u).side == side)
    }

    pub(crate) fn enemy_in(&self, side: SideId, b: BoxId) -> bool {
        self.units(b)
            .iter()
            .any(|&u| self.state.unit(u).side != side)
    }
}

pub(crate) fn battle(state: &GameState) -> Option<&Battle> {
    state.combat.as_ref()?.battle.as_ref()
}

pub(crate) fn own(b: &Battle, side: SideId) -> &[UnitId] {
    if side == b.attacker {
        &b.attackers
    } else {
        &b.defenders
    }
}

/// (game turn, player turn, segment): where in the sequence of play (3.0) a state is.
pub(crate) fn position(state: &GameState) -> (u16, u8, u8) {
    (state.turn.0, state.player, state.step)
}

/// What the checks remember from one action to the next.
#[derive(Default)]
pub(crate) struct Track {
    /// Boxes holding both sides' units when the current Combat segment began.
    pub(crate) combat_boxes: Vec<BoxId>,
    /// Promotions made in the current Promotion segment.
    pub(crate) promotions: u32,
    /// Marches the current Movement segment began with (4.7: six allow an invasion).
    pub(crate) marches: i64,
    /// Boxes the attacker's reinforcements came from in the battle under way (5.4).
    pub(crate) reinforced_from: Vec<BoxId>,
}

/// Broken rules, each with the games and times it broke in, and its first example.
/// One game's checker: collects what broke, with enough to reproduce it.
pub(crate) struct Game<'a> {
    pub(crate) ahd: &'a Ahd,
    pub(crate) scenario: String,
    pub(crate) seed: u64,
    /// The optional rules in force, by id.
    pub(crate) options: Vec<String>,
    pub(crate) findings: Findings,
}

impl Game<'_> {
    pub(crate) fn flag(&mut self, step: usize, rule: &str, detail: String) {
        let example = format!(
            "scenario {}, seed {}, options [{}], after action {step}: {detail}",
            self.scenario,
            self.seed,
            self.options.join(",")
        );
        self.findings.add(rule.to_string(), example);
    }

    pub(crate) fn option(&self, id: &str) -> bool {
        self.options.iter().any(|o| o == id)
    }

    /// 5.41: where the Union side of the battle under way may evacuate to, if anywhere:
    /// Washington, held by the Union without enemy units in it, from a gray port whose
    /// battle came of a naval invasion (an attacker entered by sea) or of a Confederate
    /// attack on the Union; by retreat, not by withdrawal.
    pub(crate) fn evacuation(&self, w: &Where<'_>, b: &Battle) -> Option<BoxId> {
        let ahd = self.ahd;
        let (state, place) = (w.state, ahd.m.board.get(b.at));
        let invaded = b.attacker == ahd.union && b.entries.iter().any(|(_, e)| *e == Some(None));
        (self.option("naval-evacuations")
            && b.stage == Stage::Retreat
            && b.decider() == ahd.union
            && place.has_tag("port")
            && place.owner == Some(ahd.confederate)
            && (invaded || b.defender == ahd.union)
            && state.controller(ahd.washington) == Some(ahd.union)
            && !w.enemy_in(ahd.union, ahd.washington))
        .then_some(ahd.washington)
    }

    /// 11.3 (sudden death): who has a Decisive victory at the end of this March turn of
    /// 1862-1864, in a game played to the Campaign Game ending.
    pub(crate) fn decisive(&self, state: &GameState) -> Option<SideId> {
        let ahd = self.ahd;
        let m = &ahd.m;
        let turn = m.calendar.turn(state.turn);
        let end = m.calendar.turn(state.end).label.as_str();
        let decisive = match turn.year {
            1862 => 11,
            1863 => 15,
            1864 => 19,
            _ => return None,
        };
        if !self.option("sudden-death")
            || turn.first_month != 3
            || !["06/1865", "11-12/1865"].contains(&end)
        {
            return None;
        }
        let difference = i64::from(state.army_maximum(m, ahd.union))
            - i64::from(state.army_maximum(m, ahd.confederate));
        if difference >= decisive {
            Some(ahd.union)
        } else if difference <= decisive - 6 {
            Some(ahd.confederate)
        } else {
            None
        }
    }
}
