//! The battle to simulate: built from the calculator's words ("3 Vi, 1 Vc", a box, a
//! crossing), or snapshotted from a battle under way in a game.

use muster_core::Module;
use muster_core::format::{Procedure, ReturnsTo};
use muster_core::game::battle::{Battle, Stage};
use muster_core::game::rules::{Event, Rules};
use muster_core::game::{Dice, GameState, Place, flow};
use muster_core::ids::{
    AttributeId, BoxId, FlagId, LineId, MarkerId, OptionId, SideId, UnitId, UnitTypeId,
};
use muster_core::suggest;
use muster_core::unit::Flags;

use super::{MAX_UNITS, OddsError, Role};
use crate::battle::battle_of;

/// A battle described in words, as `muster odds` takes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spec {
    /// The attacking force: unit types (ids like `Vi`, or names) with counts, separated
    /// by commas: `"3 Vi, 1 Vc"`. A type without a count is one unit. Pieces that do not
    /// fight (a general) stand in the box with the side; attribute values in brackets
    /// replace the type's starting ones: `"3 Vi, grant[strength=2]"`.
    pub attackers: String,
    /// The defending force, likewise.
    pub defenders: String,
    /// The attacking side's id. Default: the side that does not own the battle box, or
    /// without a box (or an unowned one) the first side of the playing order.
    pub attacker_side: Option<String>,
    /// The battle box, by name or alias. It gives the water borders attackers may cross
    /// (5.34), what the defenders get for beginning the player turn there
    /// ([`Setup::settle`]: AHD's permanent entrenchment, 4.3), and the neighbours a side
    /// may retreat to (5.4), with
    /// every box held by its owner (its colour on the map) and no other units on the
    /// map. Without a box the battle is in no particular place: no crossings, and a
    /// retreat is always possible (an open friendly box is assumed).
    pub at: Option<String>,
    /// Flags every defender carries, by id (AHD: `entrenched`, 5.31).
    pub flags: Vec<String>,
    /// The first this-many attackers entered the box across a river (5.34): along the
    /// first line into the box that crosses its water border. Attackers that did not
    /// cross have no recorded entry.
    pub crossing: usize,
    /// Optional rules in force, by id or rule number (`like-battlefield-targets`, `5.2`).
    pub options: Vec<String>,
    /// Markers in the battle box, as `ID=N` (`entrenchment=1`, `water-crossing=2`).
    pub markers: Vec<String>,
}

/// A piece with a side in the battle box that does not fight (a general): the rules may
/// read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Companion {
    pub unit: UnitId,
    pub kind: UnitTypeId,
    pub role: Role,
}

/// One unit in the simulated battle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fighter {
    /// The piece in the position the rules are asked about.
    pub unit: UnitId,
    pub kind: UnitTypeId,
    /// Steps already lost (fewer than the type's steps).
    pub hits: u8,
    /// The piece's flags (AHD: entrenched).
    pub flags: Flags,
    /// How an attacker entered the box: along a line, by sea (`Some(None)`), or `None`
    /// (no recorded move). Always `None` for defenders.
    pub entry: Option<Option<LineId>>,
}

/// Where in the battle's sequence the simulation starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Before round 1: the defender may withdraw if the rules allow (5.6).
    BeforeCombat,
    /// The firing side's part begins with its retreat decision (from round 2, 5.4).
    PartStart,
    /// The firing side names targets (no retreat this part); these shots, of the firing
    /// side's units at enemy units, are announced already and stand (5.1).
    Targeting { shots: Vec<(UnitId, UnitId)> },
}

/// A battle to simulate: the two forces and everything the rules read about them.
#[derive(Clone, Debug)]
pub struct Setup {
    pub attacker: SideId,
    pub defender: SideId,
    /// The battle box, if there is one (see [`Spec::at`]).
    pub at: Option<BoxId>,
    /// The attacking units, in the order they joined the battle (they name targets in
    /// that order).
    pub attackers: Vec<Fighter>,
    pub defenders: Vec<Fighter>,
    /// Pieces of either side in the box that do not fight (a snapshot's are in its
    /// position already).
    pub companions: Vec<Companion>,
    /// Markers in the battle box, sorted (a snapshot's are in its position already).
    pub markers: Vec<(MarkerId, u16)>,
    /// Pieces' attribute values other than their type's starting ones, sorted (a
    /// snapshot's are in its position already).
    pub attributes: Vec<(UnitId, AttributeId, i64)>,
    /// Boxes the attackers entered the battle from (defenders may not retreat there).
    pub entered_from: Vec<BoxId>,
    /// Optional rules in force.
    pub options: Vec<OptionId>,
    /// The round the simulation starts in (1-based).
    pub round: u8,
    /// Whose part of the round comes first.
    pub firing: Role,
    pub phase: Phase,
    /// The rest of the position the rules may read (control, other boxes, the turn's
    /// record). The fields above override it when the rules are asked.
    base: GameState,
}

impl Setup {
    /// A battle from words; see [`Spec`] for what each part means.
    pub fn from_spec(module: &Module, spec: &Spec) -> Result<Setup, OddsError> {
        let attack = parse_force(module, &spec.attackers, "attackers")?;
        let defence = parse_force(module, &spec.defenders, "defenders")?;
        let at = spec
            .at
            .as_deref()
            .map(|name| find_box(module, name))
            .transpose()?;
        let (attacker, defender) = sides(module, spec.attacker_side.as_deref(), at)?;
        let mut options = Vec::new();
        for name in &spec.options {
            options.push(find_option(module, name)?);
        }
        let mut markers: Vec<(MarkerId, u16)> = Vec::new();
        for text in &spec.markers {
            let (id, n) = parse_marker(module, text)?;
            markers.retain(|m| m.0 != id);
            if n > 0 {
                markers.push((id, n));
            }
        }
        markers.sort_unstable();
        let mut flags = Flags::NONE;
        for name in &spec.flags {
            flags = flags.with(find_flag(module, name)?, true);
        }
        let mut entered_from = Vec::new();
        let (n_att, n_def) = (attack.fighters.len(), defence.fighters.len());
        let crossing = if spec.crossing > 0 {
            if spec.crossing > n_att {
                return Err(OddsError::Crossing {
                    why: format!(
                        "{} attackers cannot cross a river: there are only {n_att}",
                        spec.crossing
                    ),
                });
            }
            let (from, line) = water_line(module, at)?;
            entered_from.push(from);
            Some(line)
        } else {
            None
        };
        let unit = |i: usize| UnitId::from_index(i).unwrap_or_default();
        let mut attributes = Vec::new();
        let mut note = |u: UnitId, p: &Piece| {
            attributes.extend(p.attributes.iter().map(|&(a, v)| (u, a, v)));
        };
        let mut attackers = Vec::with_capacity(n_att);
        for (i, p) in attack.fighters.iter().enumerate() {
            note(unit(i), p);
            attackers.push(Fighter {
                unit: unit(i),
                kind: p.kind,
                hits: 0,
                flags: Flags::NONE,
                entry: crossing.filter(|_| i < spec.crossing).map(Some),
            });
        }
        let mut defenders = Vec::with_capacity(n_def);
        for (i, p) in defence.fighters.iter().enumerate() {
            note(unit(n_att + i), p);
            defenders.push(Fighter {
                unit: unit(n_att + i),
                kind: p.kind,
                hits: 0,
                flags,
                entry: None,
            });
        }
        let mut companions = Vec::new();
        let others = [
            (Role::Attacker, &attack.companions),
            (Role::Defender, &defence.companions),
        ];
        for (role, pieces) in others {
            for p in pieces {
                let u = unit(n_att + n_def + companions.len());
                note(u, p);
                companions.push(Companion {
                    unit: u,
                    kind: p.kind,
                    role,
                });
            }
        }
        attributes.sort_unstable_by_key(|&(u, a, _)| (u, a));
        attributes.dedup_by_key(|&mut (u, a, _)| (u, a));
        let base = base_state(module, attacker, n_att + n_def + companions.len())?;
        Ok(Setup {
            attacker,
            defender,
            at,
            attackers,
            defenders,
            companions,
            markers,
            attributes,
            entered_from,
            options,
            round: 1,
            firing: Role::Defender,
            phase: Phase::BeforeCombat,
            base,
        })
    }

    /// The defenders have stood in the battle box since before the attacker's player
    /// turn began: the rules' `player_turn_started` runs on the position, and each
    /// defender keeps the flags it got (AHD: a unit that begins a player turn in a
    /// Permanent Entrenchment is entrenched, 4.3); nothing else it did is kept. A battle
    /// in no particular box has nothing to settle.
    pub fn settle(&mut self, module: &Module, rules: &mut dyn Rules) -> Result<(), OddsError> {
        if self.at.is_none() {
            return Ok(());
        }
        let mut g = self.scratch(module)?;
        flow::react(module, rules, &mut g, Event::PlayerTurnStarted)
            .map_err(|e| OddsError::Setup(format!("the rules' player_turn_started failed: {e}")))?;
        for f in &mut self.defenders {
            if let Some(u) = g.units.get(f.unit.index()) {
                f.flags = u.flags;
            }
        }
        Ok(())
    }

    /// The battle under way in `state`, as it stands: its units with their hits,
    /// entrenchment and entries, the round, whose part it is and how far that part has
    /// got (a pending withdrawal or retreat decision, targets already announced), the
    /// options in force and the whole position for the rules to read. Reinforcements
    /// that could still join are not simulated.
    pub fn from_battle(module: &Module, state: &GameState) -> Result<Setup, OddsError> {
        let b = battle_of(state).ok_or(OddsError::NoBattle)?;
        if b.winner.is_some()
            || b.stage == Stage::Upgrade
            || b.attackers.is_empty()
            || b.defenders.is_empty()
        {
            return Err(OddsError::Decided);
        }
        let fighter = |u: UnitId, entry: Option<Option<LineId>>| {
            let unit = state.units.get(u.index()).ok_or_else(|| {
                OddsError::Setup(format!("unit {} of the battle is not in the game", u.0))
            })?;
            if module.units.types.get(unit.kind.index()).is_none() {
                return Err(OddsError::Setup(format!("unit {} has no known type", u.0)));
            }
            Ok(Fighter {
                unit: u,
                kind: unit.kind,
                hits: unit.hits,
                flags: unit.flags,
                entry,
            })
        };
        let entry = |u: UnitId| {
            b.entries
                .iter()
                .find(|(x, _)| *x == u)
                .and_then(|(_, e)| *e)
        };
        let attackers = b
            .attackers
            .iter()
            .map(|&u| fighter(u, entry(u)))
            .collect::<Result<_, _>>()?;
        let defenders = b
            .defenders
            .iter()
            .map(|&u| fighter(u, None))
            .collect::<Result<_, _>>()?;
        let phase = match b.stage {
            Stage::Withdraw => Phase::BeforeCombat,
            Stage::Retreat => Phase::PartStart,
            Stage::Reinforce => Phase::Targeting { shots: Vec::new() },
            Stage::Target => Phase::Targeting {
                shots: b.shots.clone(),
            },
            // A battle the rules resolve has no dice to simulate: its losses are
            // taken or being taken ([`crate::odds::resolved`] reports it exactly).
            Stage::Upgrade | Stage::Losses | Stage::Rout => return Err(OddsError::Decided),
        };
        Ok(Setup {
            attacker: b.attacker,
            defender: b.defender,
            at: Some(b.at),
            attackers,
            defenders,
            companions: Vec::new(),
            markers: Vec::new(),
            attributes: Vec::new(),
            entered_from: b.entered_from.clone(),
            options: state.options.clone(),
            round: b.round,
            firing: if b.firing == b.attacker {
                Role::Attacker
            } else {
                Role::Defender
            },
            phase,
            base: state.clone(),
        })
    }

    /// The next `count` attackers without an entry entered the battle box from the box
    /// `from`, by the line joining them: where a module's rules read the approach (a
    /// rules-resolved battle's column, Divided We Fall L1101). Needs a battle box.
    pub fn enter_from(
        &mut self,
        module: &Module,
        from: &str,
        count: usize,
    ) -> Result<(), OddsError> {
        let Some(at) = self.at else {
            return Err(OddsError::Setup(format!(
                "attackers from {from} need a battle box (--box)"
            )));
        };
        let Some(origin) = module.board.find(from) else {
            return Err(OddsError::UnknownBox {
                name: from.to_string(),
                hint: String::new(),
            });
        };
        let Some(line) = module
            .board
            .neighbours(at)
            .iter()
            .find(|&&(n, _)| n == origin)
            .map(|&(_, l)| l)
        else {
            return Err(OddsError::Setup(format!(
                "{from} is not next to {}: no line joins them",
                module.board.get(at).name
            )));
        };
        let open: Vec<usize> = (0..self.attackers.len())
            .filter(|&i| self.attackers[i].entry.is_none())
            .take(count)
            .collect();
        if open.len() < count {
            return Err(OddsError::Setup(format!(
                "{count} attackers from {from}: only {} attackers are left without an approach",
                open.len()
            )));
        }
        for i in open {
            self.attackers[i].entry = Some(Some(line));
        }
        if !self.entered_from.contains(&origin) {
            self.entered_from.push(origin);
        }
        Ok(())
    }

    /// One side's units.
    pub fn force(&self, role: Role) -> &[Fighter] {
        match role {
            Role::Attacker => &self.attackers,
            Role::Defender => &self.defenders,
        }
    }

    /// The side playing `role`.
    pub fn side(&self, role: Role) -> SideId {
        match role {
            Role::Attacker => self.attacker,
            Role::Defender => self.defender,
        }
    }

    /// The position the simulator asks the rules about, with the battle at its start:
    /// the engine can play the same battle from it (the tests compare the two).
    pub fn position(&self, module: &Module) -> Result<GameState, OddsError> {
        self.scratch(module)
    }

    /// The position the rules are asked about: the base with this setup's units, options
    /// and battle written in (round 1 of a battle whose parts the simulator then sets).
    pub(crate) fn scratch(&self, module: &Module) -> Result<GameState, OddsError> {
        let mut g = self.base.clone();
        let at = self.at.unwrap_or_default();
        for (side, force) in [
            (self.attacker, &self.attackers),
            (self.defender, &self.defenders),
        ] {
            for f in force {
                let t = module.units.types.get(f.kind.index()).ok_or_else(|| {
                    OddsError::Setup(format!("unit type {} does not exist", f.kind.0))
                })?;
                if f.hits >= t.steps {
                    return Err(OddsError::Setup(format!(
                        "a {} cannot have {} hits: it has {} steps",
                        t.id, f.hits, t.steps
                    )));
                }
                let u = g.units.get_mut(f.unit.index()).ok_or_else(|| {
                    OddsError::Setup(format!("unit {} is not in the position", f.unit.0))
                })?;
                u.side = side;
                u.kind = f.kind;
                u.hits = f.hits;
                u.flags = f.flags;
                u.place = Place::Board(at);
            }
        }
        for c in &self.companions {
            let u = g.units.get_mut(c.unit.index()).ok_or_else(|| {
                OddsError::Setup(format!("unit {} is not in the position", c.unit.0))
            })?;
            u.side = self.side(c.role);
            u.kind = c.kind;
            u.hits = 0;
            u.flags = Flags::NONE;
            u.place = Place::Board(at);
        }
        for &(u, a, v) in &self.attributes {
            g.attributes.retain(|&(x, y, _)| (x, y) != (u, a));
            g.attributes.push((u, a, v));
        }
        g.attributes.sort_unstable_by_key(|&(u, a, _)| (u, a));
        if !self.markers.is_empty() {
            g.markers.retain(|m| m.0 != at);
            g.markers
                .extend(self.markers.iter().map(|&(id, n)| (at, id, n)));
            g.markers.sort_unstable_by_key(|&(b, id, _)| (b, id));
        }
        let mut options = self.options.clone();
        options.sort_unstable();
        options.dedup();
        g.options = options;
        let ids = |force: &[Fighter]| force.iter().map(|f| f.unit).collect::<Vec<_>>();
        let mut combat = g.combat.take().unwrap_or_default();
        let mut b = combat.battle.take().unwrap_or_else(|| Battle {
            at,
            attacker: self.attacker,
            defender: self.defender,
            round: 1,
            firing: self.defender,
            stage: Stage::Target,
            attackers: Vec::new(),
            defenders: Vec::new(),
            entries: Vec::new(),
            entered_from: Vec::new(),
            shots: Vec::new(),
            reinforced_from: Vec::new(),
            winner: None,
            could_hit: false,
            owed: Vec::new(),
        });
        b.at = at;
        b.attacker = self.attacker;
        b.defender = self.defender;
        b.round = self.round.max(1);
        b.firing = self.side(self.firing);
        b.stage = Stage::Target;
        b.attackers = ids(&self.attackers);
        b.defenders = ids(&self.defenders);
        b.entries = self.attackers.iter().map(|f| (f.unit, f.entry)).collect();
        b.entered_from = self.entered_from.clone();
        b.shots = Vec::new();
        b.reinforced_from = Vec::new();
        b.winner = None;
        combat.battle = Some(b);
        g.combat = Some(combat);
        Ok(g)
    }
}

/// Where an eliminated unit of this type goes (the engine moves it there).
pub(crate) fn gone_to(module: &Module, kind: UnitTypeId) -> Place {
    match module.units.get(kind).returns_to {
        ReturnsTo::Pool => Place::Pool,
        ReturnsTo::Stock => Place::Stock,
    }
}

/// One piece of a force in words: its type and attribute values.
struct Piece {
    kind: UnitTypeId,
    attributes: Vec<(AttributeId, i64)>,
}

/// A force in words: the pieces that fight, and those that only stand with them.
struct Force {
    fighters: Vec<Piece>,
    companions: Vec<Piece>,
}

/// `"3 Vi, 1 Vc, grant[strength=2]"` to pieces, one entry per piece.
fn parse_force(module: &Module, text: &str, force: &'static str) -> Result<Force, OddsError> {
    let mut out = Force {
        fighters: Vec::new(),
        companions: Vec::new(),
    };
    for item in text.split([',', ';', '+']) {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let bad = |why: String| OddsError::BadForce {
            force,
            item: item.into(),
            why,
        };
        let (head, attributes) = match item.split_once('[') {
            Some((head, rest)) => {
                let Some(inside) = rest.trim_end().strip_suffix(']') else {
                    return Err(bad("a '[' without its ']'".into()));
                };
                (head, Some(inside))
            }
            None => (item, None),
        };
        let digits = head.len() - head.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let (count, name) = head.split_at(digits);
        let name = name.trim();
        let count: usize = if count.is_empty() {
            1
        } else {
            count
                .parse()
                .map_err(|_| bad("the count is too large".into()))?
        };
        if name.is_empty() {
            return Err(bad("no unit type after the count".into()));
        }
        let kind = find_type(module, name, force)?;
        let t = module.units.get(kind);
        let attributes = match attributes {
            Some(text) => parse_attributes(module, kind, text).map_err(bad)?,
            None => Vec::new(),
        };
        let fights = t.combatant && !t.advanced && t.steps > 0;
        if !fights && t.combatant {
            return Err(bad(format!(
                "{} ({}) does not fight in battles of this game",
                t.id, t.name
            )));
        }
        let list = if fights {
            &mut out.fighters
        } else {
            &mut out.companions
        };
        if fights && count > MAX_UNITS - list.len() {
            return Err(OddsError::TooManyUnits {
                force,
                count: list.len().saturating_add(count),
            });
        }
        if !fights && count > MAX_UNITS - list.len() {
            return Err(bad(format!("at most {MAX_UNITS} pieces that do not fight")));
        }
        list.extend((0..count).map(|_| Piece {
            kind,
            attributes: attributes.clone(),
        }));
    }
    if out.fighters.is_empty() {
        return Err(OddsError::EmptyForce { force });
    }
    Ok(out)
}

fn find_type(module: &Module, name: &str, force: &'static str) -> Result<UnitTypeId, OddsError> {
    module.units.find(name).ok_or_else(|| {
        let hint = module.units.hint(name).unwrap_or_else(|| {
            let ids: Vec<&str> = module
                .units
                .types
                .iter()
                .filter(|t| !t.advanced)
                .map(|t| t.id.as_str())
                .collect();
            format!("the unit types are {}", ids.join(", "))
        });
        OddsError::UnknownUnit {
            force,
            name: name.into(),
            hint,
        }
    })
}

/// `strength=2 other=1` (the inside of a piece's brackets) to attribute values the
/// type has.
fn parse_attributes(
    module: &Module,
    kind: UnitTypeId,
    text: &str,
) -> Result<Vec<(AttributeId, i64)>, String> {
    let t = module.units.get(kind);
    let mut out = Vec::new();
    for pair in text.split_whitespace() {
        let Some((name, value)) = pair.split_once('=') else {
            return Err(format!("'{pair}' is not ATTRIBUTE=VALUE"));
        };
        let has: Vec<&str> = t
            .attributes
            .iter()
            .map(|&(a, _)| module.units.attributes[a.index()].as_str())
            .collect();
        let Some(id) = module
            .units
            .find_attribute(name.trim())
            .filter(|&a| t.attribute(a).is_some())
        else {
            return Err(if has.is_empty() {
                format!("a {} has no attributes", t.id)
            } else {
                format!(
                    "a {} has no attribute '{name}' (it has {})",
                    t.id,
                    has.join(", ")
                )
            });
        };
        let value = value
            .trim()
            .parse::<i64>()
            .map_err(|_| format!("'{value}' is not a whole number"))?;
        out.push((id, value));
    }
    Ok(out)
}

/// `entrenchment=1` to a marker and its count.
fn parse_marker(module: &Module, text: &str) -> Result<(MarkerId, u16), OddsError> {
    let bad = |why: String| OddsError::BadMarker {
        item: text.into(),
        why,
    };
    let (name, count) = match text.split_once('=') {
        Some((name, count)) => (name.trim(), count.trim()),
        None => (text.trim(), "1"),
    };
    let Some(id) = module.units.find_marker(name) else {
        let ids: Vec<&str> = module.units.markers.iter().map(|m| m.id.as_str()).collect();
        let hint = module.units.marker_hint(name).unwrap_or_else(|| {
            if ids.is_empty() {
                "this module has no markers".into()
            } else {
                format!("the markers are {}", ids.join(", "))
            }
        });
        return Err(bad(format!("no marker '{name}'; {hint}")));
    };
    let count = count
        .parse::<u16>()
        .map_err(|_| bad(format!("'{count}' is not a count from 0 to {}", u16::MAX)))?;
    Ok((id, count))
}

fn find_box(module: &Module, name: &str) -> Result<BoxId, OddsError> {
    module
        .board
        .find(name)
        .ok_or_else(|| OddsError::UnknownBox {
            name: name.into(),
            hint: module
                .board
                .hint(name)
                .map(|h| format!("; {h}"))
                .unwrap_or_default(),
        })
}

fn find_flag(module: &Module, name: &str) -> Result<FlagId, OddsError> {
    module
        .units
        .find_flag(name)
        .ok_or_else(|| OddsError::UnknownFlag {
            name: name.into(),
            hint: format!("; {}", module.units.flag_help(name)),
        })
}

fn find_option(module: &Module, name: &str) -> Result<OptionId, OddsError> {
    module.find_option(name).ok_or_else(|| {
        let ids: Vec<&str> = module.options.iter().map(|o| o.id.as_str()).collect();
        let hint = suggest::did_you_mean(name, ids.iter().copied())
            .unwrap_or_else(|| format!("the optional rules are {}", ids.join(", ")));
        OddsError::UnknownOption {
            name: name.into(),
            hint: format!("; {hint}"),
        }
    })
}

/// The attacking and defending sides (see [`Spec::attacker_side`]).
fn sides(
    module: &Module,
    attacker: Option<&str>,
    at: Option<BoxId>,
) -> Result<(SideId, SideId), OddsError> {
    if module.sides.len() < 2 {
        return Err(OddsError::Sides(format!("{} side(s)", module.sides.len())));
    }
    let other = |s: SideId| module.side_ids().find(|&x| x != s).unwrap_or(s);
    if let Some(name) = attacker {
        let Some(a) = module.find_side(name) else {
            let hint = module.side_hint(name).unwrap_or_else(|| {
                let ids: Vec<&str> = module.sides.iter().map(|s| s.id.as_str()).collect();
                format!("the sides are {}", ids.join(", "))
            });
            return Err(OddsError::UnknownSide {
                name: name.into(),
                hint: format!("; {hint}"),
            });
        };
        return Ok((a, other(a)));
    }
    if let Some(owner) = at.and_then(|b| module.board.get(b).owner) {
        return Ok((other(owner), owner));
    }
    let first = module.calendar.sides.first().copied().unwrap_or(SideId(0));
    Ok((first, other(first)))
}

/// Boxes with a line into them that crosses their water border.
fn boxes_with_water(module: &Module) -> Vec<&str> {
    module
        .board
        .box_ids()
        .filter(|&b| crossing_line(module, b).is_some())
        .map(|b| module.board.get(b).name.as_str())
        .collect()
}

/// The first line into `at` that crosses its water border, with the box at its far end.
fn crossing_line(module: &Module, at: BoxId) -> Option<(BoxId, LineId)> {
    module
        .board
        .neighbours(at)
        .iter()
        .copied()
        .find(|&(_, l)| module.board.line(l).crosses_water_border_into(at))
}

fn water_line(module: &Module, at: Option<BoxId>) -> Result<(BoxId, LineId), OddsError> {
    let list = || {
        let names = boxes_with_water(module);
        const SHOWN: usize = 8;
        let mut text = names
            .iter()
            .take(SHOWN)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if names.len() > SHOWN {
            text.push_str(&format!(" and {} more", names.len() - SHOWN));
        }
        if text.is_empty() {
            "no box of this map has one".to_string()
        } else {
            format!("boxes with one: {text}")
        }
    };
    let Some(at) = at else {
        return Err(OddsError::Crossing {
            why: format!(
                "a river crossing (5.34) needs a battle box with a water border; {}",
                list()
            ),
        });
    };
    crossing_line(module, at).ok_or_else(|| OddsError::Crossing {
        why: format!(
            "no line into {} crosses a water border, so no attacker can cross a river there (5.34); {}",
            module.board.get(at).name,
            list()
        ),
    })
}

/// A position holding only the battle's `n` pieces (their fields are written by
/// [`Setup::scratch`]), every box held by its owner, the attacker to move in its Battle
/// segment. Built from the module's first scenario so that every other field has the
/// value a new game gives it.
fn base_state(module: &Module, attacker: SideId, n: usize) -> Result<GameState, OddsError> {
    let scenario = module.scenarios.first().ok_or_else(|| {
        OddsError::Setup("the module has no scenario to take a position from".into())
    })?;
    let mut g = GameState::new(module, scenario, Vec::new(), Dice::seeded(0))
        .map_err(|e| OddsError::Setup(e.to_string()))?;
    let mut template = g
        .units
        .first()
        .cloned()
        .ok_or_else(|| OddsError::Setup("the module has no pieces".into()))?;
    template.hits = 0;
    template.flags = Flags::NONE;
    template.moves = 0;
    g.units = vec![template; n];
    for (state, b) in g.boxes.iter_mut().zip(&module.board.boxes) {
        state.controller = b.owner;
        state.marker = false;
    }
    let player = module.calendar.sides.iter().position(|&s| s == attacker);
    g.player = player.and_then(|p| u8::try_from(p).ok()).unwrap_or(0);
    let segment = module
        .calendar
        .steps
        .iter()
        .position(|s| s.procedure == Procedure::Battles || s.immediate);
    g.step = segment.and_then(|p| u8::try_from(p).ok()).unwrap_or(0);
    g.vars.clear();
    g.attributes.clear();
    g.markers.clear();
    g.moving = None;
    g.turn_log = Default::default();
    g.combat = None;
    g.outcome = None;
    Ok(g)
}
