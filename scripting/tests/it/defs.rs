//! `defs`: a module's definitions as frozen tables, with the documented numbering.

use crate::common;

use std::collections::BTreeMap;

use common::*;
use muster_scripting::{Answer, ScriptCommand, ScriptValue, box_id, lua_index};

fn report() -> ScriptCommand {
    let (_dir, m) = mini_module();
    let mut sb = mini_sandbox(&m);
    let mut commands = sb.event("on_turn", ()).expect("on_turn");
    assert_eq!(commands.len(), 1);
    commands.remove(0)
}

fn s(x: &str) -> ScriptValue {
    ScriptValue::Str(x.to_string())
}

fn map(v: &ScriptValue) -> &BTreeMap<String, ScriptValue> {
    match v {
        ScriptValue::Map(m) => m,
        other => panic!("not a map: {other:?}"),
    }
}

fn list(v: &ScriptValue) -> &[ScriptValue] {
    match v {
        ScriptValue::List(l) => l,
        other => panic!("not a list: {other:?}"),
    }
}

#[test]
fn sides_boxes_and_names() {
    let c = report();
    assert_eq!(c.kind, "defs");
    assert_eq!(c.get("module"), Some(&s("mini")));
    assert_eq!(list(&c.fields["sides"]), &[s("north"), s("South")]);
    assert_eq!(c.get("south").and_then(ScriptValue::as_int), Some(2));
    assert_eq!(c.get("box_count").and_then(ScriptValue::as_int), Some(6));
    assert_eq!(c.get("line_count").and_then(ScriptValue::as_int), Some(7));
    assert_eq!(c.get("alias").and_then(ScriptValue::as_int), Some(1));

    let np = map(&c.fields["northport"]);
    assert_eq!(np["id"], ScriptValue::Int(1));
    assert_eq!(np["name"], s("Northport"));
    assert_eq!(np["owner"], s("north"));
    assert_eq!(list(&np["tags"]), &[s("port")]);
    assert_eq!(np["x"], ScriptValue::Int(100));
    assert_eq!(list(&np["aliases"]), &[s("North Port")]);
    let recruit = map(&map(&np["values"])["recruit"]);
    assert_eq!(recruit["north"], ScriptValue::Int(2));
    assert_eq!(recruit["south"], ScriptValue::Int(0));
    // Northport's lines: the road to Millbrook (1) and the railroad to Rivertown (2).
    assert_eq!(
        list(&np["lines"]),
        &[ScriptValue::Int(1), ScriptValue::Int(2)]
    );
    assert_eq!(
        list(&np["neighbours"]),
        &[ScriptValue::Int(2), ScriptValue::Int(3)]
    );

    let fort = map(&c.fields["fort"]);
    assert_eq!(fort["id"], ScriptValue::Int(4));
    assert_eq!(
        list(&fort["tags"]),
        &[s("border"), s("permanent-entrenchment")]
    );
}

#[test]
fn lines_units_and_options() {
    let c = report();
    let river = map(&c.fields["river"]);
    assert_eq!(river["id"], ScriptValue::Int(5));
    assert_eq!(river["kind"], s("river"));
    assert_eq!(river["name"], s("Long River"));
    // Rivertown (3) to Southgate (5), flowing to Southgate, water border at Rivertown.
    assert_eq!(river["a"], ScriptValue::Int(3));
    assert_eq!(river["b"], ScriptValue::Int(5));
    assert_eq!(river["downstream"], ScriptValue::Int(5));
    assert_eq!(river["water_border_a"], ScriptValue::Bool(true));
    assert_eq!(river["water_border_b"], ScriptValue::Bool(false));
    assert_eq!(
        list(&c.fields["kinds"]),
        &[s("river"), ScriptValue::Bool(true)]
    );

    let gi = map(&c.fields["gi"]);
    assert_eq!(gi["id"], s("Gi"));
    assert_eq!(gi["index"], ScriptValue::Int(1));
    assert_eq!(gi["name"], s("Green Infantry"));
    assert_eq!(gi["class"], s("infantry"));
    assert_eq!(gi["quality"], s("green"));
    assert_eq!(gi["combat"], ScriptValue::Int(1));
    assert_eq!(gi["steps"], ScriptValue::Int(2));
    assert_eq!(gi["promotes_to"], s("Vi"));
    assert_eq!(gi["advanced"], ScriptValue::Bool(false));
    assert_eq!(map(&gi["mix"])["south"], ScriptValue::Int(3));
    assert_eq!(list(&c.fields["classes"]), &[s("infantry"), s("Veteran")]);

    assert_eq!(
        list(&c.fields["options"]),
        &[s("forced-march"), s("5.1"), s("River Raids")]
    );
}

#[test]
fn numbering_matches_rust_ids() {
    let (_dir, m) = mini_module();
    let mut sb = mini_sandbox(&m);
    let rivertown = m.board.find("Rivertown").expect("Rivertown");
    // The engine passes Lua numbers; scripts index `defs` with them.
    let lua_box = lua_index(rivertown.index());
    assert_eq!(box_id(lua_box), Some(rivertown));
    let a = sb.question("bonus", (lua_box, "south")).expect("bonus");
    assert_eq!(a, Answer::Int(1));
    let a = sb.question("may_enter", (lua_box, 5)).expect("may_enter");
    assert_eq!(a, Answer::Bool(true));
    let a = sb.question("may_enter", (1, 5)).expect("may_enter");
    assert_eq!(a, Answer::Bool(false));
}

#[test]
fn plain_load_has_empty_frozen_defs() {
    let mut sb = load(
        "assert(#defs.boxes == 0 and #defs.sides == 0 and defs.box_by_name.x == nil)\n\
         hooks.on('attack', function() defs.boxes[1] = {} return true end)",
    )
    .expect("load");
    let err = sb.question("attack", ()).expect_err("frozen");
    assert!(err.to_string().contains("readonly"), "{err}");
}
