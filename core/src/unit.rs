//! Unit types: class, quality, combat value, steps, promotion and counter mix.

use serde::Serialize;

use crate::diag::Pos;
use crate::format::ReturnsTo;
use crate::ids::{AttributeId, ClassId, FlagId, MarkerId, QualityId, SideId, UnitTypeId};
use crate::names::NameIndex;

/// A unit class or quality: an id with a display name.
#[derive(Clone, Debug, Serialize)]
pub struct Named {
    pub id: String,
    pub name: String,
    #[serde(skip)]
    pub pos: Pos,
}

#[derive(Clone, Debug, Serialize)]
pub struct UnitType {
    /// Short id, as in setups (`Vi`).
    pub id: String,
    pub name: String,
    pub class: Option<ClassId>,
    pub quality: Option<QualityId>,
    /// Hits on a die roll of this or less.
    pub combat: u8,
    /// Added to the combat value of a unit firing at this one.
    pub defense: i8,
    pub steps: u8,
    pub promotes_to: Option<UnitTypeId>,
    pub returns_to: ReturnsTo,
    /// Belongs to an advanced game and stays out of basic play.
    pub advanced: bool,
    /// Fights in battles (a general does not).
    pub combatant: bool,
    /// The attributes its pieces have, with their starting values, by attribute id.
    pub attributes: Vec<(AttributeId, i64)>,
    /// Counter-mix limit per side, indexed by [`SideId`].
    pub mix: Vec<u16>,
    /// The types a piece of this type may hold directly (a formation); empty: none.
    pub holds: Vec<UnitTypeId>,
    /// The most combatant pieces it holds at any depth, if limited.
    pub capacity: Option<u16>,
    /// The rule its capacity comes from (`§6.11`), named in the refusal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// What it counts in its side's army size with all it holds, if the module says.
    pub weight: Option<u16>,
    #[serde(skip)]
    pub pos: Pos,
}

impl UnitType {
    /// The starting value of an attribute, if pieces of this type have it.
    pub fn attribute(&self, id: AttributeId) -> Option<i64> {
        self.attributes
            .iter()
            .find(|(a, _)| *a == id)
            .map(|&(_, v)| v)
    }

    /// Whether pieces of this type are formations (may hold pieces).
    pub fn is_formation(&self) -> bool {
        !self.holds.is_empty()
    }

    pub fn mix_for(&self, side: SideId) -> u16 {
        self.mix.get(side.index()).copied().unwrap_or(0)
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Units {
    pub classes: Vec<Named>,
    pub qualities: Vec<Named>,
    pub types: Vec<UnitType>,
    /// Every attribute name any type declares, indexed by [`AttributeId`].
    pub attributes: Vec<String>,
    /// Markers that lie in boxes in counts, indexed by [`MarkerId`].
    pub markers: Vec<Named>,
    /// Flags a piece may carry, indexed by [`FlagId`].
    pub flags: Vec<Named>,
    #[serde(skip)]
    pub(crate) names: NameIndex,
    #[serde(skip)]
    pub(crate) attribute_names: NameIndex,
    #[serde(skip)]
    pub(crate) marker_names: NameIndex,
    #[serde(skip)]
    pub(crate) flag_names: NameIndex,
}

/// How many kinds of flag a module may declare: a piece keeps its flags in one word.
pub const MAX_FLAGS: usize = 32;

/// The flags a piece carries, one bit per [`FlagId`]. A flag is a fact about a piece
/// where it stands (AHD: entrenched): it is cleared whenever the piece changes place.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct Flags(pub u32);

impl Flags {
    pub const NONE: Flags = Flags(0);

    pub fn has(self, flag: FlagId) -> bool {
        flag.index() < MAX_FLAGS && self.0 & (1 << flag.index()) != 0
    }

    pub fn with(self, flag: FlagId, on: bool) -> Flags {
        if flag.index() >= MAX_FLAGS {
            return self;
        }
        let bit = 1 << flag.index();
        Flags(if on { self.0 | bit } else { self.0 & !bit })
    }

    // By reference: serde's `skip_serializing_if` passes one.
    #[allow(clippy::trivially_copy_pass_by_ref)]
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// The flags set, in id order.
    pub fn iter(self) -> impl Iterator<Item = FlagId> {
        (0..MAX_FLAGS)
            .filter(move |&i| self.0 & (1 << i) != 0)
            .filter_map(FlagId::from_index)
    }
}

impl Units {
    pub fn get(&self, id: UnitTypeId) -> &UnitType {
        &self.types[id.index()]
    }

    /// Finds a unit type by id (`Vi`) or name (`Veteran Infantry`), ignoring case.
    pub fn find(&self, name: &str) -> Option<UnitTypeId> {
        self.names.get(name).and_then(UnitTypeId::from_index)
    }

    pub fn hint(&self, name: &str) -> Option<String> {
        self.names.hint(name)
    }

    pub fn find_attribute(&self, name: &str) -> Option<AttributeId> {
        self.attribute_names
            .get(name)
            .and_then(AttributeId::from_index)
    }

    pub fn attribute_hint(&self, name: &str) -> Option<String> {
        self.attribute_names.hint(name)
    }

    pub fn find_marker(&self, name: &str) -> Option<MarkerId> {
        self.marker_names.get(name).and_then(MarkerId::from_index)
    }

    pub fn marker_hint(&self, name: &str) -> Option<String> {
        self.marker_names.hint(name)
    }

    pub fn find_flag(&self, name: &str) -> Option<FlagId> {
        self.flag_names.get(name).and_then(FlagId::from_index)
    }

    pub fn flag_hint(&self, name: &str) -> Option<String> {
        self.flag_names.hint(name)
    }

    /// What to say of an unknown flag `name`: a likely spelling, or the flags there are.
    pub fn flag_help(&self, name: &str) -> String {
        self.flag_hint(name).unwrap_or_else(|| {
            let ids: Vec<&str> = self.flags.iter().map(|f| f.id.as_str()).collect();
            if ids.is_empty() {
                "the module declares no <flag>".into()
            } else {
                format!("the flags are {}", ids.join(", "))
            }
        })
    }

    /// The flags' names, for people (`entrenched`), joined by `, `.
    pub fn flag_names(&self, flags: Flags) -> String {
        flags
            .iter()
            .filter_map(|f| self.flags.get(f.index()))
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub fn ids(&self) -> impl Iterator<Item = UnitTypeId> + '_ {
        (0..self.types.len()).filter_map(UnitTypeId::from_index)
    }
}
