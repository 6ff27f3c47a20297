//! The turn track and the sequence of a player turn.

use serde::Serialize;

use crate::diag::Pos;
use crate::format::{Procedure, Words};
use crate::ids::{BoxValueId, ResourceId, SideId, TurnId};

/// One game turn: a month or a span of months of one year.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Turn {
    /// `07/1861`, or `11-12/1861` for a two-month turn.
    pub label: String,
    pub year: u16,
    pub first_month: u8,
    pub last_month: u8,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Calendar {
    /// Every turn of the track, the first at index 0.
    pub turns: Vec<Turn>,
    /// Last turn of a standard game.
    pub end: TurnId,
    /// Sides in playing order within a game turn.
    pub sides: Vec<SideId>,
    /// Steps of each player turn, in order.
    pub steps: Vec<Step>,
    /// Steps played once a game turn after every player turn (e.g. a quarterly step).
    pub turn_end: Vec<Step>,
    /// The module's words for the procedures' decisions.
    pub words: Words,
}

/// One step of a turn: an engine procedure, configured.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    pub id: String,
    pub name: String,
    pub procedure: Procedure,
    /// The resource the procedure's decisions cost.
    pub spends: Option<ResourceId>,
    /// Months in which the step is played (a bit per month, bit 1 = January); `None`
    /// means every turn.
    pub months: Option<u16>,
    /// Times played in a row, at least 1.
    pub repeat: u8,
    /// `move`: the longest path searched, in lines (1 to 32).
    pub max_path: u8,
    /// `battles`: the most rounds a battle lasts before it ends undecided (`None`: as
    /// many as it takes).
    pub max_rounds: Option<u8>,
    /// `battles`: dice per shot, or losses the rules compute.
    pub resolve: crate::format::Resolve,
    /// `move`: a box or one piece a decision (ACTIVATE).
    pub activate: crate::format::Activate,
    /// `move`: battles fought inside the step (IMMEDIATE).
    pub immediate: bool,
    /// `move` by piece: the rules' references for refused activations and legs.
    pub activate_rule: String,
    pub points_rule: String,
    /// `battles`: how a battle by dice is fought (all AHD's by default).
    pub battle: BattleOptions,
    /// `place`: the box value a box must have for the side placing (`None`: any box);
    /// `may_place` is asked only of those.
    pub place_in: Option<BoxValueId>,
    /// `place`: pieces come from the stock once the pool has none of the type.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub place_stock: bool,
    /// Who decides in a turn-end step.
    pub side: Option<SideId>,
    #[serde(skip)]
    pub pos: Pos,
}

/// A `battles` step's procedure options (docs/module-format.md, "Calendar"): the
/// defaults are AHD's battle, so a module that sets none plays as before.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BattleOptions {
    pub fire: crate::format::Fire,
    pub casualties: crate::format::Casualties,
    pub retreat: crate::format::Retreaters,
    /// The defender is never asked `may_withdraw` before round 1.
    pub no_withdrawal: bool,
    /// No side is ever asked to reinforce (no `Reinforce` stage).
    pub no_reinforcement: bool,
}

impl BattleOptions {
    /// Whether `attacker`'s or the defender's side (`is_attacker`) may retreat.
    pub fn may_retreat(&self, is_attacker: bool) -> bool {
        use crate::format::Retreaters;
        match self.retreat {
            Retreaters::Both => true,
            Retreaters::Attacker => is_attacker,
            Retreaters::Defender => !is_attacker,
            Retreaters::None => false,
        }
    }
}

impl Step {
    /// Whether the step is played in `turn`.
    pub fn plays_in(&self, turn: &Turn) -> bool {
        self.months
            .is_none_or(|mask| (turn.first_month..=turn.last_month).any(|m| mask & (1 << m) != 0))
    }
}

impl Words {
    /// The module's word for `pick(self)`, or the engine's `default`, with each
    /// `{key}` replaced by its value.
    pub fn say(
        &self,
        pick: impl Fn(&Words) -> &Option<String>,
        default: &str,
        fill: &[(&str, &str)],
    ) -> String {
        let mut out = pick(self).as_deref().unwrap_or(default).to_string();
        for (k, v) in fill {
            out = out.replace(&format!("{{{k}}}"), v);
        }
        out
    }
}

impl Calendar {
    pub fn turn(&self, id: TurnId) -> &Turn {
        &self.turns[id.index()]
    }

    /// Finds a turn by label. Accepts `7/1861`, `07/1861`, `11-12/1861`, `11/12/1861`
    /// and any single month of a two-month turn (`12/1861`).
    pub fn find(&self, label: &str) -> Option<TurnId> {
        let (month, year) = parse_label(label)?;
        self.turns
            .iter()
            .position(|t| t.year == year && (t.first_month..=t.last_month).contains(&month))
            .and_then(TurnId::from_index)
    }

    /// A hint listing the track's range, for an unknown label.
    pub fn hint(&self) -> Option<String> {
        let first = self.turns.first()?;
        let last = self.turns.last()?;
        Some(format!(
            "turns run from {} to {}, written MM/YYYY",
            first.label, last.label
        ))
    }
}

/// `(first month, year)` of a label; `None` if it is not one.
fn parse_label(label: &str) -> Option<(u8, u16)> {
    let label = label.trim();
    let (months, year) = label.rsplit_once('/')?;
    let year: u16 = year.trim().parse().ok()?;
    let first = months.split(['-', '/']).next()?.trim().parse::<u8>().ok()?;
    (1..=12).contains(&first).then_some((first, year))
}

/// Parses a year's spans, e.g. `01-02 03 ... 11-12`, into `(first, last)` months.
pub(crate) fn parse_spans(text: &str) -> Result<Vec<(u8, u8)>, String> {
    let mut spans = Vec::new();
    let mut next = 1u8;
    for part in text.split_whitespace() {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a, b),
            None => (part, part),
        };
        let (Ok(a), Ok(b)) = (a.parse::<u8>(), b.parse::<u8>()) else {
            return Err(format!(
                "'{part}' is not a month or a span of months like 11-12"
            ));
        };
        if a != next || b < a || b > 12 {
            return Err(format!(
                "'{part}' does not follow on: the spans must cover months 1 to 12 in order, next is {next:02}"
            ));
        }
        spans.push((a, b));
        next = b + 1;
    }
    if next != 13 {
        return Err(format!(
            "the spans stop before December (next is {next:02})"
        ));
    }
    Ok(spans)
}

/// Builds the track from `start` to `last` (inclusive) over the year's spans.
pub(crate) fn build_turns(
    spans: &[(u8, u8)],
    start: &str,
    last: &str,
) -> Result<Vec<Turn>, String> {
    let (m0, mut year) =
        parse_label(start).ok_or_else(|| format!("'{start}' is not a turn like 07/1861"))?;
    let (m1, y1) =
        parse_label(last).ok_or_else(|| format!("'{last}' is not a turn like 06/1865"))?;
    let mut i = spans
        .iter()
        .position(|&(a, b)| (a..=b).contains(&m0))
        .ok_or_else(|| format!("no turn of the year holds month {m0:02}"))?;
    let mut turns = Vec::new();
    loop {
        let (a, b) = spans[i];
        let label = if a == b {
            format!("{a:02}/{year}")
        } else {
            format!("{a:02}-{b:02}/{year}")
        };
        turns.push(Turn {
            label,
            year,
            first_month: a,
            last_month: b,
        });
        if year == y1 && (a..=b).contains(&m1) {
            return Ok(turns);
        }
        if year > y1 || turns.len() > usize::from(u16::MAX) {
            return Err(format!("the track never reaches {last} from {start}"));
        }
        i += 1;
        if i == spans.len() {
            i = 0;
            year = year
                .checked_add(1)
                .ok_or_else(|| format!("the track never reaches {last} from {start}"))?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_the_ahd_track_shape() {
        let spans = parse_spans("01-02 03 04 05 06 07 08 09 10 11-12").unwrap();
        let turns = build_turns(&spans, "07/1861", "11-12/1865").unwrap();
        assert_eq!(turns.len(), 45);
        assert_eq!(turns[0].label, "07/1861");
        assert_eq!(turns[4].label, "11-12/1861");
        assert_eq!(turns[5].label, "01-02/1862");
        assert_eq!(turns[39].label, "06/1865");
        assert!(parse_spans("01 02 04").is_err());
        assert!(parse_spans("01-02 02 03 04 05 06 07 08 09 10 11 12").is_err());
    }
}
