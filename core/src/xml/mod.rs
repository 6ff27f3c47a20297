//! XML reading: a small positioned tree built with quick-xml, and a serde
//! deserializer over it ([`de`]) so that every error names file:line:column.
//!
//! quick-xml's own serde support drops positions; reading into this tree first keeps
//! them for elements, attributes and text, and checks well-formedness on the way.

pub mod de;

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use crate::diag::{FileId, Pos};

/// Deeper nesting than this is an error: no module needs it, and it keeps recursion
/// (deserializing, dropping the tree) bounded whatever the input.
pub const MAX_DEPTH: usize = 64;

/// An element with its attributes, child elements and text, each with a position.
#[derive(Clone, Debug, Default)]
pub struct Element {
    pub name: String,
    pub pos: Pos,
    pub attrs: Vec<Attr>,
    pub children: Vec<Element>,
    /// Concatenated text content (entities resolved), untrimmed.
    pub text: String,
    /// Where the first non-blank text starts (or the element's position).
    pub text_pos: Pos,
}

#[derive(Clone, Debug, Default)]
pub struct Attr {
    pub name: String,
    /// The value after XML normalization (entities resolved, newlines as spaces).
    pub value: String,
    /// The value as written, when it differs from `value`; maps offsets to positions.
    pub raw: Option<String>,
    pub pos: Pos,
    pub value_pos: Pos,
}

/// A well-formedness error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub pos: Pos,
    pub message: String,
}

/// Maps byte offsets to 1-based line and column.
struct LineIndex<'a> {
    src: &'a str,
    file: FileId,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    fn new(file: FileId, src: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        Self { src, file, starts }
    }

    fn pos(&self, offset: usize) -> Pos {
        let offset = offset.min(self.src.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let col = self
            .src
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        Pos {
            file: self.file,
            line: u32::try_from(line + 1).unwrap_or(u32::MAX),
            col: u32::try_from(col + 1).unwrap_or(u32::MAX),
        }
    }

    /// Offset of `part` if it is a slice of the source text.
    fn offset_of(&self, part: &[u8]) -> Option<usize> {
        let base = self.src.as_ptr() as usize;
        let p = part.as_ptr() as usize;
        (p >= base && p <= base + self.src.len()).then(|| p - base)
    }
}

/// Parses one document into its root element.
pub fn parse(file: FileId, src: &str) -> Result<Element, SyntaxError> {
    let idx = LineIndex::new(file, src);
    let err = |offset: usize, message: String| SyntaxError {
        pos: idx.pos(offset),
        message,
    };
    let mut reader = Reader::from_str(src);
    reader.config_mut().check_comments = true;
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;

    loop {
        let start = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let event = match reader.read_event() {
            Ok(ev) => ev,
            Err(e) => {
                let at = usize::try_from(reader.error_position()).unwrap_or(start);
                if let Some(e) = unclosed(&e, &stack, idx.pos(at)) {
                    return Err(e);
                }
                if let quick_xml::Error::IllFormed(
                    quick_xml::errors::IllFormedError::DoubleHyphenInComment,
                ) = e
                {
                    return Err(err(double_hyphen(src, start, at), DOUBLE_HYPHEN.into()));
                }
                return Err(err(at, describe(&e)));
            }
        };
        match event {
            Event::Start(tag) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(err(
                        start,
                        format!("elements are nested more than {MAX_DEPTH} deep"),
                    ));
                }
                stack.push(open(&idx, &tag, start)?);
            }
            Event::Empty(tag) => {
                let el = open(&idx, &tag, start)?;
                attach(&idx, &mut stack, &mut root, el)?;
            }
            Event::End(_) => {
                let Some(el) = stack.pop() else {
                    return Err(err(start, "closing tag without an opening tag".into()));
                };
                attach(&idx, &mut stack, &mut root, el)?;
            }
            Event::Text(text) => add_text(&idx, &mut stack, start, &text.xml10_content())?,
            Event::CData(text) => add_text(&idx, &mut stack, start, &text)?,
            Event::GeneralRef(r) => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => match quick_xml::escape::resolve_predefined_entity(&r) {
                        Some(s) => s.to_string(),
                        None => {
                            return Err(err(
                                start,
                                format!(
                                    "unknown entity '&{};' (only &lt; &gt; &amp; &apos; &quot; and &#N; are allowed)",
                                    &*r
                                ),
                            ));
                        }
                    },
                    Err(e) => return Err(err(start, format!("bad character reference: {e}"))),
                };
                add_text(&idx, &mut stack, start, &resolved)?;
            }
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
            Event::Eof => break,
        }
    }
    if let Some(open) = stack.last() {
        return Err(SyntaxError {
            pos: open.pos,
            message: format!("<{}> is never closed", open.name),
        });
    }
    root.ok_or_else(|| err(0, "the file has no root element".into()))
}

fn open(idx: &LineIndex<'_>, tag: &BytesStart<'_>, start: usize) -> Result<Element, SyntaxError> {
    let pos = idx.pos(start);
    let name = tag.name().as_ref().to_string();
    let mut attrs = Vec::new();
    for attr in tag.attributes() {
        let attr = attr.map_err(|e| attr_error(idx, start, &name, &e))?;
        let key = attr.key.as_ref();
        let value = attr
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| SyntaxError {
                pos,
                message: format!("bad attribute value in <{name}>: {e}"),
            })?;
        let key_pos = idx.offset_of(key.as_bytes()).map_or(pos, |o| idx.pos(o));
        let value_pos = idx
            .offset_of(attr.value.as_bytes())
            .map_or(key_pos, |o| idx.pos(o));
        if let Some(lt) = attr.value.find('<') {
            let at = idx
                .offset_of(attr.value.as_bytes())
                .map_or(start, |o| o + lt);
            return Err(SyntaxError {
                pos: idx.pos(at),
                message: format!("'<' in the value of '{key}'; write &lt; instead"),
            });
        }
        let raw = (*attr.value != *value).then(|| attr.value.to_string());
        attrs.push(Attr {
            name: key.to_string(),
            value: value.into_owned(),
            raw,
            pos: key_pos,
            value_pos,
        });
    }
    Ok(Element {
        name,
        pos,
        attrs,
        children: Vec::new(),
        text: String::new(),
        text_pos: pos,
    })
}

/// An attribute syntax error at its own position (quick-xml counts from after `<`).
fn attr_error(
    idx: &LineIndex<'_>,
    start: usize,
    el: &str,
    e: &quick_xml::events::attributes::AttrError,
) -> SyntaxError {
    use quick_xml::events::attributes::AttrError as A;
    let (at, message) = match e {
        A::ExpectedEq(p) => (*p, format!("an attribute of <{el}> has a name but no '='")),
        A::ExpectedValue(p) => (*p, format!("an attribute of <{el}> has '=' but no value")),
        A::UnquotedValue(p) => (*p, format!("an attribute value of <{el}> is not in quotes")),
        A::ExpectedQuote(p, q) => (
            *p,
            format!(
                "an attribute value of <{el}> is missing its closing {}",
                char::from(*q)
            ),
        ),
        A::Duplicated(p, _) => (*p, format!("an attribute of <{el}> is written twice")),
    };
    SyntaxError {
        pos: idx.pos(start + 1 + at),
        message,
    }
}

fn attach(
    idx: &LineIndex<'_>,
    stack: &mut [Element],
    root: &mut Option<Element>,
    el: Element,
) -> Result<(), SyntaxError> {
    if let Some(parent) = stack.last_mut() {
        parent.children.push(el);
    } else if let Some(first) = root {
        let _ = idx;
        return Err(SyntaxError {
            pos: el.pos,
            message: format!(
                "second root element <{}>; a file holds one root element (the first is <{}>)",
                el.name, first.name
            ),
        });
    } else {
        *root = Some(el);
    }
    Ok(())
}

fn add_text(
    idx: &LineIndex<'_>,
    stack: &mut [Element],
    start: usize,
    text: &str,
) -> Result<(), SyntaxError> {
    let blank = text.trim().is_empty();
    match stack.last_mut() {
        Some(el) => {
            if !blank && el.text.trim().is_empty() {
                let lead = text.len() - text.trim_start().len();
                el.text_pos = idx.pos(start + lead);
            }
            el.text.push_str(text);
            Ok(())
        }
        None if blank => Ok(()),
        None => {
            let lead = text.len() - text.trim_start().len();
            Err(SyntaxError {
                pos: idx.pos(start + lead),
                message: "text outside the root element".into(),
            })
        }
    }
}

/// An element left open, reported where it was opened: the reader only notices at an
/// ancestor's closing tag or at the end of the file, far from the mistake. A closing
/// tag that names no open element is a typo, reported where it is (see [`describe`]).
fn unclosed(e: &quick_xml::Error, stack: &[Element], at: Pos) -> Option<SyntaxError> {
    use quick_xml::errors::IllFormedError as I;
    let open = stack.last()?;
    let message = match e {
        quick_xml::Error::IllFormed(I::MissingEndTag(name)) if *name == open.name => {
            format!("<{name}> is never closed")
        }
        quick_xml::Error::IllFormed(I::MismatchedEndTag { expected, found })
            if *expected == open.name && stack.iter().any(|el| el.name == *found) =>
        {
            format!(
                "<{expected}> is never closed (</{found}> at line {}:{} comes first)",
                at.line, at.col
            )
        }
        _ => return None,
    };
    Some(SyntaxError {
        pos: open.pos,
        message,
    })
}

/// XML forbids `--` inside a comment, and a comment quoting a command line
/// (`muster check ahd --mod house`) is the usual way to write it.
const DOUBLE_HYPHEN: &str = "'--' inside a comment: XML forbids two dashes in a row in a comment, \
     so the file cannot be read; write the option otherwise (e.g. \"the --mod option\" as \
     \"the 'mod' option\" or \"- -mod\"), or move it out of the comment";

/// Where the first `--` inside the comment that starts at or after `from` is (its
/// opening `<!--` and closing `-->` aside), so the error points at the dashes, not at the
/// comment; `fallback` if none is found.
fn double_hyphen(src: &str, from: usize, fallback: usize) -> usize {
    let Some(open) = src.get(from..).and_then(|s| s.find("<!--")) else {
        return fallback;
    };
    let body = from + open + 4;
    src.get(body..)
        .and_then(|s| s.find("--"))
        .map_or(fallback, |i| body + i)
}

fn describe(e: &quick_xml::Error) -> String {
    use quick_xml::errors::IllFormedError as I;
    match e {
        quick_xml::Error::IllFormed(I::MismatchedEndTag { expected, found }) => {
            format!("closing tag </{found}> does not match the open <{expected}>")
        }
        quick_xml::Error::IllFormed(I::UnmatchedEndTag(name)) => {
            format!("closing tag </{name}> has no matching opening tag")
        }
        quick_xml::Error::IllFormed(I::MissingEndTag(name)) => {
            format!("<{name}> is never closed")
        }
        other => format!("malformed XML: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_dashes_in_a_comment_are_pointed_at() {
        let src = "<a>\n  <!-- stack it with\n   muster check ahd --mod house -->\n</a>";
        let e = parse(FileId(0), src).unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (3, 21));
        assert!(
            e.message.starts_with("'--' inside a comment"),
            "{}",
            e.message
        );
        assert!(e.message.contains("\"- -mod\""), "{}", e.message);
    }

    #[test]
    fn positions_of_elements_and_attributes() {
        let src = "<a>\n  <b x=\"1\"  yy='t&amp;u'/>\n  <c>hi &lt;there&gt;</c>\n</a>";
        let root = parse(FileId(0), src).unwrap();
        let b = &root.children[0];
        assert_eq!((b.pos.line, b.pos.col), (2, 3));
        assert_eq!((b.attrs[0].pos.line, b.attrs[0].pos.col), (2, 6));
        assert_eq!((b.attrs[1].pos.line, b.attrs[1].pos.col), (2, 13));
        assert_eq!(b.attrs[1].value, "t&u");
        assert_eq!(
            (b.attrs[1].value_pos.line, b.attrs[1].value_pos.col),
            (2, 17)
        );
        let c = &root.children[1];
        assert_eq!(c.text, "hi <there>");
        assert_eq!((c.text_pos.line, c.text_pos.col), (3, 6));
    }

    #[test]
    fn well_formedness_errors_have_positions() {
        let e = parse(FileId(0), "<a>\n <b></c>\n</a>").unwrap_err();
        assert_eq!(e.pos.line, 2, "{e:?}");
        assert!(e.message.contains("</c>"), "{e:?}");
        let e = parse(FileId(0), "<a>\n <b>\n").unwrap_err();
        assert!(e.message.contains("never closed"), "{e:?}");
        let e = parse(FileId(0), "<a/><b/>").unwrap_err();
        assert!(e.message.contains("second root"), "{e:?}");
        let e = parse(FileId(0), "<a x=\"1\" x=\"2\"/>").unwrap_err();
        assert_eq!(
            (e.pos.col, e.message.as_str()),
            (10, "an attribute of <a> is written twice")
        );
        let e = parse(FileId(0), "<a x=\"1<2\"/>").unwrap_err();
        assert_eq!(e.pos.col, 8, "{e:?}");
        let deep = "<a>".repeat(100_000) + &"</a>".repeat(100_000);
        let e = parse(FileId(0), &deep).unwrap_err();
        assert!(e.message.contains("nested"), "{e:?}");
        assert!(parse(FileId(0), "").is_err());
        assert!(parse(FileId(0), "<a>&nbsp;</a>").is_err());
    }
}
