//! Reading a scenario file into [`ScenarioData`] and writing it back in a stable order.
//!
//! As for the map ([`crate::map_xml`]), reading uses the core's parser and format
//! structs, the prolog (declaration and comments before `<scenario>`) is kept verbatim,
//! and comments inside the root are counted so a save can warn before dropping them.

use std::fmt::Write as _;

use muster_core::diag::FileId;
use muster_core::format;
use muster_core::xml::{self, de};

use crate::map_xml::{DECLARATION, attr, escape, opt, root_start};
use crate::scenario_data::{ControlData, PlaceData, ScenarioData, SideData, UnitCount};

/// Why a scenario file could not be read into the editor.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioXmlError {
    #[error("{line}:{col}: {message}")]
    Syntax {
        line: u32,
        col: u32,
        message: String,
    },
    #[error("the file's root is <{0}>, not <scenario>")]
    NotAScenario(String),
    #[error("{0}")]
    Format(String),
}

/// A parsed scenario file: its data and what must be kept from its text.
#[derive(Clone, Debug)]
pub struct ScenarioSource {
    pub data: ScenarioData,
    pub prolog: String,
    pub inner_comments: usize,
}

/// Whether `text` is a scenario file (its root element is `<scenario>`).
pub fn is_scenario(text: &str) -> bool {
    xml::parse(FileId(0), text).is_ok_and(|r| r.name == "scenario")
}

/// Parses a scenario file's text.
pub fn read(text: &str) -> Result<ScenarioSource, ScenarioXmlError> {
    let root = xml::parse(FileId(0), text).map_err(|e| ScenarioXmlError::Syntax {
        line: e.pos.line,
        col: e.pos.col,
        message: e.message,
    })?;
    if root.name != "scenario" {
        return Err(ScenarioXmlError::NotAScenario(root.name));
    }
    let raw: format::Scenario = de::from_element(&root).map_err(|e| {
        let at = e
            .pos
            .map(|p| format!("{}:{}: ", p.line, p.col))
            .unwrap_or_default();
        ScenarioXmlError::Format(format!("{at}{}", e.message))
    })?;
    let start = root_start(text);
    Ok(ScenarioSource {
        data: from_format(raw)?,
        prolog: text[..start].to_owned(),
        inner_comments: text[start..].matches("<!--").count(),
    })
}

fn from_format(s: format::Scenario) -> Result<ScenarioData, ScenarioXmlError> {
    let mut sides = Vec::new();
    for side in s.side {
        let list = |o: &[format::OffBoard]| -> Result<Vec<UnitCount>, ScenarioXmlError> {
            let mut all = Vec::new();
            for o in o {
                all.extend(parse_units(&o.units)?);
            }
            Ok(all)
        };
        let mut places = Vec::new();
        for p in &side.place {
            places.push(PlaceData {
                at: p.at.value.clone(),
                units: parse_units(&p.units)?,
                flags: p
                    .flags
                    .as_ref()
                    .map(|f| {
                        f.items(',')
                            .into_iter()
                            .map(|(item, _)| item.to_owned())
                            .collect()
                    })
                    .unwrap_or_default(),
            });
        }
        let control = side
            .control
            .iter()
            .filter_map(|c| match (&c.at, &c.tag) {
                (Some(b), _) => Some(ControlData::Box(b.value.clone())),
                (None, Some(t)) => Some(ControlData::Tag(t.value.clone())),
                (None, None) => None,
            })
            .collect();
        sides.push(SideData {
            id: side.id.value,
            tallies: side
                .tally
                .iter()
                .map(|t| (t.id.value.clone(), t.value.value))
                .collect(),
            places,
            control,
            pool: list(&side.pool)?,
            set_aside: list(&side.set_aside)?,
        });
    }
    Ok(ScenarioData {
        id: s.id.value,
        name: s.name,
        rule: s.rule,
        start: s.start.map(|x| x.value),
        end: s.end.map(|x| x.value),
        setup: s.setup.map(|x| x.value),
        description: s.description.map(|d| d.text),
        sides,
    })
}

/// Reads `2 Vi, 1 Mi` (a missing count means one), as the engine's loader does. Unit
/// type ids are not checked here: the validator reports unknown ones with their line.
fn parse_units(list: &format::Name) -> Result<Vec<UnitCount>, ScenarioXmlError> {
    let mut out = Vec::new();
    for item in list
        .value
        .split(',')
        .map(str::trim)
        .filter(|i| !i.is_empty())
    {
        let (count, unit) = match item.split_once(char::is_whitespace) {
            Some((n, t)) if n.chars().all(|c| c.is_ascii_digit()) => {
                let count = n.parse::<u16>().map_err(|_| {
                    ScenarioXmlError::Format(format!(
                        "{}:{}: '{item}' does not start with a count from 0 to 65535",
                        list.pos.line, list.pos.col
                    ))
                })?;
                (count, t.trim())
            }
            _ => (1, item),
        };
        out.push(UnitCount {
            count,
            unit: unit.to_owned(),
        });
    }
    Ok(out)
}

fn units_text(list: &[UnitCount]) -> String {
    list.iter()
        .map(|u| format!("{} {}", u.count, u.unit))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes a scenario file: `prolog` (or an XML declaration if empty), then the scenario.
pub fn write(s: &ScenarioData, prolog: &str) -> String {
    write_with(s, prolog, true)
}

/// [`write`], leaving out the stated tallies (AHD's army maxima) when `stated` is false
/// (to compile an edited setup whose stated values no longer match, for the live
/// computed ones).
pub fn write_with(s: &ScenarioData, prolog: &str, stated: bool) -> String {
    let mut out = String::new();
    if prolog.trim().is_empty() {
        out.push_str(DECLARATION);
    } else {
        out.push_str(prolog);
    }
    out.push_str("<scenario");
    attr(&mut out, "id", &s.id);
    attr(&mut out, "name", &s.name);
    opt(&mut out, "rule", s.rule.as_deref());
    opt(&mut out, "start", s.start.as_deref());
    opt(&mut out, "end", s.end.as_deref());
    opt(&mut out, "setup", s.setup.as_deref());
    if s.description.is_none() && s.sides.is_empty() {
        out.push_str("/>\n");
        return out;
    }
    out.push_str(">\n");
    if let Some(d) = &s.description {
        let _ = writeln!(out, "  <description>{}</description>", escape(d));
    }
    for side in &s.sides {
        out.push_str("  <side");
        attr(&mut out, "id", &side.id);
        out.push_str(">\n");
        if stated {
            for (id, value) in &side.tallies {
                out.push_str("    <tally");
                attr(&mut out, "id", id);
                attr(&mut out, "value", &value.to_string());
                out.push_str("/>\n");
            }
        }
        for p in &side.places {
            out.push_str("    <place");
            attr(&mut out, "box", &p.at);
            attr(&mut out, "units", &units_text(&p.units));
            if !p.flags.is_empty() {
                attr(&mut out, "flags", &p.flags.join(", "));
            }
            out.push_str("/>\n");
        }
        for c in &side.control {
            out.push_str("    <control");
            match c {
                ControlData::Box(b) => attr(&mut out, "box", b),
                ControlData::Tag(t) => attr(&mut out, "tag", t),
            }
            out.push_str("/>\n");
        }
        for (name, list) in [("pool", &side.pool), ("set-aside", &side.set_aside)] {
            if !list.is_empty() {
                let _ = write!(out, "    <{name}");
                attr(&mut out, "units", &units_text(list));
                out.push_str("/>\n");
            }
        }
        out.push_str("  </side>\n");
    }
    out.push_str("</scenario>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"<?xml version="1.0"?>
<!-- a header -->
<scenario id="s" name="S &amp; T" rule="1.0" start="07/1861" end="06/1862">
  <description>Two &lt;sides&gt;</description>
  <side id="union">
    <tally id="army-maximum" value="34"/>
    <!-- inside -->
    <place box="Washington" units="2 Mi, Vi" flags="entrenched"/>
    <control tag="kentucky"/>
    <control box="Sedalia"/>
    <pool units="1 Mc"/>
    <set-aside units="12 Mi"/>
  </side>
  <side id="confederate">
    <place box="Richmond" units="1 Mi"/>
  </side>
</scenario>
"#;

    #[test]
    fn write_then_read_gives_the_same_data_and_keeps_the_prolog() {
        let src = read(SAMPLE).unwrap();
        assert_eq!(src.prolog, "<?xml version=\"1.0\"?>\n<!-- a header -->\n");
        assert_eq!(src.inner_comments, 1);
        let union = &src.data.sides[0];
        assert_eq!(union.stated("army-maximum"), Some(34));
        assert_eq!(union.places[0].units[1].count, 1);
        assert_eq!(union.places[0].units[1].unit, "Vi");
        assert_eq!(union.control[0], ControlData::Tag("kentucky".into()));
        let text = write(&src.data, &src.prolog);
        let again = read(&text).unwrap();
        assert_eq!(again.data, src.data);
        assert_eq!(write(&again.data, &again.prolog), text);
        assert!(!write_with(&src.data, "", false).contains("<tally"));
    }

    #[test]
    fn a_derived_scenario_is_written_empty() {
        let src = read(r#"<scenario id="x" name="X" setup="1861" end="06/1862"/>"#).unwrap();
        let text = write(&src.data, "");
        assert!(text.ends_with("<scenario id=\"x\" name=\"X\" end=\"06/1862\" setup=\"1861\"/>\n"));
    }

    #[test]
    fn bad_text_is_an_error_not_a_panic() {
        assert!(matches!(
            read("<scenario"),
            Err(ScenarioXmlError::Syntax { .. })
        ));
        assert!(matches!(
            read("<map/>"),
            Err(ScenarioXmlError::NotAScenario(_))
        ));
        let big = read(
            r#"<scenario id="x" name="X"><side id="u"><pool units="99999 Mi"/></side></scenario>"#,
        );
        assert!(matches!(big, Err(ScenarioXmlError::Format(_))), "{big:?}");
    }
}
