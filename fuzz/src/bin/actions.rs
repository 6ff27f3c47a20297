//! Fuzz target `actions`: see `muster_soak::harness::actions` and docs/fuzzing.md.
fn main() {
    // Before the fork server starts (in `fuzz!`): every child begins with them loaded.
    muster_soak::harness::warm_up();
    afl::fuzz!(|data: &[u8]| {
        if let Err(e) = muster_soak::harness::actions(data) {
            panic!("invariant broken: {e}");
        }
    });
}
