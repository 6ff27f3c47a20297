//! Unit types: class, quality, combat value, steps, promotion and counter mix.

use serde::Serialize;

use crate::diag::Pos;
use crate::format::ReturnsTo;
use crate::ids::{ClassId, QualityId, SideId, UnitTypeId};
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
    /// Counter-mix limit per side, indexed by [`SideId`].
    pub mix: Vec<u16>,
    #[serde(skip)]
    pub pos: Pos,
}

impl UnitType {
    pub fn mix_for(&self, side: SideId) -> u16 {
        self.mix.get(side.index()).copied().unwrap_or(0)
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Units {
    pub classes: Vec<Named>,
    pub qualities: Vec<Named>,
    pub types: Vec<UnitType>,
    #[serde(skip)]
    pub(crate) names: NameIndex,
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

    pub fn ids(&self) -> impl Iterator<Item = UnitTypeId> + '_ {
        (0..self.types.len()).filter_map(UnitTypeId::from_index)
    }
}
