//! Lending engine state to scripts for one call, through scoped userdata.

use crate::common;

use common::*;
use muster_scripting::mlua::{self, IntoLuaMulti, UserData, UserDataMethods};
use muster_scripting::{Answer, ScriptError, ScriptValue};

/// Engine state the scripts may look at but not keep.
struct Board {
    strength: Vec<i64>,
}

impl UserData for Board {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("strength", |_, this, i: i64| {
            let i = muster_scripting::rust_index(i);
            Ok(i.and_then(|i| this.strength.get(i)).copied().unwrap_or(0))
        });
    }
}

const RULES: &str = r#"
local kept = nil
hooks.on("bonus", function(board, box)
    kept = board
    return board:strength(box)
end)
hooks.on("limit", function()
    return kept:strength(1)
end)
hooks.on("on_turn", function(board)
    return { { kind = "reinforce", amount = board:strength(2) * 2 } }
end)
hooks.on("ping", function() return true end)
"#;

#[test]
fn borrowed_state_is_usable_during_the_call_only() {
    let mut sb = load(RULES).expect("load");
    let board = Board {
        strength: vec![5, 7, 9],
    };
    let answer = sb
        .question_with("bonus", None, |lua, scope| {
            let view = scope.create_userdata_ref(&board)?;
            (view, 2).into_lua_multi(lua)
        })
        .expect("bonus");
    assert_eq!(answer, Answer::Int(7));

    // The script kept the view; using it after the call is a clean error.
    match sb.question("limit", ()) {
        Err(ScriptError::Runtime { hook, message, .. }) => {
            assert_eq!(hook, "limit");
            assert!(message.contains("destructed"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_usable(&mut sb);

    // The engine's state changes between calls; a new view sees it.
    let board = Board {
        strength: vec![1, 2, 3],
    };
    let commands = sb
        .event_with("on_turn", None, |lua, scope| {
            scope.create_userdata_ref(&board)?.into_lua_multi(lua)
        })
        .expect("on_turn");
    assert_eq!(commands[0].fields["amount"], ScriptValue::Int(4));
    drop(board);
}

#[test]
fn errors_while_building_arguments_are_reported() {
    let mut sb = load(RULES).expect("load");
    let err = sb
        .question_with("bonus", None, |_, _| {
            Err(mlua::Error::runtime("no view today"))
        })
        .expect_err("build failed");
    assert!(err.to_string().contains("no view today"), "{err}");
    assert_usable(&mut sb);
}
