//! The egui editor and play client. Empty until the editor issue lands; see ARCHITECTURE.md.
