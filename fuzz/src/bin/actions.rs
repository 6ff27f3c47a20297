//! Fuzz target `actions`: see `muster_soak::harness::actions` and docs/fuzzing.md.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        if let Err(e) = muster_soak::harness::actions(data) {
            panic!("invariant broken: {e}");
        }
    });
}
