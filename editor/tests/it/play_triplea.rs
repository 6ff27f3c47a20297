//! The play client on another module than AHD: the TripleA adaptation (`mods/ahd-triplea`,
//! an overlay of AHD). Its decisions are the engine's procedures in its own words ("buy a
//! march for ...") and its rules' offers (entrenchments bought with PUs), all buttons of
//! the action panel; its resource (PUs) is in the banner.

use crate::common;

use std::path::{Path, PathBuf};

use egui::accesskit::Role;
use egui_kittest::kittest::{Queryable, by};
use muster_core::load_module;

fn triplea() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/ahd-triplea")
}

#[test]
fn the_adaptation_is_played_through_its_own_words_and_offers() {
    let mut h = common::harness(&triplea(), common::LARGE);
    h.run();
    h.get_by_label("Play").click();
    h.run();
    h.get_by_label("1861 Campaign (TripleA)").click();
    h.run();
    common::retype(&mut h, "Seed", "1");
    h.get_by_label("Start").click();
    h.run();
    assert!(
        h.state().play().session().is_some(),
        "{}",
        h.state().play().status()
    );
    // The mods in play: the adaptation on AHD (issue 14: the app lists the mods in use).
    assert!(
        h.query_by_label("Mods: ahd-triplea 0.1.0 on ahd 0.1.0")
            .is_some(),
        "the banner names the mods"
    );
    // The first turn: 2 PUs, shown with the module's name for them.
    assert!(
        h.query_all(by().label_contains("PUs")).next().is_some(),
        "the banner shows the PUs"
    );
    // A march bought for Pittsburgh, in the module's words.
    common::retype(&mut h, "Filter", "buy a march for Pittsburgh");
    h.get_all(by().label("buy a march for Pittsburgh").role(Role::Button))
        .next()
        .expect("the panel offers the march")
        .click();
    h.run();
    // The rules' offer: Pittsburgh recruits, so its entrenchment costs nothing more.
    common::retype(&mut h, "Filter", "entrench");
    let label = "entrench Pittsburgh (1 PU with its march)";
    h.get_all(by().label(label).role(Role::Button))
        .next()
        .unwrap_or_else(|| panic!("the panel offers '{label}'"))
        .click();
    h.run();
    let module = load_module(triplea()).expect("the mod loads");
    let state = common::game_state(&h);
    let marker = module.units.find_marker("entrenchment").expect("declared");
    let pittsburgh = module.board.find("Pittsburgh").expect("a box");
    assert_eq!(
        state.markers_at(pittsburgh, marker),
        1,
        "the offer was taken"
    );
    let pu = module.find_resource("pu").expect("declared");
    let union = module.find_side("union").expect("a side");
    assert_eq!(state.resource(union, pu), 1, "one PU spent on the march");
}
