//! Fuzz target `save`: see `muster_soak::harness::save` and docs/fuzzing.md.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        if let Err(e) = muster_soak::harness::save(data) {
            panic!("invariant broken: {e}");
        }
    });
}
