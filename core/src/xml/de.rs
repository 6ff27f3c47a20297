//! A serde [`Deserializer`] over [`Element`]: attributes and child elements are the
//! fields of a struct, repeated children fill a `Vec`, `$text` takes the text and `$pos`
//! takes the element's [`Pos`]. Every error carries the position of what was wrong and,
//! for unknown names, a "did you mean" hint.

use std::fmt;

use serde::de::value::{BorrowedStrDeserializer, SeqDeserializer};
use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use serde::forward_to_deserialize_any;

use super::{Attr, Element};
use crate::diag::Pos;
use crate::suggest;

/// Deserializes `T` from an element.
pub fn from_element<'de, T: de::Deserialize<'de>>(el: &'de Element) -> Result<T, DeError> {
    T::deserialize(ElemDe(el))
}

/// A deserialization error; `pos` is filled in by the innermost place that knows it.
#[derive(Debug)]
pub struct DeError {
    pub pos: Option<Pos>,
    pub message: String,
    pub hint: Option<String>,
    pending: Pending,
}

/// Errors raised by serde-derived code before we know where they happened.
#[derive(Debug)]
enum Pending {
    None,
    UnknownField(String, &'static [&'static str]),
    Missing(&'static str),
    UnknownVariant(String, &'static [&'static str]),
}

impl DeError {
    fn at(pos: Pos, message: String) -> Self {
        Self {
            pos: Some(pos),
            message,
            hint: None,
            pending: Pending::None,
        }
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Self {
            pos: None,
            message: msg.to_string(),
            hint: None,
            pending: Pending::None,
        }
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Self {
            pending: Pending::UnknownField(field.to_string(), expected),
            ..Self::custom(format!("unknown field '{field}'"))
        }
    }

    fn missing_field(field: &'static str) -> Self {
        Self {
            pending: Pending::Missing(field),
            ..Self::custom(format!("missing '{field}'"))
        }
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        Self {
            pending: Pending::UnknownVariant(variant.to_string(), expected),
            ..Self::custom(format!("unknown value '{variant}'"))
        }
    }
}

/// Names a reader would use: hides the `$pos`/`$text` plumbing.
fn visible(expected: &'static [&'static str]) -> impl Iterator<Item = &'static str> + Clone {
    expected.iter().copied().filter(|n| !n.starts_with('$'))
}

fn expected_hint(word: &str, expected: &'static [&'static str]) -> Option<String> {
    suggest::did_you_mean(word, visible(expected)).or_else(|| {
        let names: Vec<_> = visible(expected).map(|n| format!("'{n}'")).collect();
        (!names.is_empty()).then(|| format!("expected one of {}", names.join(", ")))
    })
}

struct ElemDe<'a>(&'a Element);

impl<'de> ElemDe<'de> {
    fn check_text(&self, fields: &[&str]) -> Result<(), DeError> {
        if !fields.contains(&"$text") && !self.0.text.trim().is_empty() {
            return Err(DeError::at(
                self.0.text_pos,
                format!("unexpected text inside <{}>", self.0.name),
            ));
        }
        Ok(())
    }

    fn text(&self) -> Scalar<'de> {
        Scalar {
            value: self.0.text.trim(),
            raw: None,
            pos: self.0.text_pos,
            what: What::Text(&self.0.name),
        }
    }
}

impl<'de> Deserializer<'de> for ElemDe<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if self.0.attrs.is_empty() && self.0.children.is_empty() {
            self.text().deserialize_any(visitor)
        } else {
            self.deserialize_map(visitor)
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        if name == SPANNED {
            return self.text().deserialize_struct(name, fields, visitor);
        }
        self.check_text(fields)?;
        let el = self.0;
        visitor
            .visit_map(ElemMap::new(el, fields))
            .map_err(|mut e| {
                if let Pending::Missing(field) = e.pending {
                    e.message = format!("<{}> is missing '{field}'", el.name);
                    e.hint = Some(format!("add {field}=\"...\""));
                    e.pending = Pending::None;
                }
                if e.pos.is_none() {
                    e.pos = Some(el.pos);
                }
                e
            })
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_struct("", &[], visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.text().deserialize_enum(name, variants, visitor)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct identifier
    }
}

/// One key/value of an element seen as a map.
enum Entry<'a> {
    Attr(&'a Attr),
    Children(&'a str, Vec<&'a Element>),
    Text,
    Pos,
}

struct ElemMap<'a> {
    el: &'a Element,
    entries: Vec<Entry<'a>>,
    next: usize,
}

impl<'a> ElemMap<'a> {
    fn new(el: &'a Element, fields: &[&str]) -> Self {
        let mut entries: Vec<Entry<'a>> = el.attrs.iter().map(Entry::Attr).collect();
        let mut groups: Vec<(&'a str, Vec<&'a Element>)> = Vec::new();
        for child in &el.children {
            match groups.iter_mut().find(|(n, _)| *n == child.name) {
                Some((_, g)) => g.push(child),
                None => groups.push((&child.name, vec![child])),
            }
        }
        entries.extend(groups.into_iter().map(|(n, g)| Entry::Children(n, g)));
        if fields.contains(&"$text") {
            entries.push(Entry::Text);
        }
        if fields.contains(&"$pos") {
            entries.push(Entry::Pos);
        }
        Self {
            el,
            entries,
            next: 0,
        }
    }
}

impl<'de> MapAccess<'de> for ElemMap<'de> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some(entry) = self.entries.get(self.next) else {
            return Ok(None);
        };
        let (key, kind, pos): (&str, &str, Pos) = match entry {
            Entry::Attr(a) => (&a.name, "attribute", a.pos),
            Entry::Children(n, g) => (n, "element", g[0].pos),
            Entry::Text => ("$text", "text", self.el.text_pos),
            Entry::Pos => ("$pos", "position", self.el.pos),
        };
        seed.deserialize(BorrowedStrDeserializer::<DeError>::new(key))
            .map(Some)
            .map_err(|mut e| {
                if let Pending::UnknownField(field, expected) = &e.pending {
                    let shown = if kind == "element" {
                        format!("<{field}>")
                    } else {
                        format!("'{field}'")
                    };
                    e.message = format!("unknown {kind} {shown} in <{}>", self.el.name);
                    e.hint = expected_hint(field, expected);
                    e.pending = Pending::None;
                }
                e.pos.get_or_insert(pos);
                e
            })
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let entry = self
            .entries
            .get(self.next)
            .ok_or_else(|| DeError::at(self.el.pos, "internal: value without key".into()))?;
        self.next += 1;
        match entry {
            Entry::Attr(a) => seed.deserialize(Scalar {
                value: &a.value,
                raw: a.raw.as_deref(),
                pos: a.value_pos,
                what: What::Attr(&a.name, &self.el.name),
            }),
            Entry::Children(name, group) => seed.deserialize(Children {
                name,
                parent: &self.el.name,
                elems: group.clone(),
            }),
            Entry::Text => seed.deserialize(ElemDe(self.el).text()),
            Entry::Pos => seed.deserialize(PosDe(self.el.pos)),
        }
    }
}

/// The children of one name: a `Vec`, an `Option`, or exactly one.
struct Children<'a> {
    name: &'a str,
    parent: &'a str,
    elems: Vec<&'a Element>,
}

impl<'de> Children<'de> {
    fn single(self) -> Result<ElemDe<'de>, DeError> {
        match self.elems.as_slice() {
            [one] => Ok(ElemDe(one)),
            [_, second, ..] => Err(DeError::at(
                second.pos,
                format!("<{}> may appear only once in <{}>", self.name, self.parent),
            )),
            [] => Err(<DeError as de::Error>::custom(
                "internal: empty child group",
            )),
        }
    }
}

macro_rules! forward_to_single {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            self.single()?.$method(visitor)
        }
    )*};
}

impl<'de> Deserializer<'de> for Children<'de> {
    type Error = DeError;

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_seq(ElemSeq(self.elems.into_iter()))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.single()?.deserialize_struct(name, fields, visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.single()?.deserialize_enum(name, variants, visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    forward_to_single! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_f32 deserialize_f64 deserialize_char deserialize_str deserialize_string
        deserialize_map deserialize_identifier
    }

    forward_to_deserialize_any! {
        bytes byte_buf unit unit_struct tuple tuple_struct
    }
}

struct ElemSeq<'a>(std::vec::IntoIter<&'a Element>);

impl<'de> SeqAccess<'de> for ElemSeq<'de> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        self.0
            .next()
            .map(|el| seed.deserialize(ElemDe(el)))
            .transpose()
    }
}

/// What a scalar value is, for messages.
#[derive(Clone, Copy)]
enum What<'a> {
    Attr(&'a str, &'a str),
    Text(&'a str),
}

impl fmt::Display for What<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            What::Attr(name, el) => write!(f, "'{name}' of <{el}>"),
            What::Text(el) => write!(f, "the text of <{el}>"),
        }
    }
}

/// An attribute value or element text, parsed on demand into the requested type.
struct Scalar<'a> {
    value: &'a str,
    /// The value as written, if XML normalization changed it.
    raw: Option<&'a str>,
    pos: Pos,
    what: What<'a>,
}

impl Scalar<'_> {
    fn fail(&self, expected: &str) -> DeError {
        DeError::at(
            self.pos,
            format!("{} must be {expected}, found '{}'", self.what, self.value),
        )
    }
}

macro_rules! parse_number {
    ($($method:ident $visit:ident $ty:ty, $desc:expr;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            match self.value.trim().parse::<$ty>() {
                Ok(v) => visitor.$visit(v),
                Err(_) => Err(self.fail($desc)),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for Scalar<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_borrowed_str(self.value)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value.trim() {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            _ => Err(self.fail("'true' or 'false'")),
        }
    }

    parse_number! {
        deserialize_u8 visit_u8 u8, "a whole number from 0 to 255";
        deserialize_u16 visit_u16 u16, "a whole number from 0 to 65535";
        deserialize_u32 visit_u32 u32, "a whole number";
        deserialize_u64 visit_u64 u64, "a whole number";
        deserialize_i8 visit_i8 i8, "a whole number from -128 to 127";
        deserialize_i16 visit_i16 i16, "a whole number";
        deserialize_i32 visit_i32 i32, "a whole number";
        deserialize_i64 visit_i64 i64, "a whole number";
        deserialize_f32 visit_f32 f32, "a number";
        deserialize_f64 visit_f64 f64, "a number";
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let value = self.value.trim();
        visitor
            .visit_enum(BorrowedStrDeserializer::<DeError>::new(value))
            .map_err(|mut e| {
                if let Pending::UnknownVariant(v, expected) = &e.pending {
                    e.message = format!("'{v}' is not a valid value for {}", self.what);
                    e.hint = expected_hint(v, expected).or_else(|| expected_hint("", variants));
                    e.pending = Pending::None;
                }
                e.pos.get_or_insert(self.pos);
                e
            })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        if name == SPANNED {
            let (pos, raw) = (self.pos, self.raw);
            return visitor.visit_map(SpannedMap {
                value: Some(self),
                pos: Some(pos),
                raw,
            });
        }
        let _ = fields;
        Err(self.fail("a structure"))
    }

    forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map
        identifier ignored_any
    }
}

const SPANNED: &str = "$Spanned";
const SPANNED_FIELDS: &[&str] = &["$value", "$pos", "$raw"];

/// A value with the position it was read from (an attribute value or element text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    pub value: T,
    pub pos: Pos,
    /// The text as written, when XML normalization changed it (an entity, a newline).
    pub raw: Option<String>,
}

impl Spanned<String> {
    /// Where the character at byte `offset` of the value was written.
    pub fn pos_at(&self, offset: usize) -> Pos {
        let mut pos = self.pos;
        let Some(raw) = &self.raw else {
            let before = self.value.get(..offset).unwrap_or(&self.value);
            pos.col += u32::try_from(before.chars().count()).unwrap_or(0);
            return pos;
        };
        // Walk the source and the value together: an entity or a line break in the
        // source is one character of the value.
        let mut consumed = 0;
        let mut src = raw.chars().peekable();
        while consumed < offset {
            let Some(c) = src.next() else { break };
            match c {
                '&' => {
                    pos.col += 1;
                    for c in src.by_ref() {
                        pos.col += 1;
                        if c == ';' {
                            break;
                        }
                    }
                }
                '\r' | '\n' => {
                    if c == '\r' && src.peek() == Some(&'\n') {
                        src.next();
                    }
                    pos.line += 1;
                    pos.col = 1;
                }
                _ => pos.col += 1,
            }
            consumed += self.value[consumed..]
                .chars()
                .next()
                .map_or(1, char::len_utf8);
        }
        pos
    }

    /// The items of a list value split at `sep`, trimmed, each with its position.
    pub fn items(&self, sep: char) -> Vec<(&str, Pos)> {
        let mut out = Vec::new();
        let mut offset = 0;
        for part in self.value.split(sep) {
            let lead = part.len() - part.trim_start().len();
            if !part.trim().is_empty() {
                out.push((part.trim(), self.pos_at(offset + lead)));
            }
            offset += part.len() + sep.len_utf8();
        }
        out
    }
}

impl<T> std::ops::Deref for Spanned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<'de, T: de::Deserialize<'de>> de::Deserialize<'de> for Spanned<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: de::Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Spanned<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a value with a position")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Spanned<T>, A::Error> {
                let mut value = None;
                let mut pos = None;
                let mut raw = None;
                while let Some(key) = map.next_key::<&str>()? {
                    match key {
                        "$value" => value = Some(map.next_value()?),
                        "$raw" => raw = Some(map.next_value::<String>()?),
                        _ => pos = Some(map.next_value()?),
                    }
                }
                match (value, pos) {
                    (Some(value), Some(pos)) => Ok(Spanned { value, pos, raw }),
                    _ => Err(de::Error::custom("internal: incomplete spanned value")),
                }
            }
        }
        d.deserialize_struct(SPANNED, SPANNED_FIELDS, V(std::marker::PhantomData))
    }
}

/// Yields a scalar's value, its position and its raw text to [`Spanned`].
struct SpannedMap<'a> {
    value: Option<Scalar<'a>>,
    pos: Option<Pos>,
    raw: Option<&'a str>,
}

impl<'de> MapAccess<'de> for SpannedMap<'de> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let key = if self.value.is_some() {
            "$value"
        } else if self.pos.is_some() {
            "$pos"
        } else if self.raw.is_some() {
            "$raw"
        } else {
            return Ok(None);
        };
        seed.deserialize(BorrowedStrDeserializer::<DeError>::new(key))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        if let Some(v) = self.value.take() {
            return seed.deserialize(v);
        }
        if let Some(p) = self.pos.take() {
            return seed.deserialize(PosDe(p));
        }
        match self.raw.take() {
            Some(r) => seed.deserialize(BorrowedStrDeserializer::<DeError>::new(r)),
            None => Err(<DeError as de::Error>::custom(
                "internal: spanned value read twice",
            )),
        }
    }
}

/// Hands a [`Pos`] to a `$pos` field.
struct PosDe(Pos);

impl<'de> Deserializer<'de> for PosDe {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let parts = [u32::from(self.0.file.0), self.0.line, self.0.col];
        visitor.visit_seq(SeqDeserializer::new(
            parts.into_iter().map(IntoDeserializer::into_deserializer),
        ))
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

impl<'de> de::Deserialize<'de> for Pos {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (file, line, col): (u16, u32, u32) = de::Deserialize::deserialize(d)?;
        Ok(Pos {
            file: crate::diag::FileId(file),
            line,
            col,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::FileId;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Doc {
        #[serde(rename = "$pos")]
        pos: Pos,
        name: String,
        #[serde(default)]
        count: Option<u8>,
        #[serde(default)]
        item: Vec<Item>,
        note: Option<Note>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Item {
        kind: Spanned<Kind>,
        #[serde(default)]
        on: bool,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Note {
        #[serde(rename = "$text")]
        text: String,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        Road,
        Rail,
    }

    fn de(src: &str) -> Result<Doc, DeError> {
        let el = super::super::parse(FileId(0), src).unwrap();
        from_element(&el).map_err(|e| DeError { pos: e.pos, ..e })
    }

    #[test]
    fn reads_attributes_children_and_text() {
        let d = de("<doc name='x' count='3'><item kind='rail' on='true'/><item kind='road'/><note> hi </note></doc>").unwrap();
        assert_eq!(d.name, "x");
        assert_eq!(d.count, Some(3));
        assert_eq!(d.item.len(), 2);
        assert_eq!(*d.item[0].kind, Kind::Rail);
        assert_eq!((d.item[0].kind.pos.line, d.item[0].kind.pos.col), (1, 37));
        assert!(d.item[0].on && !d.item[1].on);
        assert_eq!(d.note.unwrap().text, "hi");
        assert_eq!((d.pos.line, d.pos.col), (1, 1));
    }

    #[test]
    fn errors_name_position_and_fix() {
        let e = de("<doc name='x'>\n <item kidn='rail'/></doc>").unwrap_err();
        assert_eq!(e.message, "unknown attribute 'kidn' in <item>");
        assert_eq!(e.hint.as_deref(), Some("did you mean 'kind'?"));
        assert_eq!(e.pos.map(|p| (p.line, p.col)), Some((2, 8)));

        let e = de("<doc name='x'>\n <item kind='rial'/></doc>").unwrap_err();
        assert_eq!(
            e.message,
            "'rial' is not a valid value for 'kind' of <item>"
        );
        assert_eq!(e.hint.as_deref(), Some("did you mean 'rail'?"));
        assert_eq!(e.pos.map(|p| (p.line, p.col)), Some((2, 14)));

        let e = de("<doc name='x' count='many'/>").unwrap_err();
        assert!(
            e.message.contains("must be a whole number"),
            "{}",
            e.message
        );

        let e = de("<doc>\n<item/></doc>").unwrap_err();
        assert_eq!(e.message, "<item> is missing 'kind'");
        assert_eq!(e.pos.map(|p| p.line), Some(2));

        let e = de("<doc name='x'><note>a</note>\n<note>b</note></doc>").unwrap_err();
        assert!(e.message.contains("only once"), "{}", e.message);
        assert_eq!(e.pos.map(|p| p.line), Some(2));

        let e = de("<doc name='x'><itme kind='rail'/></doc>").unwrap_err();
        assert_eq!(e.message, "unknown element <itme> in <doc>");
        assert_eq!(e.hint.as_deref(), Some("did you mean 'item'?"));

        let e = de("<doc name='x'>stray</doc>").unwrap_err();
        assert!(e.message.contains("unexpected text"), "{}", e.message);
    }

    #[derive(Debug, Deserialize)]
    struct List {
        units: Spanned<String>,
    }

    #[test]
    fn item_positions_survive_entities_and_line_breaks() {
        let src = "<l units=\"2 A,&#32;1 B,\n   3 C\"/>";
        let el = super::super::parse(FileId(0), src).unwrap();
        let l: List = from_element(&el).unwrap();
        assert_eq!(l.units.value, "2 A, 1 B,    3 C");
        let at: Vec<(&str, u32, u32)> = l
            .units
            .items(',')
            .into_iter()
            .map(|(s, p)| (s, p.line, p.col))
            .collect();
        assert_eq!(at, [("2 A", 1, 11), ("1 B", 1, 20), ("3 C", 2, 4)]);
    }
}
