//! Sandboxed Luau runtime for game rules. Empty until the scripting issue lands; see ARCHITECTURE.md.
