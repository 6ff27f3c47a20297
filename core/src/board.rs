//! The map: boxes joined by typed lines (roads, railroads, rivers...).

use serde::Serialize;

use crate::diag::Pos;
use crate::ids::{BoxId, BoxValueId, LineId, LineKindId, SideId};
use crate::names::NameIndex;

/// A kind of transportation line.
#[derive(Clone, Debug, Serialize)]
pub struct LineKind {
    pub id: String,
    pub name: String,
    /// Lines of this kind flow one way and know their downstream end.
    pub flows: bool,
    pub color: Option<String>,
    #[serde(skip)]
    pub pos: Pos,
}

/// A box: a place on the map that units occupy.
#[derive(Clone, Debug, Serialize)]
pub struct MapBox {
    pub name: String,
    pub aliases: Vec<String>,
    /// The side whose colour the box has (its original owner); `None` if neutral.
    pub owner: Option<SideId>,
    pub tags: Vec<String>,
    pub state: Option<String>,
    pub x: i32,
    pub y: i32,
    /// The box's values, indexed by [`BoxValueId`] then [`SideId`]; 0 if none.
    pub values: Vec<Vec<u16>>,
    #[serde(skip)]
    pub pos: Pos,
}

impl MapBox {
    /// The box's `value` for `side` (0 if none).
    pub fn value(&self, value: BoxValueId, side: SideId) -> u16 {
        self.values
            .get(value.index())
            .and_then(|per_side| per_side.get(side.index()))
            .copied()
            .unwrap_or(0)
    }

    /// Every value of the box for `side`, added up (what computer players start a box's
    /// worth from).
    pub fn value_sum(&self, side: SideId) -> u32 {
        self.values
            .iter()
            .filter_map(|per_side| per_side.get(side.index()))
            .map(|&v| u32::from(v))
            .sum()
    }

    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }
}

/// A line joining two boxes.
#[derive(Clone, Debug, Serialize)]
pub struct Line {
    pub a: BoxId,
    pub b: BoxId,
    pub kind: LineKindId,
    pub name: Option<String>,
    /// For a flowing kind: the end the line flows toward.
    pub downstream: Option<BoxId>,
    /// Whether entering `a` (index 0) or `b` (index 1) along this line crosses that
    /// box's water border.
    pub water_border: [bool; 2],
    #[serde(skip)]
    pub pos: Pos,
}

impl Line {
    /// The box at the other end, if `from` is an end of this line.
    pub fn other(&self, from: BoxId) -> Option<BoxId> {
        if from == self.a {
            Some(self.b)
        } else if from == self.b {
            Some(self.a)
        } else {
            None
        }
    }

    pub fn joins(&self, x: BoxId, y: BoxId) -> bool {
        (self.a == x && self.b == y) || (self.a == y && self.b == x)
    }

    /// Whether a unit entering `into` along this line crosses its water border.
    pub fn crosses_water_border_into(&self, into: BoxId) -> bool {
        (into == self.a && self.water_border[0]) || (into == self.b && self.water_border[1])
    }

    /// For a flowing line: whether going to `to` is going downstream.
    pub fn is_downstream_to(&self, to: BoxId) -> Option<bool> {
        self.downstream.map(|d| d == to)
    }
}

/// A number boxes hold for each side (`<box-value id name>`; AHD: recruitment value).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoxValueDef {
    pub id: String,
    pub name: String,
}

/// A box tag the module names and marks (`<tag id name mark>`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TagDef {
    pub id: String,
    pub name: String,
    pub mark: Option<crate::format::TagMark>,
}

/// A module-relative image under the map, placed at `(x, y)` in map units.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Background {
    /// Path relative to the module folder, checked to exist when loading.
    pub image: String,
    pub x: f32,
    pub y: f32,
    pub scale: f32,
    pub opacity: f32,
}

/// The whole map, with adjacency lists for fast movement generation.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Board {
    pub width: u32,
    pub height: u32,
    /// Display colour of boxes no side owns, `#rrggbb`.
    pub neutral_color: Option<String>,
    /// A scan of the board drawn under the map by the editor; display only (left out
    /// of serialized boards without one, so their dumps are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background: Option<Background>,
    /// The vector map drawn under the boxes (`<backdrop>`); display only, shared
    /// because it is large and boards are cloned.
    #[serde(skip)]
    pub backdrop: Option<std::sync::Arc<crate::backdrop::Backdrop>>,
    pub kinds: Vec<LineKind>,
    /// The tags the module declares (boxes may carry undeclared ones too).
    pub tags: Vec<TagDef>,
    /// The values boxes hold, indexed by [`BoxValueId`].
    pub values: Vec<BoxValueDef>,
    #[serde(skip)]
    pub(crate) value_names: NameIndex,
    pub boxes: Vec<MapBox>,
    pub lines: Vec<Line>,
    /// `adjacency[adj_start[b]..adj_start[b + 1]]` are the lines at box `b`.
    #[serde(skip)]
    adj_start: Vec<u32>,
    #[serde(skip)]
    adjacency: Vec<(BoxId, LineId)>,
    #[serde(skip)]
    names: NameIndex,
    #[serde(skip)]
    kind_names: NameIndex,
}

impl Board {
    /// The declared tag `id` (ignoring case).
    pub fn tag(&self, id: &str) -> Option<&TagDef> {
        self.tags.iter().find(|t| t.id.eq_ignore_ascii_case(id))
    }

    /// How many boxes carry the tag `id`.
    pub fn tagged(&self, id: &str) -> usize {
        self.boxes.iter().filter(|b| b.has_tag(id)).count()
    }

    pub(crate) fn new(
        width: u32,
        height: u32,
        kinds: Vec<LineKind>,
        boxes: Vec<MapBox>,
        lines: Vec<Line>,
        names: NameIndex,
        kind_names: NameIndex,
    ) -> Self {
        let mut degree = vec![0u32; boxes.len() + 1];
        for line in &lines {
            degree[line.a.index()] += 1;
            degree[line.b.index()] += 1;
        }
        let mut adj_start = Vec::with_capacity(boxes.len() + 1);
        let mut total = 0;
        for d in &degree[..boxes.len()] {
            adj_start.push(total);
            total += d;
        }
        adj_start.push(total);
        let mut fill = adj_start.clone();
        let mut adjacency = vec![(BoxId(0), LineId(0)); total as usize];
        for (i, line) in lines.iter().enumerate() {
            let id = LineId(u16::try_from(i).unwrap_or(u16::MAX));
            for (from, to) in [(line.a, line.b), (line.b, line.a)] {
                let slot = &mut fill[from.index()];
                adjacency[*slot as usize] = (to, id);
                *slot += 1;
            }
        }
        Self {
            width,
            height,
            neutral_color: None,
            background: None,
            backdrop: None,
            kinds,
            tags: Vec::new(),
            values: Vec::new(),
            value_names: NameIndex::default(),
            boxes,
            lines,
            adj_start,
            adjacency,
            names,
            kind_names,
        }
    }

    pub fn get(&self, id: BoxId) -> &MapBox {
        &self.boxes[id.index()]
    }

    pub fn line(&self, id: LineId) -> &Line {
        &self.lines[id.index()]
    }

    pub fn box_ids(&self) -> impl Iterator<Item = BoxId> + '_ {
        (0..self.boxes.len()).filter_map(BoxId::from_index)
    }

    /// Finds a box by name or alias, ignoring case.
    pub fn find(&self, name: &str) -> Option<BoxId> {
        self.names.get(name).and_then(BoxId::from_index)
    }

    /// `did you mean 'X'?` for an unknown box name.
    pub fn hint(&self, name: &str) -> Option<String> {
        self.names.hint(name)
    }

    pub fn find_kind(&self, id: &str) -> Option<LineKindId> {
        self.kind_names.get(id).and_then(LineKindId::from_index)
    }

    /// The neighbours of a box with the line to each (one entry per line).
    pub fn neighbours(&self, id: BoxId) -> &[(BoxId, LineId)] {
        let i = id.index();
        match (self.adj_start.get(i), self.adj_start.get(i + 1)) {
            (Some(&s), Some(&e)) => &self.adjacency[s as usize..e as usize],
            _ => &[],
        }
    }

    /// The lines joining two boxes (there may be one per kind).
    pub fn lines_between(&self, x: BoxId, y: BoxId) -> impl Iterator<Item = LineId> + '_ {
        self.neighbours(x)
            .iter()
            .filter(move |(to, _)| *to == y)
            .map(|&(_, l)| l)
    }

    /// A box value by id, ignoring case.
    pub fn find_value(&self, id: &str) -> Option<BoxValueId> {
        self.value_names.get(id).and_then(BoxValueId::from_index)
    }

    /// The sum of `side`'s `value` over the boxes it controls (a tally: AHD's army
    /// maximum, 7.1).
    pub fn total(&self, value: BoxValueId, control: &[Option<SideId>], side: SideId) -> u32 {
        self.boxes
            .iter()
            .zip(control)
            .filter(|(_, c)| **c == Some(side))
            .map(|(b, _)| u32::from(b.value(value, side)))
            .sum()
    }
}
