//! The validation panel: the engine's diagnostics for the module as edited, one per
//! line in the `file:line:col: severity: message` form `muster check` prints. A
//! diagnostic that points at a box or a line of the map is a link that selects it.

use egui::{RichText, Ui};

use crate::command::{Selection, UiCommand};
use crate::document::Document;

pub fn show(ui: &mut Ui, doc: &Document, out: &mut Vec<UiCommand>) {
    let validation = doc.validation();
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
                match d.location.as_ref().and_then(|at| doc.object_at(at)) {
                    Some(object) => {
                        let what = match object {
                            Selection::Box(_) => "box",
                            Selection::Line(_) => "line",
                        };
                        if ui
                            .link(text)
                            .on_hover_text(format!("select this {what}"))
                            .clicked()
                        {
                            out.push(UiCommand::Select(Some(object)));
                        }
                    }
                    None => {
                        ui.label(text);
                    }
                }
            }
        });
}
