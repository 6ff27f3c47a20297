//! The map's backdrop (`<backdrop file>` in `<map>`, a file with a `<backdrop>` root):
//! loaded into `Board::backdrop`, and every mistake in it reported where it is written.
//! Also the AHD backdrop itself: the 1861 states fitted to the board's boxes.

use std::path::{Path, PathBuf};

use muster_core::{LoadError, Module, load_module};
use muster_test_support::copy_dir;
use tempfile::TempDir;

const MINI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini");
const AHD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../mods/ahd");
const MAP_OPEN: &str = "<map width=\"600\" height=\"400\">";

/// The mini fixture in a temporary folder with `backdrop` as `art/backdrop.xml`, named
/// by its map.
fn mini_with(backdrop: &str) -> (TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("mini");
    copy_dir(Path::new(MINI), &dir);
    let map = std::fs::read_to_string(dir.join("map.xml")).expect("mini map");
    assert_eq!(map.matches(MAP_OPEN).count(), 1);
    let map = map.replacen(
        MAP_OPEN,
        &format!("{MAP_OPEN}\n  <backdrop file=\"art/backdrop.xml\"/>"),
        1,
    );
    std::fs::write(dir.join("map.xml"), map).expect("write map");
    std::fs::create_dir_all(dir.join("art")).expect("art folder");
    std::fs::write(dir.join("art/backdrop.xml"), backdrop).expect("write backdrop");
    (tmp, dir)
}

/// Each diagnostic as `file:line:col: message; hint`, paths relative to `dir`.
fn errors(dir: &Path, result: Result<Module, LoadError>) -> Vec<String> {
    let err = result.expect_err("the module should not load");
    let root = format!("{}{}", dir.display(), std::path::MAIN_SEPARATOR);
    err.errors()
        .map(|d| d.to_string().replace(&root, "").replace('\\', "/"))
        .collect()
}

const GOOD: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<backdrop>
  <style id="sea" fill="#a9c4d4"/>
  <style id="land" fill="#ede3c8"/>
  <style id="coast" stroke="#5f87a0" width="1.5"/>
  <area name="Sea" style="sea">
    <polygon><ring points="-50,-50 650,-50 650,450 -50,450"/></polygon>
  </area>
  <area name="Island" style="land">
    <polygon>
      <ring points="100,100 300,100 300,300 100,300"/>
      <ring points="150,150 250,150 250,250 150,250"/>
    </polygon>
  </area>
  <path name="shore" style="coast" points="100,100 300,100 300.5,-2e1"/>
</backdrop>
"##;

#[test]
fn a_backdrop_file_is_compiled_into_the_board() {
    let (_tmp, dir) = mini_with(GOOD);
    let module = load_module(&dir).expect("the mini module with a backdrop loads");
    let b = module
        .board
        .backdrop
        .as_ref()
        .expect("the backdrop is there");
    let ids: Vec<_> = b.styles.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["sea", "land", "coast"]);
    assert_eq!(b.styles[0].fill, Some([0xa9, 0xc4, 0xd4]));
    assert_eq!(
        (b.styles[2].stroke, b.styles[2].width),
        (Some([0x5f, 0x87, 0xa0]), 1.5)
    );
    assert_eq!(b.styles[1].width, 1.0, "the width defaults to 1");
    let island = b
        .area("island")
        .expect("areas are found by name, ignoring case");
    assert_eq!(island.style, 1);
    assert_eq!(island.polygons[0].len(), 2, "an outline and a hole");
    assert!(island.contains([120.0, 120.0]));
    assert!(
        !island.contains([200.0, 200.0]),
        "the hole is not in the area"
    );
    assert!(!island.contains([400.0, 200.0]));
    assert_eq!(
        b.paths[0].points,
        [[100.0, 100.0], [300.0, 100.0], [300.5, -20.0]]
    );
    assert_eq!(b.bounds(), Some([[-50.0, -50.0], [650.0, 450.0]]));
}

#[test]
fn a_map_without_a_backdrop_has_none() {
    let module = load_module(MINI).expect("mini loads");
    assert!(module.board.backdrop.is_none());
}

#[test]
fn a_bad_point_is_located_at_its_column() {
    let bad = GOOD.replace("300,100 300.5,-2e1", "300,100 30x,5");
    let (_tmp, dir) = mini_with(&bad);
    let got = errors(&dir, load_module(&dir));
    // Line 15 is the <path>; its points value starts at column 44, "30x,5" 16 further.
    assert_eq!(
        got,
        [
            "art/backdrop.xml:15:60: error: '30x,5' is not a point; write points as x,y in map units, separated by spaces: 10,20 30.5,40"
        ]
    );
}

#[test]
fn unknown_styles_bad_colours_and_short_rings_are_each_located() {
    let bad = GOOD
        .replace("style=\"coast\" points", "style=\"coats\" points")
        .replace("fill=\"#ede3c8\"", "fill=\"tan\"")
        .replace("width=\"1.5\"", "width=\"-1\"")
        .replace(
            "<ring points=\"150,150 250,150 250,250 150,250\"/>",
            "<ring points=\"150,150 250,150\"/>",
        );
    let (_tmp, dir) = mini_with(&bad);
    let got = errors(&dir, load_module(&dir));
    assert_eq!(
        got,
        [
            "art/backdrop.xml:4:26: error: 'tan' is not a colour; write it as #rrggbb, e.g. #a9c4d4",
            "art/backdrop.xml:5:45: error: a backdrop style's width must be a positive number",
            "art/backdrop.xml:12:21: error: a ring needs at least 3 points, this one has 2",
            "art/backdrop.xml:15:29: error: unknown backdrop style 'coats'; did you mean 'coast'?",
        ]
    );
}

#[test]
fn a_missing_file_a_wrong_root_and_broken_xml_are_located() {
    let (_tmp, dir) = mini_with(GOOD);
    std::fs::remove_file(dir.join("art/backdrop.xml")).unwrap();
    let got = errors(&dir, load_module(&dir));
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with("map.xml:4:19: error: backdrop file 'art/backdrop.xml' does not exist"),
        "{got:?}"
    );

    std::fs::write(dir.join("art/backdrop.xml"), "<map/>\n").unwrap();
    let got = errors(&dir, load_module(&dir));
    assert_eq!(
        got,
        [
            "art/backdrop.xml:1:1: error: a backdrop file's root is <backdrop>, not <map>; 'art/backdrop.xml' is named by <backdrop file> in the map"
        ]
    );

    std::fs::write(
        dir.join("art/backdrop.xml"),
        GOOD.replace("</area>\n  <path", "<path"),
    )
    .unwrap();
    let got = errors(&dir, load_module(&dir));
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].starts_with("art/backdrop.xml:"), "{got:?}");

    std::fs::write(
        dir.join("art/backdrop.xml"),
        GOOD.replace("<area name=\"Sea\" style", "<area name=\"Sea\" stlye"),
    )
    .unwrap();
    let got = errors(&dir, load_module(&dir));
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with("art/backdrop.xml:6:") && got[0].contains("stlye"),
        "an unknown attribute is located: {got:?}"
    );

    let (_tmp2, dir2) = mini_with(GOOD);
    let map = std::fs::read_to_string(dir2.join("map.xml")).unwrap();
    std::fs::write(
        dir2.join("map.xml"),
        map.replace("art/backdrop.xml", "../backdrop.xml"),
    )
    .unwrap();
    let got = errors(&dir2, load_module(&dir2));
    assert_eq!(
        got,
        [
            "map.xml:4:19: error: '../backdrop.xml' is not a path inside the module folder; use a path relative to the module folder, without .."
        ]
    );
}

/// The 1861 state each AHD box's `state` attribute names (West Virginia was part of
/// Virginia until 1863).
fn state_1861(abbrev: &str) -> &'static str {
    match abbrev {
        "AL" => "Alabama",
        "AR" => "Arkansas",
        "DC" => "District of Columbia",
        "FL" => "Florida",
        "GA" => "Georgia",
        "IL" => "Illinois",
        "IN" => "Indiana",
        "KY" => "Kentucky",
        "LA" => "Louisiana",
        "MD" => "Maryland",
        "MO" => "Missouri",
        "MS" => "Mississippi",
        "NC" => "North Carolina",
        "NJ" => "New Jersey",
        "NY" => "New York",
        "OH" => "Ohio",
        "PA" => "Pennsylvania",
        "SC" => "South Carolina",
        "TN" => "Tennessee",
        "VA" | "WV" => "Virginia",
        other => panic!("no state {other}"),
    }
}

#[test]
fn ahd_backdrop_puts_nearly_every_box_in_its_1861_state() {
    let module = load_module(AHD).expect("AHD loads");
    let b = module.board.backdrop.as_ref().expect("AHD has a backdrop");
    assert!(b.area("West Virginia").is_none(), "1861: no West Virginia");
    assert!(b.area("Indian Territory").is_some() && b.area("Oklahoma").is_none());
    let outside: Vec<&str> = module
        .board
        .boxes
        .iter()
        .filter(|x| {
            let state = state_1861(x.state.as_deref().expect("every AHD box names its state"));
            let area = b.area(state).unwrap_or_else(|| panic!("no area {state}"));
            !area.contains([x.x as f32, x.y as f32])
        })
        .map(|x| x.name.as_str())
        .collect();
    // The boxes tools/backdrop/README.md names (TripleA's box centres are not
    // geographic: an affine fit leaves a median error of 37 board pixels).
    assert_eq!(
        outside,
        [
            "Atlantic City",
            "Brunswick",
            "Cumberland Gap",
            "Grand Junction",
            "Island No. 10",
            "Norfolk",
            "Wheeling",
            "Wilmington",
        ],
        "boxes outside their state"
    );
    // The backdrop covers the board, with a margin except at the top (Canada's edge,
    // which the data does not hold).
    let [lo, hi] = b.bounds().expect("points");
    assert!(lo[0] < 0.0 && lo[1] == 0.0, "{lo:?}");
    assert!(hi[0] > module.board.width as f32 && hi[1] > module.board.height as f32);
}
