//! Loading and validating the AHD module (issue target: under 20 ms in release).
//!
//! Run with `cargo bench -p muster-core --bench load`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn load_ahd(c: &mut Criterion) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../mods/ahd");
    c.bench_function("load and validate mods/ahd", |b| {
        b.iter(|| black_box(muster_core::load_module(black_box(dir)).expect("ahd loads")))
    });
    // Two mods stacked on AHD (one removes a line and patches a unit type, one widens a
    // rule): the price of stacking, removals, patches and requirements over AHD alone.
    let mods = [
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../mods/examples/no-cairo-rail"
        ),
        concat!(env!("CARGO_MANIFEST_DIR"), "/../mods/examples/rail-raid"),
    ];
    c.bench_function("load and validate mods/ahd with two stacked mods", |b| {
        b.iter(|| {
            black_box(muster_core::load_stack(black_box(dir), &mods).expect("the stack loads"))
        })
    });
    let module = muster_core::load_module(dir).expect("ahd loads");
    c.bench_function("every tally of every side in every scenario", |b| {
        b.iter(|| {
            let mut total = 0;
            for s in &module.scenarios {
                for side in module.side_ids() {
                    for t in module.tally_ids() {
                        total += s.tally(&module, t, side);
                    }
                }
            }
            black_box(total)
        })
    });
}

criterion_group!(benches, load_ahd);
criterion_main!(benches);
