//! The validation panel: the engine's diagnostics for the module as edited, one per
//! line in the `file:line:col: severity: message` form `muster check` prints.

use egui::{RichText, Ui};

use crate::validate::Validation;

pub fn show(ui: &mut Ui, validation: &Validation) {
    let errors = validation.errors().count();
    let heading = match errors {
        0 => "Validation: no errors".to_owned(),
        1 => "Validation: 1 error".to_owned(),
        n => format!("Validation: {n} errors"),
    };
    ui.strong(heading);
    egui::ScrollArea::vertical()
        .id_salt("validation-list")
        .max_height(ui.available_height())
        .show(ui, |ui| {
            for d in &validation.diagnostics {
                let text = RichText::new(d.to_string()).monospace();
                let text = match d.severity {
                    muster_core::Severity::Error => text.color(ui.visuals().error_fg_color),
                    muster_core::Severity::Warning => text.color(ui.visuals().warn_fg_color),
                };
                ui.label(text);
            }
        });
}
