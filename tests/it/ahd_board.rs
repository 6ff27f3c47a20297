//! The AHD module checked against the Living Rules (`../shared/seeds/000_...txt`):
//! each test cites the rule whose text it checks.

use crate::ahd_terms;
use ahd_terms::ArmyMaximum;

use std::collections::BTreeSet;
use std::sync::OnceLock;

use muster_core::Module;
use muster_core::board::Line;
use muster_core::ids::{BoxId, SideId};

fn ahd() -> &'static Module {
    static M: OnceLock<Module> = OnceLock::new();
    M.get_or_init(muster_test_support::ahd_module)
}

fn id(name: &str) -> BoxId {
    ahd()
        .board
        .find(name)
        .unwrap_or_else(|| panic!("no box {name}"))
}

fn side(name: &str) -> SideId {
    ahd().find_side(name).unwrap()
}

/// The line of `kind` between two boxes, if any.
fn line(a: &str, b: &str, kind: &str) -> Option<&'static Line> {
    let m = ahd();
    let k = m.board.find_kind(kind).unwrap();
    m.board
        .lines_between(id(a), id(b))
        .map(|l| m.board.line(l))
        .find(|l| l.kind == k)
}

fn kinds_between(a: &str, b: &str) -> BTreeSet<String> {
    let m = ahd();
    m.board
        .lines_between(id(a), id(b))
        .map(|l| m.board.kinds[m.board.line(l).kind.index()].id.clone())
        .collect()
}

fn names(ids: impl IntoIterator<Item = BoxId>) -> BTreeSet<String> {
    ids.into_iter()
        .map(|b| ahd().board.get(b).name.clone())
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn board_size_matches_the_tables() {
    let m = ahd();
    assert_eq!(m.board.boxes.len(), 129);
    assert_eq!(m.board.lines.len(), 232);
    let count = |k: &str| {
        let k = m.board.find_kind(k).unwrap();
        m.board.lines.iter().filter(|l| l.kind == k).count()
    };
    assert_eq!(
        (count("rail"), count("river"), count("road")),
        (142, 30, 60)
    );
}

/// 10.0: the seven Confederate Recruitment Cities with a value of 2 or 3.
#[test]
fn rule_10_0_seven_confederate_cities_of_value_2_or_3() {
    let csa = side("confederate");
    let m = ahd();
    let big = names(
        m.board
            .box_ids()
            .filter(|&b| ahd_terms::recruit_value(m, m.board.get(b), csa) >= 2),
    );
    assert_eq!(
        big,
        set(&[
            "New Orleans",
            "Mobile",
            "Atlanta",
            "Memphis",
            "Charleston (South Carolina)",
            "Wilmington",
            "Richmond"
        ])
    );
    assert_eq!(
        ahd_terms::recruit_value(m, m.board.get(id("Richmond")), csa),
        3
    );
}

/// 4.3 (and 1.3): the four Permanent Entrenchment locations.
#[test]
fn rule_4_3_four_permanent_entrenchments() {
    let m = ahd();
    let forts = names(
        m.board
            .box_ids()
            .filter(|&b| m.board.get(b).has_tag("permanent-entrenchment")),
    );
    assert_eq!(
        forts,
        set(&["Washington", "Richmond", "Fort Monroe", "Vicksburg"])
    );
}

/// 4.3 example: Cincinnati is a Recruitment City (entrench for one March), Manassas
/// Jct. is not (two Marches).
#[test]
fn rule_4_3_recruitment_city_examples() {
    let m = ahd();
    assert!(ahd_terms::is_recruitment_city(
        m,
        m.board.get(id("Cincinnati"))
    ));
    assert!(!ahd_terms::is_recruitment_city(
        m,
        m.board.get(id("Manassas Jct."))
    ));
}

/// 7.0: Cairo recruits for whichever side controls it; 7.1: neutral Louisville raises
/// the army maximum of whoever captures it first.
#[test]
fn rules_7_0_and_7_1_cairo_and_louisville_recruit_for_both_sides() {
    let m = ahd();
    let (usa, csa) = (side("union"), side("confederate"));
    for city in ["Cairo", "Louisville"] {
        let b = m.board.get(id(city));
        assert!(
            ahd_terms::recruit_value(m, b, usa) > 0 && ahd_terms::recruit_value(m, b, csa) > 0,
            "{city}"
        );
    }
    assert_eq!(
        m.board.get(id("Louisville")).owner,
        None,
        "Louisville is neutral"
    );
    assert_eq!(m.board.get(id("Cairo")).owner, Some(usa));
}

/// 8.0: the tan (neutral) boxes are exactly those in Kentucky.
#[test]
fn rule_8_0_kentucky_is_exactly_the_tan_boxes() {
    let m = ahd();
    let tan = names(
        m.board
            .box_ids()
            .filter(|&b| m.board.get(b).owner.is_none()),
    );
    let kentucky = names(
        m.board
            .box_ids()
            .filter(|&b| m.board.get(b).has_tag("kentucky")),
    );
    assert_eq!(tan, kentucky);
    assert_eq!(
        kentucky,
        set(&[
            "Bowling Green",
            "Glasgow",
            "Lebanon",
            "Lexington",
            "London",
            "Louisville",
            "Munfordville",
            "Paducah"
        ])
    );
}

/// 4.2: the Potomac is the river connecting Washington and Fredericksburg.
#[test]
fn rule_4_2_the_potomac() {
    let m = ahd();
    let potomac: Vec<&Line> = m
        .board
        .lines
        .iter()
        .filter(|l| l.name.as_deref() == Some("Potomac"))
        .collect();
    assert_eq!(potomac.len(), 1);
    let l = potomac[0];
    assert!(l.joins(id("Washington"), id("Fredericksburg")));
    assert_eq!(m.board.kinds[l.kind.index()].id, "river");
    assert_eq!(
        kinds_between("Washington", "Fredericksburg"),
        set(&["river"])
    );
}

/// 4.0 movement example: Shreveport-Monroe by road, Monroe-Vicksburg and onward to
/// Jackson by rail, Vicksburg-Natchez-Alexandria two boxes by river, and Vicksburg to
/// McComb two boxes by rail (through Jackson).
#[test]
fn rule_4_0_movement_example_connections() {
    assert_eq!(kinds_between("Shreveport", "Monroe"), set(&["road"]));
    assert_eq!(kinds_between("Monroe", "Vicksburg"), set(&["rail"]));
    assert_eq!(kinds_between("Vicksburg", "Jackson"), set(&["rail"]));
    assert!(line("Vicksburg", "Natchez", "river").is_some());
    assert!(line("Natchez", "Alexandria", "river").is_some());
    assert!(
        kinds_between("Vicksburg", "Alexandria").is_empty(),
        "two boxes apart"
    );
    assert!(line("Jackson", "McComb", "rail").is_some());
    assert!(
        kinds_between("Shreveport", "Vicksburg").is_empty(),
        "the cavalry moved two boxes"
    );
}

/// 4.5 example (with 4.4): rails Fts H&D-Humbolt-Corinth and Fts H&D-Nashville-Decatur;
/// the river Decatur -> Pittsburg Landing -> Fts H&D flows north, so going through
/// Pittsburg Landing from Fts H&D is going up river; and a non-river line Pittsburg
/// Landing-Corinth.
#[test]
fn rule_4_5_jump_move_example_connections() {
    let fhd = "Forts Henry and Donelson";
    assert!(line(fhd, "Humbolt", "rail").is_some());
    assert!(line("Humbolt", "Corinth", "rail").is_some());
    assert!(line(fhd, "Nashville", "rail").is_some());
    assert!(line("Nashville", "Decatur", "rail").is_some());
    let up1 = line(fhd, "Pittsburg Landing", "river").unwrap();
    let up2 = line("Pittsburg Landing", "Decatur", "river").unwrap();
    assert_eq!(up1.downstream, Some(id(fhd)));
    assert_eq!(up2.downstream, Some(id("Pittsburg Landing")));
    assert_eq!(
        up1.is_downstream_to(id("Pittsburg Landing")),
        Some(false),
        "up river"
    );
    let pl_corinth = kinds_between("Pittsburg Landing", "Corinth");
    assert!(
        !pl_corinth.is_empty() && !pl_corinth.contains("river"),
        "{pl_corinth:?}"
    );
}

/// 4.6: Baltimore is a Port; 4.71 implies Yorktown, Norfolk and Fort Monroe are ports.
#[test]
fn rules_4_6_and_4_71_ports() {
    let m = ahd();
    for port in ["Baltimore", "Yorktown", "Norfolk", "Fort Monroe"] {
        assert!(m.board.get(id(port)).has_tag("port"), "{port}");
    }
    assert_eq!(
        m.board.boxes.iter().filter(|b| b.has_tag("port")).count(),
        17
    );
}

/// 5.34: "Unless attacked from the north or west, moving against enemy units in Selma
/// would mean attacking across a river."
#[test]
fn rule_5_34_selma_water_borders() {
    let m = ahd();
    let selma = id("Selma");
    let crossing_from = |from: &str| {
        m.board
            .lines_between(id(from), selma)
            .map(|l| m.board.line(l).crosses_water_border_into(selma))
            .collect::<Vec<_>>()
    };
    for south_or_east in ["Mobile", "Montgomery"] {
        let c = crossing_from(south_or_east);
        assert!(
            !c.is_empty() && c.iter().all(|&x| x),
            "{south_or_east}: {c:?}"
        );
    }
    for north_or_west in ["Tuscaloosa", "Meridian"] {
        let c = crossing_from(north_or_west);
        assert!(
            !c.is_empty() && c.iter().all(|&x| !x),
            "{north_or_west}: {c:?}"
        );
    }
}

/// St. Louis's water borders face Illinois (Quincy, Springfield Ill., Vandalia), not
/// Missouri (TripleA game notes on AHD; rule 5.34 says only some sides are blue).
#[test]
fn rule_5_34_st_louis_water_borders() {
    let m = ahd();
    let stl = id("St. Louis");
    let crosses = |from: &str| {
        m.board
            .lines_between(id(from), stl)
            .any(|l| m.board.line(l).crosses_water_border_into(stl))
    };
    for east in ["Quincy", "Springfield, Ill.", "Vandalia"] {
        assert!(crosses(east), "{east}");
    }
    for west in ["Cairo", "Ironton", "Rolla", "Jefferson City", "Macon, Mo."] {
        assert!(
            m.board.lines_between(id(west), stl).count() > 0,
            "{west} is adjacent"
        );
        assert!(!crosses(west), "{west}");
    }
}

/// 5.7 example: Confederate cavalry go from Fts H&D through Paducah to Cairo by river,
/// crossing Cairo's water border; Vandalia, St. Louis, Paducah and Humbolt are adjacent
/// to Cairo (they reinforce the battle).
#[test]
fn rule_5_7_comprehensive_combat_example_connections() {
    let m = ahd();
    let cairo = id("Cairo");
    let fhd_paducah = line("Forts Henry and Donelson", "Paducah", "river").unwrap();
    let paducah_cairo = line("Paducah", "Cairo", "river").unwrap();
    assert!(fhd_paducah.downstream.is_some() && paducah_cairo.downstream.is_some());
    assert!(paducah_cairo.crosses_water_border_into(cairo));
    for neighbour in ["Vandalia", "St. Louis", "Paducah", "Humbolt"] {
        assert!(
            m.board
                .neighbours(cairo)
                .iter()
                .any(|&(b, _)| b == id(neighbour)),
            "{neighbour}"
        );
    }
}

/// 4.5: rivers flow one way; every river line names its downstream end.
#[test]
fn rule_4_5_every_river_has_a_direction() {
    let m = ahd();
    let river = m.board.find_kind("river").unwrap();
    for l in m.board.lines.iter().filter(|l| l.kind == river) {
        let d = l.downstream.expect("river without direction");
        assert!(d == l.a || d == l.b);
    }
    // The Mississippi runs down to New Orleans.
    let l = line("Baton Rouge", "New Orleans", "river").unwrap();
    assert_eq!(l.downstream, Some(id("New Orleans")));
    let l = line("St. Louis", "Cairo", "river").unwrap();
    assert_eq!(l.downstream, Some(id("Cairo")));
}

/// Game Piece Inventory and 2.0 step 1: the counter mix, advanced pieces flagged.
#[test]
fn game_piece_inventory() {
    let m = ahd();
    let (usa, csa) = (side("union"), side("confederate"));
    let mix = |t: &str| {
        let u = m.units.get(m.units.find(t).unwrap());
        (u.mix_for(usa), u.mix_for(csa), u.advanced)
    };
    assert_eq!(mix("Mi"), (24, 8, false));
    assert_eq!(mix("Vi"), (20, 20, false));
    assert_eq!(mix("Ci"), (9, 9, false));
    assert_eq!(mix("Mc"), (1, 1, false));
    assert_eq!(mix("Vc"), (8, 8, false));
    assert_eq!(mix("Cc"), (4, 4, false));
    assert_eq!(mix("Leader"), (2, 1, true));
    assert_eq!(mix("Foreign Intervention"), (0, 4, true));
    assert_eq!(mix("Border Militia Infantry"), (0, 3, true));
    // 5.1, 5.31, 5.32: combat values; 5.32: Crack Infantry's defensive value -1.
    let unit = |t: &str| m.units.get(m.units.find(t).unwrap());
    assert_eq!(unit("Vc").combat, 2);
    assert_eq!(unit("Vi").combat, 3);
    assert_eq!((unit("Ci").combat, unit("Ci").defense), (3, -1));
    // 6.0: Militia -> Veteran -> Crack, same class.
    assert_eq!(unit("Mi").promotes_to, m.units.find("Vi"));
    assert_eq!(unit("Vc").promotes_to, m.units.find("Cc"));
    assert_eq!(unit("Cc").promotes_to, None);
}

/// 3.0, 9.0, 9.1: 40 turns from 07/1861 to 06/1865, extendable to 11-12/1865 (turn 45),
/// with two-month winter turns; the Union plays first; four segments.
#[test]
fn rules_3_0_and_9_0_calendar_and_sequence() {
    let m = ahd();
    let cal = &m.calendar;
    assert_eq!(cal.turn(cal.end).label, "06/1865");
    assert_eq!(cal.end.index() + 1, 40);
    assert_eq!(cal.turns.len(), 45);
    assert_eq!(cal.turns[0].label, "07/1861");
    assert_eq!(cal.turns[44].label, "11-12/1865");
    assert_eq!(
        cal.turns[1].label, "08/1861",
        "3.0 example: 07 then 08 (August) 1861"
    );
    assert!(
        cal.find("01/02/1862").is_some(),
        "9.1 writes winter turns as 01/02"
    );
    assert_eq!(cal.sides, vec![side("union"), side("confederate")]);
    let segments: Vec<&str> = cal.steps.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(segments, ["movement", "combat", "promotion", "recruitment"]);
}

/// 1.2: 15 optional rules, six pro-Union, five pro-Confederate, four neutral; all off.
/// The catalogue also holds 11.3's optional sudden-death check, a neutral scenario rule.
#[test]
fn rule_1_2_optional_rules_catalogue() {
    let m = ahd();
    assert_eq!(m.options.len(), 16);
    let sudden = m.find_option("11.3").expect("11.3's sudden death");
    assert_eq!(m.options[sudden.index()].id, "sudden-death");
    assert!(
        m.options[sudden.index()]
            .description
            .as_deref()
            .is_some_and(|d| d.contains("scenario rule"))
    );
    let by = |s: Option<SideId>| {
        let mut r: Vec<&str> = m
            .options
            .iter()
            .filter(|o| o.favours == s)
            .map(|o| o.rule.as_str())
            .collect();
        r.sort_unstable();
        r
    };
    assert_eq!(
        by(Some(side("union"))),
        ["10.1", "4.9", "5.41", "7.4", "7.5", "9.1"]
    );
    assert_eq!(
        by(Some(side("confederate"))),
        ["4.11", "4.12", "4.71", "6.2", "7.3"]
    );
    assert_eq!(by(None), ["11.3", "4.8", "5.2", "5.71", "6.1"]);
    assert!(m.options.iter().all(|o| !o.default_on));
    assert!(m.find_option("4.9").is_some() && m.find_option("union-rail-bonus").is_some());
}

/// 2.0 and 7.1: the 1861 setup and its army maxima, computed from the map.
#[test]
fn rule_2_0_the_1861_campaign_setup() {
    let m = ahd();
    let s = m.scenario("1861").unwrap();
    let (usa, csa) = (side("union"), side("confederate"));
    let mi = m.units.find("Mi").unwrap();
    let mc = m.units.find("Mc").unwrap();
    let on_board = |sd: SideId| -> u32 {
        s.side(sd)
            .unwrap()
            .placements
            .iter()
            .map(|p| u32::from(p.count))
            .sum()
    };
    assert_eq!(on_board(usa), 12);
    assert_eq!(on_board(csa), 8);
    assert!(
        s.sides
            .iter()
            .all(|x| x.placements.iter().all(|p| p.unit == mi)),
        "only Militia Infantry"
    );
    assert_eq!(s.side(usa).unwrap().set_aside, vec![(mi, 12)], "step 5");
    assert_eq!(s.side(usa).unwrap().pool, vec![(mc, 1)], "step 6");
    assert_eq!(s.side(csa).unwrap().pool, vec![(mc, 1)], "step 6");
    let washington = s
        .side(usa)
        .unwrap()
        .placements
        .iter()
        .find(|p| p.at == id("Washington"))
        .unwrap();
    assert_eq!(washington.count, 2);
    assert_eq!(m.calendar.turn(s.start).label, "07/1861");
    // 2.0 step 4 / 7.1: 34 and 29.
    assert_eq!(s.army_maximum(m, usa), 34);
    assert_eq!(s.army_maximum(m, csa), 29);
}

/// 2.0 step 4 and 11.5-11.7: army maxima computed from the map and each setup's control
/// (never copied from the stated values).
#[test]
fn rules_11_5_to_11_7_army_maxima_are_computed() {
    let m = ahd();
    let (usa, csa) = (side("union"), side("confederate"));
    let expected = [
        ("1861", 34, 29),
        ("1862", 35, 27),
        ("1863", 35, 23),
        ("1864", 36, 20),
    ];
    for (id, u, c) in expected {
        let s = m.scenario(id).unwrap();
        assert_eq!(
            (s.army_maximum(m, usa), s.army_maximum(m, csa)),
            (u, c),
            "{id}"
        );
        let army = m.find_tally("army-maximum").unwrap();
        assert_eq!(s.side(usa).unwrap().stated, [(army, u)]);
        assert_eq!(s.side(csa).unwrap().stated, [(army, c)]);
    }
    // The computation is the map's: the 1861 maxima are the recruitment values over
    // the original owners' boxes.
    let by_colour = |sd: SideId| -> u32 {
        m.board
            .boxes
            .iter()
            .filter(|b| b.owner == Some(sd))
            .map(|b| u32::from(ahd_terms::recruit_value(m, b, sd)))
            .sum()
    };
    assert_eq!((by_colour(usa), by_colour(csa)), (34, 29));
}

/// 11.6 and 11.7 state how far over their maxima the sides start.
#[test]
fn rules_11_6_and_11_7_units_over_the_maximum() {
    let m = ahd();
    let (usa, csa) = (side("union"), side("confederate"));
    let on_board = |id: &str, sd: SideId| -> u32 {
        m.scenario(id)
            .unwrap()
            .side(sd)
            .unwrap()
            .placements
            .iter()
            .map(|p| u32::from(p.count))
            .sum()
    };
    assert_eq!(on_board("1863", usa), 35 + 2, "11.6: two units over");
    assert_eq!(on_board("1864", csa), 20 + 3, "11.7: three units over");
    // 11.7 says the Union is nine over 36, which counts its two leaders (Advanced
    // Game pieces, left out here): 43 units.
    assert_eq!(on_board("1864", usa), 43);
}

/// 11.2: the 1862-64 scenarios start in April; 11.1: the Short Game lasts 10 turns.
#[test]
fn rules_11_1_and_11_2_scenario_dates() {
    let m = ahd();
    let label = |t| m.calendar.turn(t).label.clone();
    for (id, start) in [
        ("1862", "04/1862"),
        ("1863", "04/1863"),
        ("1864", "04/1864"),
    ] {
        let s = m.scenario(id).unwrap();
        assert_eq!(label(s.start), start);
        assert_eq!(label(s.end), "06/1865");
    }
    let short = m.scenario("1861-short").unwrap();
    assert_eq!(
        (label(short.start), label(short.end)),
        ("07/1861".into(), "06/1862".into())
    );
    assert_eq!(short.end.index() - short.start.index() + 1, 10);
}

/// 11.5-11.7 entrenchment asterisks and control markers.
#[test]
fn scenario_entrenchments_and_control_markers() {
    let m = ahd();
    let (usa, csa) = (side("union"), side("confederate"));
    let s = m.scenario("1862").unwrap();
    let manassas = s
        .side(csa)
        .unwrap()
        .placements
        .iter()
        .filter(|p| p.at == id("Manassas Junction"));
    let units: u16 = manassas.clone().map(|p| p.count).sum();
    assert_eq!(units, 4);
    let entrenched = m.units.find_flag("entrenched").unwrap();
    assert!(manassas.into_iter().all(|p| p.flags.has(entrenched)));
    let control = s.initial_control(m);
    for b in [
        "Louisville",
        "Paducah",
        "Forts Henry and Donelson",
        "Sedalia",
        "Jefferson City",
    ] {
        assert_eq!(control[id(b).index()], Some(usa), "{b}");
    }
    let s64 = m.scenario("1864").unwrap();
    assert_eq!(s64.initial_control(m)[id("Pensacola").index()], Some(csa));
    // 1863 needs 15 entrenchment markers (its "note about markers").
    let s63 = m.scenario("1863").unwrap();
    let entrenched_boxes: BTreeSet<(usize, BoxId)> = s63
        .sides
        .iter()
        .enumerate()
        .flat_map(|(i, sd)| {
            sd.placements
                .iter()
                .filter(|p| p.flags.has(entrenched))
                .map(move |p| (i, p.at))
        })
        .collect();
    assert_eq!(entrenched_boxes.len(), 15);
}
