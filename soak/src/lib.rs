//! Issue 17's robustness tools: the invariants every state keeps ([`invariants`]), the
//! invariant soak that plays many random and `ai` games ([`game`], the `muster-soak`
//! binary), and the bodies of the coverage-guided fuzz targets ([`harness`], wrapped for
//! cargo-afl in `fuzz/`). See docs/fuzzing.md.

pub mod game;
pub mod harness;
pub mod invariants;
