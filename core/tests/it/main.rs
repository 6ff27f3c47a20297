//! The crate's integration tests, one module per former test binary: one binary
//! links once (CI time; see ARCHITECTURE.md).

mod backdrop;
mod fingerprint;
mod no_panic;
mod overlays;
mod turn_sequence;
mod validation;
