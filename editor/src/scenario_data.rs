//! The editable scenario: start turn, and per side the units placed on boxes, control
//! markers, the recruitment pool and the units set aside, all by name as written.
//!
//! Like [`crate::map_data`], these are plain values rather than the compiled
//! [`muster_core::Scenario`]: a scenario mid-edit may name a unit type that does not exist
//! or break the counter mix, and the editor must still show and save it. The engine's
//! loader checks the XML written from them. The helpers here only rearrange data; what
//! is legal is the loader's business.

/// A count of one unit type, as in `units="2 Vi"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitCount {
    pub count: u16,
    /// The unit type's id as written (`Vi`).
    pub unit: String,
}

/// One `<place>`: units of a side on a box.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaceData {
    /// The box's name as written.
    pub at: String,
    pub units: Vec<UnitCount>,
    /// Flag ids the placed units carry, as written (`entrenched`).
    pub flags: Vec<String>,
}

/// One `<control>` marker: on one box or on every box with a tag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlData {
    Box(String),
    Tag(String),
}

/// Where off-board units of a side wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OffBoard {
    Pool,
    SetAside,
}

/// One `<side>` of a scenario.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SideData {
    pub id: String,
    /// The tallies the rules state (`<tally id value>`: AHD's army maximum), in order.
    pub tallies: Vec<(String, u32)>,
    pub places: Vec<PlaceData>,
    pub control: Vec<ControlData>,
    pub pool: Vec<UnitCount>,
    pub set_aside: Vec<UnitCount>,
}

/// A whole scenario file's content.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ScenarioData {
    pub id: String,
    pub name: String,
    pub rule: Option<String>,
    /// Start turn label as written (`07/1861`).
    pub start: Option<String>,
    pub end: Option<String>,
    /// Another scenario whose setup this one uses; it then has no sides of its own.
    pub setup: Option<String>,
    pub description: Option<String>,
    pub sides: Vec<SideData>,
}

/// Adds `delta` units of `unit` to a list (merging with an entry of the same type);
/// entries that drop to zero are removed.
pub fn add_units(list: &mut Vec<UnitCount>, unit: &str, delta: i32) {
    let at = list.iter().position(|u| u.unit.eq_ignore_ascii_case(unit));
    let now = at.map_or(0, |i| i32::from(list[i].count));
    let next = (now + delta).clamp(0, i32::from(u16::MAX)) as u16;
    match (at, next) {
        (Some(i), 0) => {
            list.remove(i);
        }
        (Some(i), n) => list[i].count = n,
        (None, 0) => {}
        (None, n) => list.push(UnitCount {
            count: n,
            unit: unit.to_owned(),
        }),
    }
}

/// How many units of `unit` a list holds.
pub fn units_of(list: &[UnitCount], unit: &str) -> u16 {
    list.iter()
        .filter(|u| u.unit.eq_ignore_ascii_case(unit))
        .map(|u| u.count)
        .sum()
}

impl SideData {
    /// The stated value of the tally `id`, if the file states one.
    pub fn stated(&self, id: &str) -> Option<u32> {
        self.tallies
            .iter()
            .find(|(t, _)| t.eq_ignore_ascii_case(id))
            .map(|&(_, v)| v)
    }

    /// States (or, with `None`, stops stating) the tally `id`.
    pub fn set_stated(&mut self, id: &str, value: Option<u32>) {
        match (
            self.tallies
                .iter()
                .position(|(t, _)| t.eq_ignore_ascii_case(id)),
            value,
        ) {
            (Some(i), Some(v)) => self.tallies[i].1 = v,
            (Some(i), None) => {
                self.tallies.remove(i);
            }
            (None, Some(v)) => self.tallies.push((id.to_owned(), v)),
            (None, None) => {}
        }
    }
}

impl ScenarioData {
    /// The side set up with id `side`, if the scenario has one.
    pub fn side(&self, side: &str) -> Option<&SideData> {
        self.sides.iter().find(|s| s.id.eq_ignore_ascii_case(side))
    }

    /// The side `side`, added (empty) if the scenario has none yet.
    pub fn side_mut(&mut self, side: &str) -> &mut SideData {
        let at = self
            .sides
            .iter()
            .position(|s| s.id.eq_ignore_ascii_case(side));
        let i = at.unwrap_or_else(|| {
            self.sides.push(SideData {
                id: side.to_owned(),
                ..SideData::default()
            });
            self.sides.len() - 1
        });
        &mut self.sides[i]
    }

    /// Adds (or with a negative `delta` removes) units of `side` on the box for which
    /// `is_box` holds (placements may name a box by any of its names). Units are added
    /// to the side's first placement there, or to a new one named `name`.
    pub fn add_placed(
        &mut self,
        side: &str,
        is_box: &dyn Fn(&str) -> bool,
        name: &str,
        unit: &str,
        delta: i32,
    ) {
        let s = self.side_mut(side);
        let at = s.places.iter().position(|p| is_box(&p.at));
        let i = at.unwrap_or_else(|| {
            s.places.push(PlaceData {
                at: name.to_owned(),
                units: Vec::new(),
                flags: Vec::new(),
            });
            s.places.len() - 1
        });
        add_units(&mut s.places[i].units, unit, delta);
        if s.places[i].units.is_empty() {
            s.places.remove(i);
        }
    }

    /// Removes every unit of `side` from the box.
    pub fn remove_placed(&mut self, side: &str, is_box: &dyn Fn(&str) -> bool) {
        if let Some(s) = self
            .sides
            .iter_mut()
            .find(|s| s.id.eq_ignore_ascii_case(side))
        {
            s.places.retain(|p| !is_box(&p.at));
        }
    }

    /// Whether `side`'s units on the box start with the flag (`entrenched`).
    pub fn has_flag(&self, side: &str, is_box: &dyn Fn(&str) -> bool, flag: &str) -> bool {
        self.side(side).is_some_and(|s| {
            s.places
                .iter()
                .any(|p| is_box(&p.at) && p.flags.iter().any(|f| f.eq_ignore_ascii_case(flag)))
        })
    }

    /// Sets or clears a flag on every placement of `side` on the box.
    pub fn set_flag(&mut self, side: &str, is_box: &dyn Fn(&str) -> bool, flag: &str, on: bool) {
        if let Some(s) = self
            .sides
            .iter_mut()
            .find(|s| s.id.eq_ignore_ascii_case(side))
        {
            for p in s.places.iter_mut().filter(|p| is_box(&p.at)) {
                p.flags.retain(|f| !f.eq_ignore_ascii_case(flag));
                if on {
                    p.flags.push(flag.to_owned());
                }
            }
        }
    }

    /// The side whose box control marker is on the box (tag markers not counted).
    pub fn control_marker(&self, is_box: &dyn Fn(&str) -> bool) -> Option<&str> {
        self.sides
            .iter()
            .find(|s| {
                s.control
                    .iter()
                    .any(|c| matches!(c, ControlData::Box(b) if is_box(b)))
            })
            .map(|s| s.id.as_str())
    }

    /// Puts `side`'s control marker on the box (`None`: no marker), removing any other
    /// box marker there. Markers given by tag are left alone.
    pub fn set_control_marker(
        &mut self,
        is_box: &dyn Fn(&str) -> bool,
        name: &str,
        side: Option<&str>,
    ) {
        for s in &mut self.sides {
            s.control
                .retain(|c| !matches!(c, ControlData::Box(b) if is_box(b)));
        }
        if let Some(side) = side {
            self.side_mut(side)
                .control
                .push(ControlData::Box(name.to_owned()));
        }
    }

    /// The off-board list `which` of `side`.
    pub fn off_board_mut(&mut self, side: &str, which: OffBoard) -> &mut Vec<UnitCount> {
        let s = self.side_mut(side);
        match which {
            OffBoard::Pool => &mut s.pool,
            OffBoard::SetAside => &mut s.set_aside,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is(name: &'static str) -> impl Fn(&str) -> bool {
        move |s: &str| s.eq_ignore_ascii_case(name)
    }

    #[test]
    fn placing_merges_and_removing_to_zero_drops_the_placement() {
        let mut s = ScenarioData::default();
        s.add_placed("union", &is("A"), "A", "Mi", 1);
        s.add_placed("union", &is("A"), "A", "Mi", 2);
        s.add_placed("union", &is("A"), "A", "Vi", 1);
        assert_eq!(s.sides.len(), 1);
        assert_eq!(s.sides[0].places.len(), 1);
        assert_eq!(units_of(&s.sides[0].places[0].units, "mi"), 3);
        s.set_flag("union", &is("a"), "entrenched", true);
        assert!(s.has_flag("union", &is("A"), "entrenched"));
        assert!(!s.has_flag("union", &is("A"), "dug-in"));
        s.add_placed("union", &is("A"), "A", "Mi", -3);
        s.add_placed("union", &is("A"), "A", "Vi", -5);
        assert!(s.sides[0].places.is_empty());
    }

    #[test]
    fn a_control_marker_moves_between_sides_and_tags_stay() {
        let mut s = ScenarioData::default();
        s.side_mut("union")
            .control
            .push(ControlData::Tag("k".into()));
        s.set_control_marker(&is("A"), "A", Some("union"));
        assert_eq!(s.control_marker(&is("A")), Some("union"));
        s.set_control_marker(&is("A"), "A", Some("confederate"));
        assert_eq!(s.control_marker(&is("A")), Some("confederate"));
        assert_eq!(s.sides[0].control, vec![ControlData::Tag("k".into())]);
        s.set_control_marker(&is("A"), "A", None);
        assert_eq!(s.control_marker(&is("A")), None);
    }
}
