//! Snapshot images of the AHD board with the 1864 setup, at two zooms, rendered by wgpu
//! on a software rasterizer (Mesa's lavapipe, which `.ci/run` installs). They are strict
//! (egui_kittest's defaults: no pixel may differ beyond the colour tolerance), so any
//! change to how the map is drawn fails here until the images are renewed on purpose:
//! `UPDATE_SNAPSHOTS=1 cargo test -p muster-editor --test it snapshot::`, then look at
//! `editor/tests/snapshots/*.png` before committing them.
//!
//! On a developer's machine without a software Vulkan `editor/build.rs` marks the test
//! ignored; under CI it fails. Mesa's OpenGL alone is not enough: wgpu then renders on
//! its GL backend, whose zoomed image differs from lavapipe's by a few pixels.

use crate::common;

use common::{SMALL, ahd, harness};
use egui_kittest::kittest::Queryable;
use muster_editor::command::UiCommand;

#[test]
#[cfg_attr(
    muster_no_soft_vulkan,
    ignore = "needs a software Vulkan (Mesa's lavapipe): apt-get install mesa-vulkan-drivers"
)]
fn the_1864_setup_on_the_whole_board_and_zoomed_on_richmond() {
    let mut h = harness(&ahd(), SMALL);
    h.state_mut()
        .apply(UiCommand::ShowScenario(Some("1864".into())));
    h.run();
    // The setup is what is drawn: Grant's army stands in Washington in 1864 (11.7).
    assert!(
        h.query_all_by_label_contains("(Union) at Washington")
            .next()
            .is_some(),
        "the 1864 Union units are on the map"
    );
    let whole = h.get_by_label("Richmond").rect();
    h.snapshot("map_1864_whole");

    // Zoom in around Richmond as a person would: the pointer over it, a pinch.
    h.hover_at(whole.center());
    h.event(egui::Event::Zoom(3.0));
    h.run();
    let near = h.get_by_label("Richmond").rect();
    assert!(
        near.width() > 2.5 * whole.width(),
        "Richmond grew with the zoom: {whole:?} -> {near:?}"
    );
    assert!(
        (near.center() - whole.center()).length() < 0.1 * whole.width().max(10.0),
        "the zoom kept Richmond under the pointer: {whole:?} -> {near:?}"
    );
    h.snapshot("map_1864_richmond");
}

/// A mod that keeps AHD's board opens on it with its changes marked (issue 45, 7): the
/// box it removes struck through, the railroads it removes faint with a struck mark, the
/// box and river it patches ringed; each says on hover which line of the mod's changes
/// file did it.
#[test]
#[cfg_attr(
    muster_no_soft_vulkan,
    ignore = "needs a software Vulkan (Mesa's lavapipe): apt-get install mesa-vulkan-drivers"
)]
fn a_mods_removals_and_patches_on_its_bases_board() {
    let (tmp, _ahd) = common::ahd_copy();
    let house = tmp.path().join("house");
    std::fs::create_dir_all(&house).unwrap();
    std::fs::write(
        house.join("module.xml"),
        "<module id=\"house\" name=\"House\" version=\"0.1.0\" engine=\"0.1\">\n  <extends module=\"ahd\"/>\n  <include file=\"changes.xml\"/>\n</module>\n",
    )
    .unwrap();
    std::fs::write(
        house.join("changes.xml"),
        "<changes>\n  <remove>\n    <line a=\"Bloomington\" b=\"Vandalia\" kind=\"rail\"/>\n    <line a=\"Bloomington (Illinois)\" b=\"Vandalia\" kind=\"rail\"/>\n    <line a=\"Cairo\" b=\"Vandalia\" kind=\"rail\"/>\n    <line a=\"St. Louis\" b=\"Vandalia\" kind=\"rail\"/>\n    <line a=\"Terre Haute\" b=\"Vandalia\" kind=\"rail\"/>\n    <box name=\"Vandalia\"/>\n  </remove>\n  <patch>\n    <box name=\"Cairo\" state=\"IL\"/>\n    <line a=\"Paducah\" b=\"Cairo\" kind=\"river\" name=\"Ohio River\"/>\n  </patch>\n</changes>\n",
    )
    .unwrap();
    let mut h = harness(&house, SMALL);
    h.ctx.all_styles_mut(|s| s.interaction.tooltip_delay = 0.0);
    h.run();
    let whole = h.get_by_label("Vandalia").rect();
    h.hover_at(whole.center());
    h.event(egui::Event::Zoom(3.0));
    h.run();
    // Hovering the mark on the Cairo-Vandalia railroad says where it was removed.
    let mark = h.get_by_label("removed line Cairo-Vandalia (rail)").rect();
    h.hover_at(mark.center());
    h.run();
    // Named from the mods folder, so the picture does not hold the temporary folder.
    let said = "line Cairo-Vandalia (rail) is removed by the <remove> at house/changes.xml:5:5";
    assert!(
        h.query_by_label_contains(said).is_some(),
        "the hover names the <remove>: {said}"
    );
    assert!(
        h.query_by_label("patched line Cairo-Paducah (river)")
            .is_some()
    );
    h.snapshot("mod_changes_vandalia");
}
