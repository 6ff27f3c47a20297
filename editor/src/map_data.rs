//! The editable map: boxes, lines and line kinds as plain values, by name.
//!
//! The editor works on these rather than on the compiled [`muster_core::Module`] because a
//! map being edited is often invalid (a duplicate name, a line to a deleted box), and the
//! editor must still show and save it. The validator reads the XML written from them.

/// A kind of line (road, railroad, river...), as declared in the map file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindData {
    pub id: String,
    pub name: String,
    pub flows: bool,
    /// Display colour, `#rrggbb`.
    pub color: Option<String>,
}

/// A box tag the map declares, with a name and maybe a mark (`<tag id name mark>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagData {
    pub id: String,
    pub name: String,
    pub mark: Option<muster_core::format::TagMark>,
}

/// A box value the map declares (`<box-value id name>`; AHD: recruitment value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueDefData {
    pub id: String,
    pub name: String,
}

/// One value of a box for one side (`<value id side amount>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueData {
    pub id: String,
    pub side: String,
    pub amount: u16,
}

/// A box as written in the map file.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct BoxData {
    pub name: String,
    /// `;`-separated other spellings, as written.
    pub aliases: Option<String>,
    /// Side id of the box's colour; `None` for a neutral box.
    pub owner: Option<String>,
    /// Space-separated tags, as written.
    pub tags: Option<String>,
    pub state: Option<String>,
    pub x: i32,
    pub y: i32,
    pub values: Vec<ValueData>,
}

impl BoxData {
    /// The box's value `id` for a side id (0 if none).
    pub fn value(&self, id: &str, side: &str) -> u16 {
        self.values
            .iter()
            .find(|r| r.id.eq_ignore_ascii_case(id) && r.side.eq_ignore_ascii_case(side))
            .map_or(0, |r| r.amount)
    }

    /// Sets a side's value `id`; 0 removes the entry.
    pub fn set_value(&mut self, id: &str, side: &str, amount: u16) {
        let at = self
            .values
            .iter()
            .position(|r| r.id.eq_ignore_ascii_case(id) && r.side.eq_ignore_ascii_case(side));
        match (at, amount) {
            (Some(i), 0) => {
                self.values.remove(i);
            }
            (Some(i), v) => self.values[i].amount = v,
            (None, 0) => {}
            (None, v) => self.values.push(ValueData {
                id: id.to_owned(),
                side: side.to_owned(),
                amount: v,
            }),
        }
    }

    /// Whether the box carries `tag`.
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags
            .as_deref()
            .is_some_and(|t| t.split_whitespace().any(|x| x == tag))
    }

    /// Whether `name` is this box's name or one of its aliases, ignoring case.
    pub fn is_called(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
            || self
                .aliases
                .iter()
                .flat_map(|a| a.split(';'))
                .any(|a| a.trim().eq_ignore_ascii_case(name))
    }
}

/// A line joining two boxes, by their names.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LineData {
    pub a: String,
    pub b: String,
    pub kind: String,
    pub name: Option<String>,
    pub downstream: Option<String>,
    /// `;`-separated box names, as written.
    pub water_border: Option<String>,
}

impl LineData {
    /// Whether this line ends at the box called `name` (by its name, not an alias).
    pub fn touches(&self, name: &str) -> bool {
        self.a.eq_ignore_ascii_case(name) || self.b.eq_ignore_ascii_case(name)
    }
}

/// `<background>`: a module-relative image drawn under the map. Attributes left out
/// stay `None` so a save writes back only what the file had.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct BackgroundData {
    pub image: String,
    pub x: Option<f32>,
    pub y: Option<f32>,
    pub scale: Option<f32>,
    pub opacity: Option<f32>,
}

/// The numbers are finite (non-finite ones are dropped when read), so equality is total.
impl Eq for BackgroundData {}

impl BackgroundData {
    /// Scale with its default (1).
    pub fn scale(&self) -> f32 {
        self.scale.unwrap_or(1.0)
    }

    /// Opacity with its default (0.5), clamped to 0..1.
    pub fn opacity(&self) -> f32 {
        self.opacity.unwrap_or(0.5).clamp(0.0, 1.0)
    }
}

/// The whole map file's content.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct MapData {
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// Display colour of boxes no side owns, `#rrggbb`.
    pub neutral_color: Option<String>,
    /// A scan of the board drawn under the map.
    pub background: Option<BackgroundData>,
    /// `<backdrop file>`: the module's vector map file, kept so a save writes it back
    /// (the editor draws the compiled backdrop, `muster_core::backdrop`).
    pub backdrop: Option<String>,
    pub kinds: Vec<KindData>,
    /// The box tags the map declares.
    pub tags: Vec<TagData>,
    /// The box values the map declares.
    pub values: Vec<ValueDefData>,
    pub boxes: Vec<BoxData>,
    pub lines: Vec<LineData>,
}

impl MapData {
    /// The index of the box called `name` (name or alias, ignoring case).
    pub fn find_box(&self, name: &str) -> Option<usize> {
        self.boxes
            .iter()
            .position(|b| b.name.eq_ignore_ascii_case(name))
            .or_else(|| self.boxes.iter().position(|b| b.is_called(name)))
    }

    pub fn find_kind(&self, id: &str) -> Option<&KindData> {
        self.kinds.iter().find(|k| k.id.eq_ignore_ascii_case(id))
    }

    /// A name no box has yet, starting from `base`.
    pub fn fresh_box_name(&self, base: &str) -> String {
        let mut n = 1;
        loop {
            let name = if n == 1 {
                base.to_owned()
            } else {
                format!("{base} {n}")
            };
            if self.find_box(&name).is_none() {
                return name;
            }
            n += 1;
        }
    }
}
