//! Integer ids for compiled definitions. Each indexes the matching `Vec` of the module.

use serde::{Deserialize, Serialize};

macro_rules! id {
    ($(#[$doc:meta])* $name:ident($t:ty)) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub struct $name(pub $t);

        impl $name {
            pub fn index(self) -> usize {
                usize::from(self.0)
            }

            /// The id for index `i`, or `None` if it does not fit.
            pub fn from_index(i: usize) -> Option<Self> {
                <$t>::try_from(i).ok().map(Self)
            }
        }
    };
}

id!(/// A side (player).
    SideId(u8));
id!(/// A seat at the table: a player of a side, or a referee who belongs to none.
    SeatId(u8));
id!(/// A box of the map.
    BoxId(u16));
id!(/// A line joining two boxes.
    LineId(u16));
id!(/// A kind of line (road, rail, river...).
    LineKindId(u8));
id!(/// A unit type.
    UnitTypeId(u8));
id!(/// A unit class (infantry, cavalry...).
    ClassId(u8));
id!(/// A unit quality (militia, veteran...).
    QualityId(u8));
id!(/// A game turn on the calendar, 0 for the first.
    TurnId(u16));
id!(/// An optional rule.
    OptionId(u8));
id!(/// A scenario of the module.
    ScenarioId(u8));
id!(/// One playing piece. Every piece of the counter mix exists for the whole game.
    UnitId(u16));
id!(/// A resource each side holds (marches, points, money).
    ResourceId(u8));
id!(/// A numbered attribute pieces may have (a general's strength).
    AttributeId(u8));
id!(/// A kind of marker that lies in boxes in counts.
    MarkerId(u8));
id!(/// A number boxes hold for each side (AHD: recruitment value).
    BoxValueId(u8));
id!(/// A per-side sum of a box value over the boxes a side controls (AHD: army maximum).
    TallyId(u8));
id!(/// A flag a piece may carry (at most [`crate::unit::MAX_FLAGS`] kinds).
    FlagId(u8));
