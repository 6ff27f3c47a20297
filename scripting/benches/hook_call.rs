//! Cost of one hook call: a trivial `Sum` question with one and three handlers, the same
//! through scoped userdata (one method call on a borrowed struct), and an event returning
//! one command.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use muster_scripting::mlua::{IntoLuaMulti, UserData, UserDataMethods};
use muster_scripting::{Combine, HookSpec, Limits, Sandbox};

const CATALOGUE: &[HookSpec] = &[
    HookSpec::question("one", Combine::Sum),
    HookSpec::question("three", Combine::Sum),
    HookSpec::question("scoped", Combine::Sum),
    HookSpec::question("none", Combine::Sum),
    HookSpec::event("event"),
];

const RULES: &str = r#"
local function add(a, b) return a + b end
hooks.on("one", add)
for _ = 1, 3 do hooks.on("three", add) end
hooks.on("scoped", function(board, box) return board:strength(box) end)
hooks.on("event", function(a) return { { kind = "move", unit = a, to = 17 } } end)
"#;

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

fn sandbox() -> (tempfile::TempDir, Sandbox) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("rules")).expect("mkdir");
    std::fs::write(dir.path().join("rules/init.luau"), RULES).expect("write");
    let sb = Sandbox::load(
        dir.path(),
        "rules/init.luau",
        CATALOGUE,
        Limits::default(),
        Box::new(|lo, _| lo),
    )
    .expect("load");
    (dir, sb)
}

fn hook_call(c: &mut Criterion) {
    let (_dir, mut sb) = sandbox();
    c.bench_function("sum question, 1 handler", |b| {
        b.iter(|| {
            sb.question("one", (black_box(2), black_box(3)))
                .expect("one")
        })
    });
    c.bench_function("sum question, 3 handlers", |b| {
        b.iter(|| {
            sb.question("three", (black_box(2), black_box(3)))
                .expect("three")
        })
    });
    let board = Board {
        strength: (0..200).collect(),
    };
    c.bench_function("sum question, scoped userdata + 1 method call", |b| {
        b.iter(|| {
            sb.question_with("scoped", None, |lua, scope| {
                let view = scope.create_userdata_ref(&board)?;
                (view, black_box(17)).into_lua_multi(lua)
            })
            .expect("scoped")
        })
    });
    c.bench_function("sum question, no handler", |b| {
        b.iter(|| {
            sb.question("none", (black_box(2), black_box(3)))
                .expect("none")
        })
    });
    c.bench_function("event, 1 handler returning 1 command", |b| {
        b.iter(|| sb.event("event", black_box(3)).expect("event"))
    });
}

criterion_group!(benches, hook_call);
criterion_main!(benches);
