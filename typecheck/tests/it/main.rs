//! The crate's integration tests, one module per former test binary: one binary
//! links once (CI time; see ARCHITECTURE.md).

mod definitions;
mod strict;
