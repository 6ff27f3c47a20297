//! Overlays that remove and patch their base's items, and stacks of mods
//! (`load_stack`): each test writes small overlay modules next to a copy of the mini
//! fixture and checks what loads, or the exact one-line diagnostics.

use std::path::{Path, PathBuf};

use muster_core::format::Expires;
use muster_core::{LoadError, Module, load_module, load_stack};
use muster_test_support::copy_dir;
use tempfile::TempDir;

const MINI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini");

/// A temporary folder holding a copy of the mini fixture at `<tmp>/mini`.
struct Workspace {
    tmp: TempDir,
}

impl Workspace {
    fn new() -> Self {
        let tmp = tempfile::tempdir().expect("temp dir");
        copy_dir(Path::new(MINI), &tmp.path().join("mini"));
        Self { tmp }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.tmp.path().join(name)
    }

    /// Writes module `id` (a sibling of mini) with `extends` and `requires` lines in its
    /// manifest and one included file per `(name, text)`.
    fn module(&self, id: &str, version: &str, head: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = self.path(id);
        std::fs::create_dir_all(&dir).expect("module folder");
        let includes: String = files
            .iter()
            .map(|(name, _)| format!("  <include file=\"{name}\"/>\n"))
            .collect();
        let manifest = format!(
            "<module id=\"{id}\" name=\"{id}\" version=\"{version}\" engine=\"0.1\">\n{head}\n{includes}</module>\n"
        );
        std::fs::write(dir.join("module.xml"), manifest).expect("manifest");
        for (name, text) in files {
            std::fs::write(dir.join(name), text).expect("module file");
        }
        dir
    }

    /// The rendered diagnostics of a load that must fail, paths relative to the folder.
    fn errors(&self, result: Result<Module, LoadError>) -> Vec<String> {
        let e = result.expect_err("the load must fail");
        let root = format!("{}/", self.tmp.path().display());
        e.diagnostics
            .iter()
            .map(|d| d.to_string().replace(&root, ""))
            .collect()
    }
}

const EXTENDS_MINI: &str = r#"  <extends module="mini"/>"#;

/// An overlay that adds one item of every kind to mini, each unreferenced by the base.
const EXTRA_MAP: &str = r#"<map>
  <line-kind id="trail" name="Trail"/>
  <box name="Lakeside" x="120" y="150"/>
  <line a="Lakeside" b="Northport" kind="trail"/>
</map>
"#;
const EXTRA_UNITS: &str = r#"<units>
  <class id="artillery" name="Artillery"/>
  <quality id="elite" name="Elite"/>
  <marker id="fort" name="Fort"/>
  <unit id="Ar" name="Artillery" class="artillery" quality="elite" combat="2" steps="1">
    <mix side="north" count="1"/>
  </unit>
</units>
"#;
const EXTRA_SIDES: &str = r#"<sides>
  <resource id="gold" name="Gold"/>
</sides>
"#;
const EXTRA_OPTIONS: &str = r#"<options>
  <option id="night-moves" rule="9.9" title="Night Moves" balance="neutral"/>
</options>
"#;
const EXTRA_SCENARIO: &str =
    r#"<scenario id="skirmish" name="Skirmish" setup="opening" end="10/1861"/>"#;

fn extra_files() -> [(&'static str, &'static str); 5] {
    [
        ("sides.xml", EXTRA_SIDES),
        ("map.xml", EXTRA_MAP),
        ("units.xml", EXTRA_UNITS),
        ("options.xml", EXTRA_OPTIONS),
        ("skirmish.xml", EXTRA_SCENARIO),
    ]
}

/// Removes everything `extra` added, plus a base step, in one `<changes>` file.
const TRIM: &str = r#"<changes>
  <remove>
    <resource id="gold"/>
    <line a="Northport" b="Lakeside" kind="trail"/>
    <line-kind id="trail"/>
    <box name="Lakeside"/>
  </remove>
  <remove>
    <unit id="Ar"/>
    <class id="artillery"/>
    <quality id="elite"/>
    <marker id="fort"/>
    <option id="night-moves"/>
    <scenario id="skirmish"/>
    <step id="combat"/>
  </remove>
</changes>
"#;

#[test]
fn a_stack_of_two_mods_adds_then_removes_every_kind() {
    let ws = Workspace::new();
    let extra = ws.module("extra", "1.0.0", EXTENDS_MINI, &extra_files());
    let trim = ws.module(
        "trim",
        "0.2.0",
        r#"  <extends module="extra"/>"#,
        &[("trim.xml", TRIM)],
    );
    let mini = load_module(ws.path("mini")).expect("mini loads");
    let added = load_stack(ws.path("mini"), &[&extra]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(added.resources.len(), 2);
    assert_eq!(added.board.boxes.len(), 7);
    assert_eq!(added.units.types.len(), 4);
    assert_eq!(added.scenarios.len(), 2);

    let m = load_stack(ws.path("mini"), &[&extra, &trim]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.id, "trim", "the top of the stack names the module");
    assert_eq!(m.extends, ["extra", "mini"]);
    let ids: Vec<(&str, &str)> = m
        .stack
        .iter()
        .map(|e| (e.id.as_str(), e.version.as_str()))
        .collect();
    assert_eq!(
        ids,
        [("mini", "0.1.0"), ("extra", "1.0.0"), ("trim", "0.2.0")]
    );
    assert_eq!(m.stack[0].content_hash, mini.content_hash);
    assert_ne!(m.content_hash, mini.content_hash);
    // Everything extra added is gone, and the base's combat step with it.
    assert_eq!(m.sides.len(), mini.sides.len());
    assert_eq!(m.resources.len(), mini.resources.len());
    assert_eq!(m.board.kinds.len(), mini.board.kinds.len());
    assert_eq!(m.board.boxes.len(), mini.board.boxes.len());
    assert_eq!(m.board.lines.len(), mini.board.lines.len());
    assert_eq!(m.units.classes.len(), mini.units.classes.len());
    assert_eq!(m.units.qualities.len(), mini.units.qualities.len());
    assert_eq!(m.units.markers.len(), mini.units.markers.len());
    assert_eq!(m.units.types.len(), mini.units.types.len());
    assert_eq!(m.options.len(), mini.options.len());
    assert_eq!(m.scenarios.len(), mini.scenarios.len());
    let steps: Vec<&str> = m.calendar.steps.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(steps, ["movement"]);
}

#[test]
fn the_same_stack_loaded_by_extends_is_the_same_module() {
    let ws = Workspace::new();
    let extra = ws.module("extra", "1.0.0", EXTENDS_MINI, &extra_files());
    let by_stack = load_stack(ws.path("mini"), &[&extra]).unwrap_or_else(|e| panic!("{e}"));
    let by_extends = load_module(&extra).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(by_stack.stack, by_extends.stack);
    assert_eq!(by_stack.content_hash, by_extends.content_hash);
    assert_eq!(by_stack.scripts, by_extends.scripts);
}

const PATCH_ALL: &str = r##"<map>
  <patch>
    <line-kind id="road" color="#000000"/>
    <box name="fort stone" owner="north">
      <value id="recruit" side="north" amount="3"/>
    </box>
    <line a="Fort Stone" b="Rivertown" kind="rail" name="Stone Rail"/>
  </patch>
  <remove>
    <line a="Fort Stone" b="Hill Farm" kind="road"/>
  </remove>
</map>
"##;
const PATCH_REST: &str = r#"<changes>
  <patch>
    <side id="north" name="Union"/>
    <resource id="moves" expires="never"/>
    <class id="infantry" name="Foot"/>
    <quality id="green" name="Raw"/>
    <unit id="Vi" combat="4"/>
    <unit id="Gc"><mix side="north" count="5"/><mix side="south" count="1"/></unit>
    <option id="forced-march" default="on"/>
    <scenario id="opening" end="10/1861"/>
    <calendar end="10/1861"/>
    <step id="movement" max-path="3"/>
  </patch>
</changes>
"#;

#[test]
fn patches_change_only_the_attributes_written_for_every_kind() {
    let ws = Workspace::new();
    let house = ws.module(
        "house",
        "0.1.0",
        EXTENDS_MINI,
        &[("map.xml", PATCH_ALL), ("rest.xml", PATCH_REST)],
    );
    let m = load_module(&house).unwrap_or_else(|e| panic!("{e}"));
    let mini = load_module(ws.path("mini")).expect("mini loads");
    let north = m.find_side("north").expect("north");
    assert_eq!(m.side(north).name, "Union");
    assert_eq!(
        m.side(north).color,
        mini.side(north).color,
        "the rest is kept"
    );
    assert_eq!(m.resources[0].expires, Expires::Never);
    assert_eq!(m.board.kinds[0].color.as_deref(), Some("#000000"));
    assert_eq!(m.board.kinds[0].name, "Road");
    let fort = m.board.find("Fort Stone").expect("Fort Stone");
    let fort_box = m.board.get(fort);
    assert_eq!(fort_box.owner, Some(north));
    let recruit = m.board.find_value("recruit").expect("declared");
    assert_eq!(fort_box.value(recruit, north), 3);
    assert_eq!(fort.index(), 3, "a patched box keeps its place (and id)");
    assert!(
        fort_box.has_tag("permanent-entrenchment"),
        "attributes not written stay"
    );
    assert_eq!(m.board.lines.len(), mini.board.lines.len() - 1);
    let rail = m
        .board
        .lines
        .iter()
        .find(|l| l.name.as_deref() == Some("Stone Rail"))
        .expect("patched line");
    assert_eq!(rail.water_border, [false, true], "its water border is kept");
    assert_eq!(m.units.classes[0].name, "Foot");
    assert_eq!(m.units.qualities[0].name, "Raw");
    let vi = m.units.find("Vi").expect("Vi");
    assert_eq!(m.units.get(vi).combat, 4);
    assert_eq!(m.units.get(vi).defense, -1);
    let gc = m.units.find("Gc").expect("Gc");
    assert_eq!(m.units.get(gc).mix_for(north), 5);
    assert_eq!(
        m.units.get(gc).mix,
        [5, 1],
        "children named replace all of theirs"
    );
    assert!(m.options[0].default_on);
    let end = m.calendar.find("10/1861").expect("turn");
    assert_eq!(m.scenarios[0].end, end);
    assert_eq!(m.calendar.end, end);
    assert_eq!(m.calendar.steps[0].max_path, 3);
    assert_eq!(m.calendar.steps[0].name, "Movement");
}

#[test]
fn removing_or_patching_what_is_not_there_says_what_is() {
    let ws = Workspace::new();
    let house = ws.module(
        "house",
        "0.1.0",
        EXTENDS_MINI,
        &[(
            "map.xml",
            r#"<map>
  <remove><box name="Milbrook"/></remove>
  <patch><line a="Northport" b="Millbrook" kind="rail" name="x"/></patch>
  <remove><box name="Millbrook"/><box name="Millbrook"/></remove>
  <patch><step id="movment" repeat="2"/><unit id="Vj" combat="1"/></patch>
</map>
"#,
        )],
    );
    assert_eq!(
        ws.errors(load_module(&house)),
        [
            "house/map.xml:2:11: error: no box 'Milbrook' to remove in the modules below; did you mean 'Millbrook'?",
            "house/map.xml:3:10: error: no line 'Northport-Millbrook (rail)' to patch in the modules below; did you mean <patch><line a=\"Northport\" b=\"Millbrook\" kind=\"road\"/>? the line between them has that kind",
            "house/map.xml:4:34: error: no box 'Millbrook' to remove in the modules below; it was removed at house/map.xml:4:11",
            "house/map.xml:5:10: error: no step 'movment' to patch in the calendar below; did you mean 'movement'?",
            "house/map.xml:5:41: error: no unit type 'Vj' to patch in the modules below; did you mean 'Vi'?",
        ]
    );
}

#[test]
fn a_dangling_reference_names_the_removal() {
    let ws = Workspace::new();
    let house = ws.module(
        "house",
        "0.1.0",
        EXTENDS_MINI,
        &[(
            "units.xml",
            "<units>\n  <remove><unit id=\"Gc\"/></remove>\n</units>\n",
        )],
    );
    let errors = ws.errors(load_module(&house));
    assert_eq!(
        errors,
        [
            "mini/scenarios/opening.xml:9:18: error: unknown unit type 'Gc'; it was removed at house/units.xml:2:11; remove or patch what still names it",
            "mini/scenarios/opening.xml:13:41: error: unknown unit type 'Gc'; it was removed at house/units.xml:2:11; remove or patch what still names it",
        ]
    );
}

#[test]
fn a_patched_value_is_checked_where_the_patch_wrote_it() {
    let ws = Workspace::new();
    let house = ws.module(
        "house",
        "0.1.0",
        EXTENDS_MINI,
        &[(
            "units.xml",
            "<units>\n  <patch><unit id=\"Vi\" combat=\"many\"/></patch>\n</units>\n",
        )],
    );
    assert_eq!(
        ws.errors(load_module(&house)),
        [
            "house/units.xml:2:32: error: 'combat' of <unit> must be a whole number from 0 to 255, found 'many'"
        ]
    );
    let house = ws.module(
        "house2",
        "0.1.0",
        EXTENDS_MINI,
        &[(
            "map.xml",
            "<map>\n  <patch><box name=\"Northport\" owner=\"sout\"/></patch>\n</map>\n",
        )],
    );
    assert_eq!(
        ws.errors(load_module(&house)),
        ["house2/map.xml:2:39: error: unknown side 'sout'; did you mean 'south'?"]
    );
}

#[test]
fn removing_a_side_names_the_removal_where_it_is_still_used() {
    let ws = Workspace::new();
    let house = ws.module(
        "house",
        "0.1.0",
        EXTENDS_MINI,
        &[(
            "sides.xml",
            "<sides>\n  <remove><side id=\"south\"/></remove>\n</sides>\n",
        )],
    );
    let errors = ws.errors(load_module(&house));
    assert!(errors.len() > 3, "{errors:?}");
    let hint = "; it was removed at house/sides.xml:2:11; remove or patch what still names it";
    assert_eq!(
        errors[0],
        format!("mini/map.xml:16:31: error: unknown side 'south'{hint}")
    );
    let sides = errors
        .iter()
        .filter(|e| e.contains("unknown side 'south'") || e.contains("unknown balance 'south'"));
    assert_eq!(sides.clone().count(), errors.len(), "{errors:?}");
    assert!(sides.clone().all(|e| e.ends_with(hint)), "{errors:?}");
}

#[test]
fn malformed_changes_are_located() {
    let ws = Workspace::new();
    let house = ws.module(
        "house",
        "0.1.0",
        EXTENDS_MINI,
        &[
            (
                "map.xml",
                r#"<map>
  <remove what="x"><box name="Northport" owner="north"/></remove>
  <patch><box name="Northport"/><boxx name="a"/><line a="Northport" kind="road" name="x"/></patch>
</map>
"#,
            ),
            (
                "calendar.xml",
                "<calendar start=\"09/1861\" end=\"10/1861\">\n  <remove><step id=\"combat\"/></remove>\n</calendar>\n",
            ),
            ("changes.xml", "<changes>\n  <box name=\"x\" x=\"1\" y=\"1\"/>\n</changes>\n"),
        ],
    );
    let errors = ws.errors(load_module(&house));
    assert_eq!(
        errors[..6],
        [
            "house/map.xml:2:11: error: <remove> takes no attributes; write the item inside it, e.g. <remove><box name=\"...\"/></remove>",
            "house/map.xml:2:42: error: <remove> names a box by its key; 'owner' is not part of it; write only name",
            "house/map.xml:3:10: error: this <patch> of a box changes nothing; write the attributes (or child elements) to change",
            "house/map.xml:3:33: error: <patch> cannot hold <boxx>; did you mean 'box'?",
            "house/map.xml:3:49: error: <line> in <patch> is missing 'b'; a line is named by \"a\", \"b\", \"kind\"",
            "house/calendar.xml:2:3: error: a <calendar> file cannot hold <remove> or <patch>; write them at the top of a <sides>, <map>, <units>, <options>, <tables>, <changes> file",
        ]
    );
    assert!(
        errors.contains(
            &"house/changes.xml:2:3: error: a <changes> file holds only <remove> and <patch>, not <box>; put new items in the file of their kind (<map>, <units>, ...)".to_string()
        ),
        "{errors:?}"
    );
}

#[test]
fn a_module_that_extends_nothing_has_nothing_to_remove() {
    let ws = Workspace::new();
    let lone = ws.module(
        "lone",
        "0.1.0",
        "",
        &[(
            "map.xml",
            "<map>\n  <remove><box name=\"a\"/></remove>\n</map>\n",
        )],
    );
    let errors = ws.errors(load_module(&lone));
    assert_eq!(
        errors[0],
        "lone/map.xml:2:11: error: module 'lone' extends no module, so there is no <box> to remove; add <extends module=\"...\"/> to module.xml, or write the item itself"
    );
}

#[test]
fn requirements_on_the_modules_below() {
    let ws = Workspace::new();
    let ok = ws.module(
        "ok",
        "0.1.0",
        r#"  <extends module="mini"/>
  <requires module="mini" version=">=0.1, &lt;0.2"/>
  <requires module="MINI" version="^0.1"/>"#,
        &[],
    );
    load_module(&ok).unwrap_or_else(|e| panic!("{e}"));
    let too_new = ws.module(
        "too-new",
        "0.1.0",
        r#"  <extends module="mini"/>
  <requires module="mini" version="^0.2"/>"#,
        &[],
    );
    assert_eq!(
        ws.errors(load_module(&too_new)),
        [
            "too-new/module.xml:3:36: error: module 'too-new' requires mini ^0.2, but the mini loaded is version 0.1.0; use a version of 'mini' that matches, or change the requirement"
        ]
    );
    let bad = ws.module(
        "bad",
        "0.1.0",
        r#"  <extends module="mini"/>
  <requires module="mini" version="about 1"/>
  <requires module="minj" version="0.1"/>"#,
        &[],
    );
    let errors = ws.errors(load_module(&bad));
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0]
            .starts_with("bad/module.xml:3:36: error: 'about 1' is not a version requirement: "),
        "{errors:?}"
    );
    assert!(errors[0].ends_with("; write e.g. version=\">=0.1, <0.2\""));
    assert_eq!(
        errors[1],
        "bad/module.xml:4:21: error: module 'bad' requires module 'minj', which is not loaded below it; did you mean 'mini'?"
    );
}

#[test]
fn a_stacked_mod_must_extend_a_module_in_the_stack() {
    let ws = Workspace::new();
    let extra = ws.module("extra", "1.0.0", EXTENDS_MINI, &extra_files());
    let trim = ws.module(
        "trim",
        "0.2.0",
        r#"  <extends module="extra"/>"#,
        &[("trim.xml", TRIM)],
    );
    assert_eq!(
        ws.errors(load_stack(ws.path("mini"), &[&trim, &extra])),
        [
            "trim/module.xml:2:20: error: module 'trim' extends 'extra', which is not in the stack (mini); load 'extra' first (as the base or an earlier --mod)"
        ]
    );
    assert_eq!(
        ws.errors(load_stack(ws.path("mini"), &[&extra, &extra])),
        [
            "extra/module.xml:1:1: error: module 'extra' is already in the stack (mini, extra); give each mod once"
        ]
    );
    assert_eq!(
        ws.errors(load_stack(ws.path("mini"), &[ws.path("mini")])),
        [
            "mini/module.xml:4:1: error: module 'mini' is already in the stack (mini); give each mod once"
        ]
    );
}

#[test]
fn a_new_step_comes_in_with_its_player_turn() {
    let ws = Workspace::new();
    let house = ws.module(
        "house",
        "0.1.0",
        EXTENDS_MINI,
        &[(
            "turn.xml",
            r#"<changes>
  <patch>
    <calendar>
      <player-turn sides="north south">
        <step id="movement" name="Movement" procedure="move" spends="moves"/>
        <step id="levy" name="Levy" procedure="script"/>
        <step id="combat" name="Combat" procedure="battles"/>
      </player-turn>
    </calendar>
  </patch>
</changes>
"#,
        )],
    );
    let m = load_module(&house).unwrap_or_else(|e| panic!("{e}"));
    let steps: Vec<&str> = m.calendar.steps.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(steps, ["movement", "levy", "combat"]);
    assert_eq!(m.calendar.turns.len(), 4, "the track is the base's");
}

#[test]
fn a_patch_unsets_attributes() {
    let ws = Workspace::new();
    let house = ws.module(
        "house",
        "0.1.0",
        EXTENDS_MINI,
        &[(
            "map.xml",
            "<map>\n  <patch><box name=\"Northport\" unset=\"owner tags\" x=\"90\"/></patch>\n</map>\n",
        )],
    );
    let m = load_module(&house).unwrap_or_else(|e| panic!("{e}"));
    let northport = m.board.get(m.board.find("Northport").expect("kept"));
    assert_eq!(northport.owner, None);
    assert!(northport.tags.is_empty(), "no port");
    assert_eq!(northport.x, 90);
    assert_eq!(northport.aliases, ["North Port"]);

    let bad = ws.module(
        "bad",
        "0.1.0",
        EXTENDS_MINI,
        &[(
            "map.xml",
            r#"<map>
  <patch><box name="Millbrook" unset="tags"/></patch>
  <patch><box name="Millbrook" unset="name"/></patch>
  <patch><box name="Millbrook" unset="x" x="3"/></patch>
</map>
"#,
        )],
    );
    assert_eq!(
        ws.errors(load_module(&bad)),
        [
            "bad/map.xml:3:39: error: 'name' names the box; it cannot be unset; unset lists the attributes to drop, e.g. unset=\"owner tags\"",
            "bad/map.xml:4:39: error: 'x' is both set and unset by this patch; unset lists the attributes to drop, e.g. unset=\"owner tags\"",
            "bad/map.xml:2:39: error: box 'Millbrook' has no 'tags' to unset",
        ]
    );
}

/// The kinds the module declares about pieces and boxes (flags, tags, box values,
/// tallies) are items an overlay patches and removes like any other.
#[test]
fn flags_tags_box_values_and_tallies_are_patched_and_removed() {
    let ws = Workspace::new();
    let house = ws.module(
        "house",
        "0.1.0",
        EXTENDS_MINI,
        &[(
            "changes.xml",
            r#"<changes>
  <patch>
    <flag id="entrenched" name="dug in"/>
    <tag id="port" name="Harbour"/>
    <box-value id="recruit" name="Levy"/>
    <tally id="army-maximum" name="levy total"/>
  </patch>
  <remove>
    <tag id="permanent-entrenchment"/>
  </remove>
</changes>
"#,
        )],
    );
    let m = load_module(&house).unwrap_or_else(|e| panic!("{e}"));
    let flag = m.units.find_flag("entrenched").expect("kept");
    assert_eq!(m.units.flags[flag.index()].name, "dug in");
    let port = m.board.tag("port").expect("kept");
    assert_eq!(port.name, "Harbour");
    assert_eq!(
        port.mark,
        Some(muster_core::format::TagMark::CornerDot),
        "attributes not written stay"
    );
    assert!(m.board.tag("permanent-entrenchment").is_none(), "removed");
    assert_eq!(m.board.values[0].name, "Levy");
    let tally = m.find_tally("army-maximum").expect("kept");
    assert_eq!(m.tally(tally).name, "levy total");

    // A box value a tally still sums cannot go: the tally names it.
    let bad = ws.module(
        "bad",
        "0.1.0",
        EXTENDS_MINI,
        &[(
            "changes.xml",
            "<changes>\n  <remove><box-value id=\"recruit\"/></remove>\n</changes>\n",
        )],
    );
    let errors = ws.errors(load_module(&bad));
    assert!(
        errors
            .iter()
            .any(|e| e.contains("unknown box value 'recruit'")
                && e.contains("it was removed at bad/changes.xml")),
        "{errors:?}"
    );
}
