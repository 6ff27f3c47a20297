//! Fuzz target `module`: see `muster_soak::harness::module` and docs/fuzzing.md.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        if let Err(e) = muster_soak::harness::module(data) {
            panic!("invariant broken: {e}");
        }
    });
}
