//! The game log: what the engine reported, and each action with its side, newest at
//! the bottom.

use egui::Ui;

/// The colour of the lines the rules logged (a modder's `log` commands), apart from
/// the engine's.
pub const RULE_COLOR: egui::Color32 = egui::Color32::from_rgb(0xd8, 0xa6, 0x3a);

/// `rule_lines`: the indices of the rules' own lines, ascending.
pub fn show(ui: &mut Ui, lines: &[String], rule_lines: &[usize]) {
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
                for i in rows {
                    let mut text = egui::RichText::new(&lines[i]);
                    if rule_lines.binary_search(&i).is_ok() {
                        text = text.color(RULE_COLOR);
                    }
                    ui.add(egui::Label::new(text).wrap_mode(egui::TextWrapMode::Extend));
                }
            },
        );
}
