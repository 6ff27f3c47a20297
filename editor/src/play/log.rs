//! The game log: what the engine reported, and each action with its side, newest at
//! the bottom.

use egui::Ui;

pub fn show(ui: &mut Ui, lines: &[String]) {
    ui.strong("Game log");
    // One line per row (no wrapping), so `show_rows` only lays out the visible ones.
    egui::ScrollArea::both()
        .id_salt("play-log-scroll")
        .auto_shrink([false, false])
        .stick_to_bottom(true)
        .show_rows(
            ui,
            ui.text_style_height(&egui::TextStyle::Body),
            lines.len(),
            |ui, rows| {
                for line in &lines[rows] {
                    ui.add(egui::Label::new(line).wrap_mode(egui::TextWrapMode::Extend));
                }
            },
        );
}
