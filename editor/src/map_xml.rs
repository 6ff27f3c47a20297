//! Reading a map file into [`MapData`] and writing it back in a stable order.
//!
//! Reading goes through the core's own XML parser and format structs, so the editor
//! accepts exactly what the engine accepts. Writing emits kinds, boxes and lines in the
//! document's order with attributes in a fixed order, so load → save → load is lossless
//! and a save without edits changes nothing but layout. The prolog (the XML declaration
//! and the comments before the root) is kept verbatim; a comment inside the root is kept
//! before the item it stood before (found again by its key: a box's name, a line's ends
//! and kind), or at the end when that item is gone ([`Comment`]).

use std::fmt::Write as _;

use muster_core::diag::FileId;
use muster_core::format;
use muster_core::xml::{self, de};

use crate::command::Selection;
use crate::map_data::{
    BackgroundData, BoxData, KindData, LineData, MapData, TagData, ValueData, ValueDefData,
};

/// Why a map file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MapXmlError {
    #[error("{line}:{col}: {message}")]
    Syntax {
        line: u32,
        col: u32,
        message: String,
    },
    #[error("the file's root is <{0}>, not <map>")]
    NotAMap(String),
    #[error("{0}")]
    Format(String),
}

/// A parsed map file: its data and what must be kept from its text.
#[derive(Clone, Debug)]
pub struct MapSource {
    pub data: MapData,
    /// Everything before the root element, written back unchanged.
    pub prolog: String,
    /// Comments inside the root element that a save would drop: none since comments
    /// are kept ([`MapSource::comments`]); kept for the callers that warn.
    pub inner_comments: usize,
    /// The comments inside the root element, each with the item it stood before.
    pub comments: Vec<Comment>,
}

/// The item a comment inside `<map>` stood before, by its key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Anchor {
    Background,
    Backdrop,
    Kind(String),
    Tag(String),
    Value(String),
    Box(String),
    /// A line's two ends and kind.
    Line(String, String, String),
    /// Before `</map>`, or before an element the editor does not keep.
    End,
}

/// A comment inside `<map>`: its text as written (`<!-- ... -->`) and where it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    pub before: Anchor,
    pub text: String,
}

/// Parses a map file's text.
pub fn read(text: &str) -> Result<MapSource, MapXmlError> {
    let root = xml::parse(FileId(0), text).map_err(|e| MapXmlError::Syntax {
        line: e.pos.line,
        col: e.pos.col,
        message: e.message,
    })?;
    if root.name != "map" {
        return Err(MapXmlError::NotAMap(root.name));
    }
    let map: format::Map = de::from_element(&root).map_err(|e| {
        let at = e
            .pos
            .map(|p| format!("{}:{}: ", p.line, p.col))
            .unwrap_or_default();
        MapXmlError::Format(format!("{at}{}", e.message))
    })?;
    let start = root_start(text);
    Ok(MapSource {
        data: from_format(map),
        prolog: text[..start].to_owned(),
        inner_comments: 0,
        comments: inner_comments(text, start),
    })
}

/// The comments inside the root element starting at `start`, each anchored to the
/// root's child it stands before (or, inside a child, to that child).
fn inner_comments(text: &str, start: usize) -> Vec<Comment> {
    let mut out = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let mut current = Anchor::End;
    let mut i = start;
    while let Some(rel) = text[i..].find('<') {
        let at = i + rel;
        let rest = &text[at..];
        if rest.starts_with("<!--") {
            let Some(end) = rest.find("-->") else { break };
            let comment = rest[..end + 3].to_string();
            if depth >= 2 {
                out.push(Comment {
                    before: current.clone(),
                    text: comment,
                });
            } else if depth == 1 {
                pending.push(comment);
            }
            i = at + end + 3;
            continue;
        }
        let skip = [("<?", "?>"), ("<![CDATA[", "]]>"), ("<!", ">")]
            .iter()
            .find(|(open, _)| rest.starts_with(open))
            .map(|(_, close)| *close);
        if let Some(close) = skip {
            let Some(end) = rest.find(close) else { break };
            i = at + end + close.len();
            continue;
        }
        let Some(end) = tag_end(rest) else { break };
        let tag = &rest[1..end];
        i = at + end + 1;
        if tag.starts_with('/') {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                break;
            }
            continue;
        }
        let self_closing = tag.ends_with('/');
        if depth == 1 {
            current = anchor(tag.trim_end_matches('/'));
            out.extend(pending.drain(..).map(|text| Comment {
                before: current.clone(),
                text,
            }));
        }
        if !self_closing {
            depth += 1;
        }
    }
    out.extend(pending.into_iter().map(|text| Comment {
        before: Anchor::End,
        text,
    }));
    out
}

/// The offset of the `>` closing the tag `rest` starts with, quotes respected.
fn tag_end(rest: &str) -> Option<usize> {
    let mut quote = None;
    for (i, c) in rest.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '>') => return Some(i),
            _ => {}
        }
    }
    None
}

/// The item a start tag's text (`box name="A" x="1"`) is, by its key.
fn anchor(tag: &str) -> Anchor {
    let name_end = tag.find(|c: char| c.is_whitespace()).unwrap_or(tag.len());
    let attrs = tag_attrs(&tag[name_end..]);
    let get = |k: &str| {
        attrs
            .iter()
            .find(|(a, _)| a == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    match &tag[..name_end] {
        "background" => Anchor::Background,
        "backdrop" => Anchor::Backdrop,
        "line-kind" => Anchor::Kind(get("id")),
        "tag" => Anchor::Tag(get("id")),
        "box-value" => Anchor::Value(get("id")),
        "box" => Anchor::Box(get("name")),
        "line" => Anchor::Line(get("a"), get("b"), get("kind")),
        _ => Anchor::End,
    }
}

/// `key="value"` pairs of a tag's text after its name, values unescaped.
fn tag_attrs(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        let Some(eq) = rest.find('=') else { break };
        let key = rest[..eq].trim().to_string();
        let after = rest[eq + 1..].trim_start();
        let Some(q) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            break;
        };
        let Some(close) = after[1..].find(q) else {
            break;
        };
        out.push((key, unescape(&after[1..1 + close])));
        rest = &after[close + 2..];
    }
    out
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#10;", "\n")
        .replace("&#9;", "\t")
        .replace("&amp;", "&")
}

/// Writes the comments anchored where `here` holds, once each.
fn put_comments(
    out: &mut String,
    comments: &[Comment],
    used: &mut [bool],
    here: impl Fn(&Anchor) -> bool,
) {
    for (c, done) in comments.iter().zip(used.iter_mut()) {
        if !*done && here(&c.before) {
            out.push_str("  ");
            out.push_str(&c.text);
            out.push('\n');
            *done = true;
        }
    }
}

fn from_format(map: format::Map) -> MapData {
    MapData {
        width: map.width,
        height: map.height,
        neutral_color: map.neutral_color,
        background: map.background.map(|b| {
            let finite = |v: Option<f32>| v.filter(|v| v.is_finite());
            BackgroundData {
                image: b.image.value,
                x: finite(b.x),
                y: finite(b.y),
                scale: finite(b.scale),
                opacity: finite(b.opacity),
            }
        }),
        backdrop: map.backdrop.map(|b| b.file.value),
        kinds: map
            .line_kind
            .into_iter()
            .map(|k| KindData {
                id: k.id.value,
                name: k.name,
                flows: k.flows,
                color: k.color,
            })
            .collect(),
        values: map
            .box_value
            .into_iter()
            .map(|v| ValueDefData {
                id: v.id.value,
                name: v.name,
            })
            .collect(),
        tags: map
            .tag
            .into_iter()
            .map(|t| TagData {
                id: t.id.value,
                name: t.name,
                mark: t.mark,
            })
            .collect(),
        boxes: map
            .boxes
            .into_iter()
            .map(|b| BoxData {
                name: b.name.value,
                aliases: b.aliases.map(|a| a.value),
                owner: b.owner.map(|o| o.value),
                tags: b.tags,
                state: b.state,
                x: b.x,
                y: b.y,
                values: b
                    .value
                    .into_iter()
                    .map(|v| ValueData {
                        id: v.id.value,
                        side: v.side.value,
                        amount: v.amount,
                    })
                    .collect(),
            })
            .collect(),
        lines: map
            .line
            .into_iter()
            .map(|l| LineData {
                a: l.a.value,
                b: l.b.value,
                kind: l.kind.value,
                name: l.name,
                downstream: l.downstream.map(|d| d.value),
                water_border: l.water_border.map(|w| w.value),
            })
            .collect(),
    }
}

/// Byte offset of the root element: after the declaration, comments, doctype and space.
pub(crate) fn root_start(text: &str) -> usize {
    let mut at = 0;
    loop {
        let rest = &text[at..];
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        let close = if trimmed.starts_with("<?") {
            "?>"
        } else if trimmed.starts_with("<!--") {
            "-->"
        } else if trimmed.starts_with("<!") {
            ">"
        } else {
            return at;
        };
        match trimmed.find(close) {
            Some(end) => at += end + close.len(),
            None => return at,
        }
    }
}

pub(crate) const DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

/// Writes a map file: `prolog` (or an XML declaration if empty), then the map.
pub fn write(map: &MapData, prolog: &str) -> String {
    write_spans(map, prolog).0
}

/// [`write`], with the comments inside the root put back.
pub fn write_kept(map: &MapData, prolog: &str, comments: &[Comment]) -> String {
    write_spans_kept(map, prolog, comments).0
}

/// The text lines (1-based, inclusive) one box or line of the map occupies in the file
/// [`write`] produces: the engine's diagnostics name such lines, and the validation
/// panel turns them back into the object to select.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub first: u32,
    pub last: u32,
    pub object: Selection,
}

/// [`write`], with where each box and line was written.
pub fn write_spans(map: &MapData, prolog: &str) -> (String, Vec<Span>) {
    write_spans_kept(map, prolog, &[])
}

/// [`write_spans`], with the comments inside the root put back: each before the item
/// it stood before, found by its key (names without case); those whose item is gone,
/// and those that stood last, before `</map>`.
pub fn write_spans_kept(map: &MapData, prolog: &str, comments: &[Comment]) -> (String, Vec<Span>) {
    let mut used = vec![false; comments.len()];
    let same = |a: &str, b: &str| a.trim().eq_ignore_ascii_case(b.trim());
    let mut spans = Vec::new();
    let mut out = String::new();
    if prolog.trim().is_empty() {
        out.push_str(DECLARATION);
    } else {
        out.push_str(prolog);
    }
    out.push_str("<map");
    if let Some(w) = map.width {
        attr(&mut out, "width", &w.to_string());
    }
    if let Some(h) = map.height {
        attr(&mut out, "height", &h.to_string());
    }
    opt(&mut out, "neutral-color", map.neutral_color.as_deref());
    out.push_str(">\n");
    if let Some(bg) = &map.background {
        put_comments(&mut out, comments, &mut used, |a| *a == Anchor::Background);
        out.push_str("  <background");
        attr(&mut out, "image", &bg.image);
        for (name, v) in [
            ("x", bg.x),
            ("y", bg.y),
            ("scale", bg.scale),
            ("opacity", bg.opacity),
        ] {
            if let Some(v) = v {
                attr(&mut out, name, &v.to_string());
            }
        }
        out.push_str("/>\n");
    }
    if let Some(file) = &map.backdrop {
        put_comments(&mut out, comments, &mut used, |a| *a == Anchor::Backdrop);
        out.push_str("  <backdrop");
        attr(&mut out, "file", file);
        out.push_str("/>\n");
    }
    if map.background.is_some() || map.backdrop.is_some() {
        out.push('\n');
    }
    for k in &map.kinds {
        put_comments(
            &mut out,
            comments,
            &mut used,
            |a| matches!(a, Anchor::Kind(id) if same(id, &k.id)),
        );
        out.push_str("  <line-kind");
        attr(&mut out, "id", &k.id);
        attr(&mut out, "name", &k.name);
        if k.flows {
            attr(&mut out, "flows", "true");
        }
        opt(&mut out, "color", k.color.as_deref());
        out.push_str("/>\n");
    }
    for t in &map.tags {
        put_comments(
            &mut out,
            comments,
            &mut used,
            |a| matches!(a, Anchor::Tag(id) if same(id, &t.id)),
        );
        out.push_str("  <tag");
        attr(&mut out, "id", &t.id);
        attr(&mut out, "name", &t.name);
        if let Some(mark) = t.mark {
            attr(&mut out, "mark", mark.id());
        }
        out.push_str("/>\n");
    }
    for v in &map.values {
        put_comments(
            &mut out,
            comments,
            &mut used,
            |a| matches!(a, Anchor::Value(id) if same(id, &v.id)),
        );
        out.push_str("  <box-value");
        attr(&mut out, "id", &v.id);
        attr(&mut out, "name", &v.name);
        out.push_str("/>\n");
    }
    if !map.kinds.is_empty() || !map.tags.is_empty() || !map.values.is_empty() {
        out.push('\n');
    }
    // The 1-based number of the line the next text starts on, counted as text is added.
    let newlines = |text: &str| text.bytes().filter(|&c| c == b'\n').count() as u32;
    let mut line = newlines(&out) + 1;
    for (i, b) in map.boxes.iter().enumerate() {
        let before = out.len();
        put_comments(
            &mut out,
            comments,
            &mut used,
            |a| matches!(a, Anchor::Box(name) if same(name, &b.name)),
        );
        line += newlines(&out[before..]);
        let start = out.len();
        write_box(&mut out, b);
        let first = line;
        line += newlines(&out[start..]);
        spans.push(Span {
            first,
            last: line - 1,
            object: Selection::Box(i),
        });
    }
    if !map.boxes.is_empty() {
        out.push('\n');
        line += 1;
    }
    for (i, l) in map.lines.iter().enumerate() {
        let before = out.len();
        put_comments(&mut out, comments, &mut used, |a| {
            matches!(a, Anchor::Line(x, y, kind)
                if same(kind, &l.kind)
                    && ((same(x, &l.a) && same(y, &l.b)) || (same(x, &l.b) && same(y, &l.a))))
        });
        line += newlines(&out[before..]);
        let start = out.len();
        out.push_str("  <line");
        attr(&mut out, "a", &l.a);
        attr(&mut out, "b", &l.b);
        attr(&mut out, "kind", &l.kind);
        opt(&mut out, "name", l.name.as_deref());
        opt(&mut out, "downstream", l.downstream.as_deref());
        opt(&mut out, "water-border", l.water_border.as_deref());
        out.push_str("/>\n");
        let first = line;
        line += newlines(&out[start..]);
        spans.push(Span {
            first,
            last: line - 1,
            object: Selection::Line(i),
        });
    }
    put_comments(&mut out, comments, &mut used, |_| true);
    out.push_str("</map>\n");
    (out, spans)
}

fn write_box(out: &mut String, b: &BoxData) {
    out.push_str("  <box");
    attr(out, "name", &b.name);
    opt(out, "aliases", b.aliases.as_deref());
    opt(out, "owner", b.owner.as_deref());
    opt(out, "tags", b.tags.as_deref());
    opt(out, "state", b.state.as_deref());
    attr(out, "x", &b.x.to_string());
    attr(out, "y", &b.y.to_string());
    if b.values.is_empty() {
        out.push_str("/>\n");
        return;
    }
    out.push_str(">\n");
    for v in &b.values {
        out.push_str("    <value");
        attr(out, "id", &v.id);
        attr(out, "side", &v.side);
        attr(out, "amount", &v.amount.to_string());
        out.push_str("/>\n");
    }
    out.push_str("  </box>\n");
}

pub(crate) fn opt(out: &mut String, name: &str, value: Option<&str>) {
    if let Some(v) = value {
        attr(out, name, v);
    }
}

pub(crate) fn attr(out: &mut String, name: &str, value: &str) {
    let _ = write!(out, " {name}=\"{}\"", escape(value));
}

pub(crate) fn escape(value: &str) -> String {
    let mut s = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\n' => s.push_str("&#10;"),
            '\t' => s.push_str("&#9;"),
            c => s.push(c),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r##"<?xml version="1.0"?>
<!-- a header -->
<map width="100" height="50" neutral-color="#d9c9a3">
  <!-- kinds -->
  <line-kind id="road" name="Road" color="#b08850"/>
  <line-kind id="river" name="River" flows="true"/>
  <tag id="port" name="Port" mark="corner-dot"/>
  <box-value id="recruit" name="Recruitment value"/>
  <box name="A &amp; B" owner="north" tags="port" x="1" y="2">
    <value id="recruit" side="north" amount="2"/>
  </box>
  <box name="C" aliases="Cee;Si" tags="k fort" state="XX" x="3" y="4"/>
  <line a="A &amp; B" b="C" kind="river" name="Big &quot;One&quot;" downstream="C" water-border="C"/>
</map>
"##;

    #[test]
    fn spans_name_the_lines_each_box_and_line_was_written_on() {
        let src = read(SAMPLE).unwrap();
        let (text, spans) = write_spans(&src.data, &src.prolog);
        let lines: Vec<&str> = text.lines().collect();
        let at = |n: u32| lines[n as usize - 1];
        assert_eq!(spans.len(), 3);
        let [a, c, l] = [spans[0], spans[1], spans[2]];
        assert_eq!(a.object, Selection::Box(0));
        assert!(at(a.first).contains("name=\"A &amp; B\""));
        assert_eq!(
            at(a.last),
            "  </box>",
            "a box with recruits spans its element"
        );
        assert_eq!(
            (c.object, c.first, c.last),
            (Selection::Box(1), a.last + 1, a.last + 1)
        );
        assert!(at(c.first).contains("name=\"C\""));
        assert_eq!(l.object, Selection::Line(0));
        assert_eq!(l.first, l.last);
        assert!(at(l.first).starts_with("  <line a="));
    }

    #[test]
    fn write_then_read_gives_the_same_data_and_keeps_the_prolog() {
        let src = read(SAMPLE).unwrap();
        assert_eq!(src.prolog, "<?xml version=\"1.0\"?>\n<!-- a header -->\n");
        assert_eq!(src.inner_comments, 0);
        assert_eq!(
            src.comments,
            vec![Comment {
                before: Anchor::Kind("road".into()),
                text: "<!-- kinds -->".into()
            }]
        );
        assert_eq!(src.data.boxes[0].name, "A & B");
        assert_eq!(src.data.lines[0].name.as_deref(), Some("Big \"One\""));
        let text = write(&src.data, &src.prolog);
        assert!(text.starts_with("<?xml version=\"1.0\"?>\n<!-- a header -->\n<map"));
        let again = read(&text).unwrap();
        assert_eq!(again.data, src.data);
        assert_eq!(again.inner_comments, 0);
        // Stable: writing again gives the same bytes.
        assert_eq!(write(&again.data, &again.prolog), text);
    }

    /// Comments inside `<map>` come back before the item they stood before, inside a
    /// box before that box, and when their item is gone, at the end.
    #[test]
    fn comments_inside_the_map_are_kept() {
        let text = r#"<map>
  <!-- roads -->
  <line-kind id="road" name="Road"/>
  <!-- 4.3: Fort "A" -->
  <box name="A &amp; B" x="1" y="2">
    <!-- one recruit -->
    <value id="r" side="n" amount="1"/>
  </box>
  <!-- C, to be renamed -->
  <box name="C" x="3" y="4"/>
  <!-- the river -->
  <line a="C" b="A &amp; B" kind="road"/>
  <!-- last -->
</map>
"#;
        let src = read(text).unwrap();
        assert_eq!(src.comments.len(), 6);
        let mut data = src.data.clone();
        data.boxes[1].name = "D".into();
        data.lines[0].a = "D".into();
        let written = write_kept(&data, &src.prolog, &src.comments);
        let pos = |t: &str| {
            written
                .find(t)
                .unwrap_or_else(|| panic!("{t} lost:\n{written}"))
        };
        assert!(pos("<!-- roads -->") < pos("<line-kind"));
        assert!(pos("<!-- 4.3: Fort \"A\" -->") < pos("<box name=\"A &amp; B\""));
        assert!(pos("<!-- one recruit -->") < pos("<box name=\"A &amp; B\""));
        assert!(
            pos("<!-- the river -->") > pos("<box name=\"D\""),
            "its line changed ends"
        );
        assert!(
            pos("<!-- C, to be renamed -->") > pos("<line a="),
            "its box is gone"
        );
        assert!(pos("<!-- last -->") < pos("</map>"));
        // Read again, the data is the same and the comments are all there.
        let again = read(&written).unwrap();
        assert_eq!(again.data, data);
        assert_eq!(again.comments.len(), 6);
        // Without edits, writing is stable.
        let unedited = write_kept(&src.data, &src.prolog, &src.comments);
        let reread = read(&unedited).unwrap();
        assert_eq!(
            write_kept(&reread.data, &reread.prolog, &reread.comments),
            unedited
        );
    }

    #[test]
    fn bad_text_is_an_error_not_a_panic() {
        assert!(matches!(read("<map>"), Err(MapXmlError::Syntax { .. })));
        assert!(matches!(read("<units/>"), Err(MapXmlError::NotAMap(_))));
        let typo = read(r#"<map><box nme="A" x="1" y="1"/></map>"#);
        assert!(matches!(typo, Err(MapXmlError::Format(_))), "{typo:?}");
    }
}
