//! How a module overlays the module below it, item by item.
//!
//! Items are kept as their XML elements (with the typed value read from them) until the
//! whole stack is merged, so an overlay's `<patch>` can change some attributes of a base
//! item without the loader knowing each item's struct: the patch's attributes replace
//! the base element's (keeping the patch's positions, so a bad value is reported where
//! the patch wrote it) and the element is read again. `<remove>` drops an item; removing
//! or patching an item that is not there is an error with a "did you mean".

use crate::diag::{Ctx, Diagnostic, Location, Pos};
use crate::format;
use crate::load::{Parts, deserialize};
use crate::module::ScriptEntry;
use crate::suggest;
use crate::xml;

/// The kinds of item a module defines; `<remove>` and `<patch>` name one by its
/// element name and its key attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ItemKind {
    Side,
    Resource,
    Tally,
    Seat,
    LineKind,
    Tag,
    BoxValue,
    Box,
    Line,
    Class,
    Quality,
    Marker,
    Flag,
    Unit,
    Option,
    Table,
    Scenario,
    Calendar,
    /// A `<step>` inside the calendar's `<player-turn>` or `<turn-end>`.
    Step,
}

/// Every kind and the element that writes it, in the order items are compiled (ids
/// follow it within a kind): the one table from element names to kinds.
const KINDS: [(ItemKind, &str); 19] = [
    (ItemKind::Side, "side"),
    (ItemKind::Resource, "resource"),
    (ItemKind::Tally, "tally"),
    (ItemKind::Seat, "seat"),
    (ItemKind::LineKind, "line-kind"),
    (ItemKind::Tag, "tag"),
    (ItemKind::BoxValue, "box-value"),
    (ItemKind::Box, "box"),
    (ItemKind::Line, "line"),
    (ItemKind::Class, "class"),
    (ItemKind::Quality, "quality"),
    (ItemKind::Marker, "marker"),
    (ItemKind::Flag, "flag"),
    (ItemKind::Unit, "unit"),
    (ItemKind::Option, "option"),
    (ItemKind::Table, "table"),
    (ItemKind::Scenario, "scenario"),
    (ItemKind::Calendar, "calendar"),
    (ItemKind::Step, "step"),
];

impl ItemKind {
    fn element(self) -> &'static str {
        KINDS[self.slot()].1
    }

    /// How the compiler's messages name the kind (`unknown unit type 'Vi'`).
    fn word(self) -> &'static str {
        match self {
            ItemKind::LineKind => "line kind",
            ItemKind::BoxValue => "box value",
            ItemKind::Class => "unit class",
            ItemKind::Quality => "unit quality",
            ItemKind::Unit => "unit type",
            other => other.element(),
        }
    }

    /// The attributes that name an item of this kind.
    fn keys(self) -> &'static [&'static str] {
        match self {
            ItemKind::Box => &["name"],
            ItemKind::Line => &["a", "b", "kind"],
            ItemKind::Calendar => &[],
            _ => &["id"],
        }
    }

    pub(crate) fn from_element(name: &str) -> Option<ItemKind> {
        KINDS
            .iter()
            .find(|(_, n)| *n == name)
            .map(|&(kind, _)| kind)
    }

    fn slot(self) -> usize {
        self as usize
    }
}

/// An item's typed value, read once when its file is read; `None` in an [`Item`] once
/// a patch changed the element, so it is read again.
// Values are moved once, from the file read into `Parts`; boxing would not pay.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Value {
    Side(format::Side),
    Resource(format::Resource),
    Tally(format::Tally),
    Seat(format::Seat),
    LineKind(format::LineKind),
    Tag(format::TagDef),
    Box(format::BoxDef),
    Line(format::Line),
    Named(format::Named),
    Unit(format::UnitType),
    Option(format::OptionRule),
    Table(format::TableDef),
    Scenario(format::Scenario),
    Calendar(format::Calendar),
}

#[derive(Debug)]
pub(crate) struct Item {
    pub el: xml::Element,
    pub value: Option<Value>,
}

/// A `<remove>` or `<patch>` of one item, in the order written.
#[derive(Debug)]
pub(crate) struct Change {
    remove: bool,
    kind: ItemKind,
    /// The item element inside `<remove>`/`<patch>`: its key, and for a patch the
    /// attributes and children to change.
    el: xml::Element,
}

/// One module's items (or, once merged, a whole stack's), still as elements.
#[derive(Debug, Default)]
pub(crate) struct Layer {
    /// Rule entry scripts, the lowest module's first.
    pub scripts: Vec<ScriptEntry>,
    pub map_size: Option<(u32, u32)>,
    pub map_neutral_color: Option<String>,
    pub map_background: Option<format::Background>,
    /// `<backdrop file>` as written, until the module's loader reads the file.
    pub map_backdrop_ref: Option<format::BackdropRef>,
    /// The backdrop file's contents, read relative to the module that names it.
    pub map_backdrop: Option<format::Backdrop>,
    /// Items by [`ItemKind::slot`]; steps stay inside the calendar's element.
    items: [Vec<Item>; KINDS.len()],
    /// This module's removals and patches of the items below it.
    changes: Vec<Change>,
    /// Items removed so far, with where: a dangling reference names the removal.
    removed: Vec<(ItemKind, String, Pos)>,
    /// Items patched so far (as shown in messages), with where: an error the patch
    /// causes in the modules below is reported at it.
    patched: Vec<(ItemKind, String, Pos)>,
    /// The same patches by the key items are matched by (for `Module::patched`).
    patched_keys: Vec<String>,
}

/// The root elements that may hold `<remove>` and `<patch>`.
pub(crate) const CHANGE_ROOTS: &[&str] = &["sides", "map", "units", "options", "tables", "changes"];

impl Layer {
    pub fn calendar(&self) -> Option<&Item> {
        self.items[ItemKind::Calendar.slot()].first()
    }

    /// Adds one item read from a file: its element and its typed value.
    pub fn push(&mut self, el: xml::Element, value: Value) {
        if let Some(kind) = ItemKind::from_element(&el.name) {
            self.items[kind.slot()].push(Item {
                el,
                value: Some(value),
            });
        }
    }

    /// Takes the `<remove>` and `<patch>` children out of a root, checking each names an
    /// item by its key; returns the root without them and where the first one was.
    pub fn take_changes(
        &mut self,
        cx: &mut Ctx<'_>,
        mut root: xml::Element,
    ) -> (xml::Element, Option<Pos>) {
        let mut first = None;
        let children = std::mem::take(&mut root.children);
        for child in children {
            let remove = match child.name.as_str() {
                "remove" => true,
                "patch" => false,
                _ => {
                    root.children.push(child);
                    continue;
                }
            };
            first.get_or_insert(child.pos);
            if let Some(a) = child.attrs.first() {
                let err = format!("<{}> takes no attributes", child.name);
                let hint = format!(
                    "write the item inside it, e.g. <{0}><box name=\"...\"/></{0}>",
                    child.name
                );
                cx.error(a.pos, err, Some(hint));
            }
            for el in child.children {
                if let Some(change) = check_change(cx, remove, el) {
                    self.changes.push(change);
                }
            }
        }
        (root, first)
    }

    /// Lays `own` (a module's files) on this layer (the modules below it): its removals
    /// and patches first, in the order written, then its items, each replacing the item
    /// with its key or added after the others.
    pub fn overlay(&mut self, cx: &mut Ctx<'_>, mut own: Layer) {
        for change in std::mem::take(&mut own.changes) {
            self.apply(cx, change);
        }
        self.scripts.append(&mut own.scripts);
        if own.map_size.is_some() {
            self.map_size = own.map_size;
        }
        if own.map_neutral_color.is_some() {
            self.map_neutral_color = own.map_neutral_color;
        }
        if own.map_background.is_some() {
            self.map_background = own.map_background;
        }
        if own.map_backdrop.is_some() {
            self.map_backdrop = own.map_backdrop;
        }
        for (base, items) in self.items.iter_mut().zip(own.items) {
            merge_by_key(base, items);
        }
    }

    /// Reports changes in a module that extends nothing: there is nothing to change.
    pub fn refuse_changes(&mut self, cx: &mut Ctx<'_>, module: &str) {
        for change in self.changes.drain(..) {
            cx.error(
                change.el.pos,
                format!(
                    "module '{module}' extends no module, so there is no <{}> to {}",
                    change.kind.element(),
                    if change.remove { "remove" } else { "patch" }
                ),
                Some(
                    "add <extends module=\"...\"/> to module.xml, or write the item itself".into(),
                ),
            );
        }
    }

    fn apply(&mut self, cx: &mut Ctx<'_>, change: Change) {
        let verb = if change.remove { "remove" } else { "patch" };
        if change.kind == ItemKind::Step {
            return self.apply_to_step(cx, change);
        }
        let kind = change.kind;
        let key = key_of(kind, &change.el);
        let Some(i) = self.items[kind.slot()]
            .iter()
            .position(|it| key_of(kind, &it.el) == key)
        else {
            let shown = shown_key(kind, &change.el);
            let earlier = self
                .removed
                .iter()
                .find(|(k, name, _)| *k == kind && *name == key)
                .map(|(_, _, pos)| format!("it was removed at {}", cx.files.locate(*pos)));
            let hint = earlier
                .or_else(|| self.meant(kind, &change.el, verb))
                .or_else(|| {
                    let items = &self.items[kind.slot()];
                    let names: Vec<String> =
                        items.iter().map(|it| shown_key(kind, &it.el)).collect();
                    suggest::did_you_mean(&shown, names.iter().map(String::as_str))
                });
            cx.error(
                change.el.pos,
                format!(
                    "no {} '{shown}' to {verb} in the modules below",
                    kind.word()
                ),
                hint,
            );
            return;
        };
        let items = &mut self.items[kind.slot()];
        if change.remove {
            if kind == ItemKind::Calendar {
                cx.error(
                    change.el.pos,
                    "the calendar cannot be removed; a module has one",
                    Some("patch it, or write a <calendar> file to replace it".into()),
                );
                return;
            }
            items.remove(i);
            self.removed.push((kind, key, change.el.pos));
        } else {
            let item = &mut items[i];
            if let Err((pos, name)) = patch_element(&mut item.el, &change.el, kind.keys()) {
                report_unset(cx, kind, &item.el, pos, &name);
            }
            item.value = None;
            self.patched
                .push((kind, shown_key(kind, &change.el), change.el.pos));
            self.patched_keys.push(key_of(kind, &change.el));
        }
    }

    /// What an author who names no item below most likely meant, from the items there
    /// are: a line of the same two boxes with another kind; an item named by its `name`
    /// rather than its id (`<unit id="Veteran Cavalry">`); an item of another kind with
    /// that key (`<box name="Vc">` for the unit type).
    fn meant(&self, kind: ItemKind, el: &xml::Element, verb: &str) -> Option<String> {
        let same = |a: &str, b: &str| a.trim().eq_ignore_ascii_case(b.trim());
        if kind == ItemKind::Line {
            let (a, b) = (attr(el, "a"), attr(el, "b"));
            let other = self.items[kind.slot()].iter().find(|it| {
                let (x, y) = (attr(&it.el, "a"), attr(&it.el, "b"));
                (same(a, x) && same(b, y)) || (same(a, y) && same(b, x))
            })?;
            return Some(format!(
                "did you mean <{verb}><line a=\"{}\" b=\"{}\" kind=\"{}\"/>? the line between them has that kind",
                attr(&other.el, "a"),
                attr(&other.el, "b"),
                attr(&other.el, "kind")
            ));
        }
        let key = kind.keys().first()?;
        let written = attr(el, key);
        if *key != "name"
            && let Some(it) = self.items[kind.slot()]
                .iter()
                .find(|it| same(attr(&it.el, "name"), written))
        {
            let id = attr(&it.el, key);
            return Some(format!(
                "that is the name of {} '{id}'; <{verb}> names it by its {key}: write {key}=\"{id}\"",
                kind.word()
            ));
        }
        let lower = written.trim().to_lowercase();
        KINDS.iter().find_map(|&(other, element)| {
            let key = other.keys().first()?;
            let found = other != kind
                && other != ItemKind::Step
                && self.items[other.slot()]
                    .iter()
                    .any(|it| key_of(other, &it.el) == lower);
            found.then(|| {
                format!(
                    "'{written}' is a {} here, not a {}: did you mean <{verb}><{element} {key}=\"{written}\"/>?",
                    other.word(),
                    kind.word()
                )
            })
        })
    }

    fn apply_to_step(&mut self, cx: &mut Ctx<'_>, change: Change) {
        let verb = if change.remove { "remove" } else { "patch" };
        let key = key_of(ItemKind::Step, &change.el);
        let Some(calendar) = self.items[ItemKind::Calendar.slot()].first_mut() else {
            cx.error(
                change.el.pos,
                format!("no calendar below to {verb} a step of"),
                None,
            );
            return;
        };
        let mut ids = Vec::new();
        for part in &mut calendar.el.children {
            if part.name != "player-turn" && part.name != "turn-end" {
                continue;
            }
            let found = part
                .children
                .iter()
                .position(|s| s.name == "step" && key_of(ItemKind::Step, s) == key);
            if let Some(i) = found {
                if change.remove {
                    part.children.remove(i);
                    self.removed.push((ItemKind::Step, key, change.el.pos));
                } else {
                    let step = &mut part.children[i];
                    if let Err((pos, name)) = patch_element(step, &change.el, ItemKind::Step.keys())
                    {
                        report_unset(cx, ItemKind::Step, step, pos, &name);
                    }
                }
                calendar.value = None;
                return;
            }
            ids.extend(
                part.children
                    .iter()
                    .filter(|s| s.name == "step")
                    .map(|s| shown_key(ItemKind::Step, s)),
            );
        }
        let shown = shown_key(ItemKind::Step, &change.el);
        cx.error(
            change.el.pos,
            format!("no step '{shown}' to {verb} in the calendar below"),
            suggest::did_you_mean(&shown, ids.iter().map(String::as_str)),
        );
    }

    /// The merged items as the compiler's [`Parts`], reading again what was patched,
    /// and what was removed (to explain the compiler's errors).
    pub fn into_parts(self, cx: &mut Ctx<'_>) -> (Parts, Removals) {
        let removals = Removals {
            removed: self
                .removed
                .iter()
                .map(|(kind, key, pos)| (*kind, key.clone(), cx.files.locate(*pos)))
                .collect(),
            patched: self
                .patched
                .iter()
                .map(|(kind, key, pos)| (*kind, key.clone(), cx.files.locate(*pos)))
                .collect(),
            patched_keys: self.patched_keys,
        };
        let mut parts = Parts {
            scripts: self.scripts,
            map_size: self.map_size,
            map_neutral_color: self.map_neutral_color,
            map_background: self.map_background,
            map_backdrop: self.map_backdrop,
            ..Parts::default()
        };
        for ((kind, _), items) in KINDS.into_iter().zip(self.items) {
            for item in items {
                let value = match item.value {
                    Some(v) => Some(v),
                    None => read_value(cx, kind, &item.el),
                };
                match value {
                    Some(Value::Side(v)) => parts.sides.push(v),
                    Some(Value::Resource(v)) => parts.resources.push(v),
                    Some(Value::Tally(v)) => parts.tallies.push(v),
                    Some(Value::Seat(v)) => parts.seats.push(v),
                    Some(Value::LineKind(v)) => parts.kinds.push(v),
                    Some(Value::Tag(v)) => parts.tags.push(v),
                    Some(Value::Box(v)) => parts.boxes.push(v),
                    Some(Value::Line(v)) => parts.lines.push(v),
                    Some(Value::Named(v)) => match kind {
                        ItemKind::Class => parts.classes.push(v),
                        ItemKind::Quality => parts.qualities.push(v),
                        ItemKind::Flag => parts.flags.push(v),
                        ItemKind::BoxValue => parts.box_values.push(v),
                        _ => parts.markers.push(v),
                    },
                    Some(Value::Unit(v)) => parts.units.push(v),
                    Some(Value::Option(v)) => parts.options.push(v),
                    Some(Value::Table(v)) => parts.tables.push(v),
                    Some(Value::Scenario(v)) => parts.scenarios.push(v),
                    Some(Value::Calendar(v)) => parts.calendar = Some(v),
                    None => {}
                }
            }
        }
        (parts, removals)
    }
}

/// The items overlays removed and patched: the kind, the key, where.
#[derive(Debug, Default)]
pub(crate) struct Removals {
    removed: Vec<(ItemKind, String, Location)>,
    patched: Vec<(ItemKind, String, Location)>,
    patched_keys: Vec<String>,
}

/// Whether `text` names `key` as a word of its own (`8 Vi (Veteran Infantry)`, `'Vi'`).
fn names_word(text: &str, key: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    text.match_indices(key).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(word)
            && !text[i + key.len()..].chars().next().is_some_and(word)
    })
}

impl Removals {
    /// Each removal, for `Module::removed`: the kind's word, the key, where.
    pub fn removed(&self) -> Vec<crate::module::Removed> {
        self.removed
            .iter()
            .map(|(kind, key, at)| crate::module::Removed {
                kind: kind.word().to_string(),
                element: kind.element().to_string(),
                key: key.clone(),
                at: at.clone(),
            })
            .collect()
    }

    /// Each patch, as [`Removals::removed`] gives removals (the key as items are
    /// matched: a line's is its two boxes and kind, lower-cased).
    pub fn patched(&self) -> Vec<crate::module::Removed> {
        self.patched
            .iter()
            .zip(&self.patched_keys)
            .map(|((kind, _, at), key)| crate::module::Removed {
                kind: kind.word().to_string(),
                element: kind.element().to_string(),
                key: key.clone(),
                at: at.clone(),
            })
            .collect()
    }

    /// Moves an error the modules below report about an item an overlay patched (a
    /// counter mix a scenario of the base exceeds, say) to the `<patch>`: the base was
    /// valid before it, so the patch is where the mistake is. The base's place is kept in
    /// the message.
    pub fn blame_patches(&self, diagnostics: &mut [Diagnostic]) {
        for d in diagnostics {
            let Some(loc) = d.location.clone() else {
                continue;
            };
            // An error in the patching module's own files is its own.
            let own = |at: &Location| {
                at.file
                    .parent()
                    .is_some_and(|dir| loc.file.starts_with(dir))
            };
            let Some((kind, key, at)) = self
                .patched
                .iter()
                .find(|(_, key, at)| !own(at) && names_word(&d.message, key))
            else {
                continue;
            };
            d.message = format!(
                "this <patch> of {} '{key}' makes the modules below invalid: {loc}: {}",
                kind.word(),
                d.message
            );
            d.location = Some(at.clone());
        }
    }

    /// Adds to the compiler's "unknown box 'X'" (and the like) where `X` was removed by
    /// an overlay, so a dangling reference names the removal.
    pub fn explain_dangling(&self, diagnostics: &mut [Diagnostic]) {
        for d in diagnostics {
            for (kind, key, at) in &self.removed {
                // An option's `balance` names a side too.
                let words: &[&str] = match kind {
                    ItemKind::Side => &["side", "balance"],
                    other => &[other.word()],
                };
                let Some(rest) = words
                    .iter()
                    .find_map(|w| d.message.strip_prefix(&format!("unknown {w} '")))
                else {
                    continue;
                };
                let named = rest.strip_suffix('\'').unwrap_or(rest).to_lowercase();
                if named.trim() == key.as_str() {
                    d.hint = Some(format!(
                        "it was removed at {at}; remove or patch what still names it"
                    ));
                }
            }
        }
    }
}

fn report_unset(cx: &mut Ctx<'_>, kind: ItemKind, el: &xml::Element, pos: Pos, name: &str) {
    let shown = shown_key(kind, el);
    cx.error(
        pos,
        format!("{} '{shown}' has no '{name}' to unset", kind.word()),
        None,
    );
}

/// Checks one item written inside `<remove>`/`<patch>`.
fn check_change(cx: &mut Ctx<'_>, remove: bool, el: xml::Element) -> Option<Change> {
    let verb = if remove { "remove" } else { "patch" };
    let Some(kind) = ItemKind::from_element(&el.name) else {
        let names = KINDS.map(|(_, name)| name);
        let hint = suggest::did_you_mean(&el.name, names.iter().copied())
            .or_else(|| Some(format!("name one of <{}>", names.join(">, <"))));
        let message = format!("<{verb}> cannot hold <{}>", el.name);
        cx.error(el.pos, message, hint);
        return None;
    };
    let mut ok = true;
    for key in kind.keys() {
        if !el.attrs.iter().any(|a| a.name == *key) {
            let keys = kind.keys().join("\", \"");
            cx.error(
                el.pos,
                format!("<{}> in <{verb}> is missing '{key}'", el.name),
                Some(format!("a {} is named by \"{keys}\"", kind.word())),
            );
            ok = false;
        }
    }
    let extra = el
        .attrs
        .iter()
        .find(|a| !kind.keys().contains(&a.name.as_str()));
    if remove {
        if let Some(a) = extra {
            cx.error(
                a.pos,
                format!(
                    "<remove> names a {} by its key; '{}' is not part of it",
                    kind.word(),
                    a.name
                ),
                Some(format!("write only {}", kind.keys().join(", "))),
            );
            ok = false;
        }
        if let Some(c) = el.children.first() {
            let message = format!("<remove> takes no <{}> inside <{}>", c.name, el.name);
            cx.error(c.pos, message, None);
            ok = false;
        }
    } else if let Some((a, names)) = unset_names(&el) {
        let bad = names
            .iter()
            .find(|n| kind.keys().contains(n) || el.attrs.iter().any(|other| other.name == **n));
        if names.is_empty() || bad.is_some() {
            let message = match bad {
                Some(n) if kind.keys().contains(n) => {
                    format!("'{n}' names the {}; it cannot be unset", kind.word())
                }
                Some(n) => format!("'{n}' is both set and unset by this patch"),
                None => "unset=\"\" lists no attribute".to_string(),
            };
            let hint = Some("unset lists the attributes to drop, e.g. unset=\"owner tags\"".into());
            cx.error(a.value_pos, message, hint);
            ok = false;
        }
    } else if extra.is_none() && el.children.is_empty() {
        cx.error(
            el.pos,
            format!("this <patch> of a {} changes nothing", kind.word()),
            Some("write the attributes (or child elements) to change".into()),
        );
        ok = false;
    }
    ok.then_some(Change { remove, kind, el })
}

/// The patch attribute listing attributes to drop (`unset="owner tags"`); no item has
/// an attribute of that name.
const UNSET: &str = "unset";

/// The attribute names a patch's `unset` lists.
fn unset_names(patch: &xml::Element) -> Option<(&xml::Attr, Vec<&str>)> {
    let a = patch.attrs.iter().find(|a| a.name == UNSET)?;
    Some((a, a.value.split_whitespace().collect()))
}

/// Applies a patch's attributes (other than the key) and children to `target`: each
/// attribute replaces the one of that name or is added, those named by `unset` are
/// dropped; children replace all of the target's children of their name. Errs with
/// an attribute to unset that the target does not have.
fn patch_element(
    target: &mut xml::Element,
    patch: &xml::Element,
    keys: &[&str],
) -> Result<(), (Pos, String)> {
    if let Some((a, names)) = unset_names(patch) {
        for name in names {
            let Some(i) = target.attrs.iter().position(|t| t.name == name) else {
                return Err((a.value_pos, name.to_string()));
            };
            target.attrs.remove(i);
        }
    }
    for a in patch
        .attrs
        .iter()
        .filter(|a| !keys.contains(&a.name.as_str()) && a.name != UNSET)
    {
        match target.attrs.iter_mut().find(|t| t.name == a.name) {
            Some(t) => *t = a.clone(),
            None => target.attrs.push(a.clone()),
        }
    }
    let mut names: Vec<&str> = patch.children.iter().map(|c| c.name.as_str()).collect();
    names.dedup();
    target
        .children
        .retain(|c| !names.contains(&c.name.as_str()));
    target.children.extend(patch.children.iter().cloned());
    Ok(())
}

fn attr<'a>(el: &'a xml::Element, name: &str) -> &'a str {
    el.attrs
        .iter()
        .find(|a| a.name == name)
        .map_or("", |a| a.value.as_str())
}

/// The key an item is matched by, ignoring case (and a line's direction).
fn key_of(kind: ItemKind, el: &xml::Element) -> String {
    let lower = |n: &str| attr(el, n).trim().to_lowercase();
    match kind {
        ItemKind::Line => {
            let (a, b) = (lower("a"), lower("b"));
            let (a, b) = if a <= b { (a, b) } else { (b, a) };
            format!("{a}\u{0}{b}\u{0}{}", lower("kind"))
        }
        ItemKind::Calendar => String::new(),
        _ => lower(kind.keys()[0]),
    }
}

/// The key as a message shows it: `Cairo`, `Cairo-Paducah (railroad)`.
fn shown_key(kind: ItemKind, el: &xml::Element) -> String {
    match kind {
        ItemKind::Line => format!("{}-{} ({})", attr(el, "a"), attr(el, "b"), attr(el, "kind")),
        ItemKind::Calendar => String::new(),
        _ => attr(el, kind.keys()[0]).to_string(),
    }
}

/// Merges items by key: an item with the key of an item below replaces it (in its
/// place); anything else is added (so a duplicate within one module stays a duplicate
/// and is reported by the compiler).
fn merge_by_key(base: &mut Vec<Item>, own: Vec<Item>) {
    let originals = base.len();
    let mut replaced = vec![false; originals];
    for item in own {
        let Some(kind) = ItemKind::from_element(&item.el.name) else {
            base.push(item);
            continue;
        };
        let k = key_of(kind, &item.el);
        let slot = (0..originals).find(|&i| !replaced[i] && key_of(kind, &base[i].el) == k);
        match slot {
            Some(i) => {
                base[i] = item;
                replaced[i] = true;
            }
            None => base.push(item),
        }
    }
}

/// Reads a patched item's element into its typed value.
fn read_value(cx: &mut Ctx<'_>, kind: ItemKind, el: &xml::Element) -> Option<Value> {
    Some(match kind {
        ItemKind::Side => Value::Side(deserialize(cx, el)?),
        ItemKind::Resource => Value::Resource(deserialize(cx, el)?),
        ItemKind::Tally => Value::Tally(deserialize(cx, el)?),
        ItemKind::Seat => Value::Seat(deserialize(cx, el)?),
        ItemKind::LineKind => Value::LineKind(deserialize(cx, el)?),
        ItemKind::Tag => Value::Tag(deserialize(cx, el)?),
        ItemKind::Box => Value::Box(deserialize(cx, el)?),
        ItemKind::Line => Value::Line(deserialize(cx, el)?),
        ItemKind::Class
        | ItemKind::Quality
        | ItemKind::Marker
        | ItemKind::Flag
        | ItemKind::BoxValue => Value::Named(deserialize(cx, el)?),
        ItemKind::Unit => Value::Unit(deserialize(cx, el)?),
        ItemKind::Option => Value::Option(deserialize(cx, el)?),
        ItemKind::Table => Value::Table(deserialize(cx, el)?),
        ItemKind::Scenario => Value::Scenario(deserialize(cx, el)?),
        ItemKind::Calendar | ItemKind::Step => Value::Calendar(deserialize(cx, el)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_follow_the_kinds_in_order() {
        for (i, (kind, _)) in KINDS.into_iter().enumerate() {
            assert_eq!(kind.slot(), i);
            assert_eq!(ItemKind::from_element(kind.element()), Some(kind));
        }
    }
}
