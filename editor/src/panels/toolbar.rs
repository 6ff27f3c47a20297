//! The top bar: undo, redo, save, the map tool, and the scenario shown on the map.

use egui::Ui;

use crate::command::{Tool, UiCommand};
use crate::document::Document;

/// A scenario the user can show: id and display name.
pub struct ScenarioChoice {
    pub id: String,
    pub name: String,
}

pub fn show(
    ui: &mut Ui,
    doc: &Document,
    tool: &Tool,
    scenarios: &[ScenarioChoice],
    shown: Option<&str>,
    status: &str,
    out: &mut Vec<UiCommand>,
) {
    ui.horizontal_wrapped(|ui| {
        let undo = ui.add_enabled(doc.undo_label().is_some(), egui::Button::new("Undo"));
        let undo = match doc.undo_label() {
            Some(l) => undo.on_hover_text(format!("Undo {l} (Ctrl+Z)")),
            None => undo,
        };
        if undo.clicked() {
            out.push(UiCommand::Undo);
        }
        let redo = ui.add_enabled(doc.redo_label().is_some(), egui::Button::new("Redo"));
        let redo = match doc.redo_label() {
            Some(l) => redo.on_hover_text(format!("Redo {l} (Ctrl+Shift+Z)")),
            None => redo,
        };
        if redo.clicked() {
            out.push(UiCommand::Redo);
        }
        if ui.button("Save").on_hover_text("Save (Ctrl+S)").clicked() {
            out.push(UiCommand::Save {
                drop_comments: false,
            });
        }
        if doc.is_dirty() {
            ui.weak("(unsaved changes)");
        }
        if ui
            .button("Open module…")
            .on_hover_text("Switch to another module folder")
            .clicked()
        {
            out.push(UiCommand::OpenModuleDialog);
        }
        ui.separator();
        if ui
            .selectable_label(*tool == Tool::Select, "Select")
            .clicked()
        {
            out.push(UiCommand::SetTool(Tool::Select));
        }
        if ui
            .selectable_label(*tool == Tool::AddBox, "Add box")
            .clicked()
        {
            out.push(UiCommand::SetTool(Tool::AddBox));
        }
        for kind in &doc.map().kinds {
            let active = matches!(tool, Tool::AddLine { kind: k, .. } if *k == kind.id);
            if ui
                .selectable_label(active, format!("Add {}", kind.name.to_lowercase()))
                .on_hover_text("Click the first box, then the second (downstream for a river)")
                .clicked()
            {
                out.push(UiCommand::SetTool(Tool::AddLine {
                    kind: kind.id.clone(),
                    from: None,
                }));
            }
        }
        ui.separator();
        let shown_name = shown
            .and_then(|id| scenarios.iter().find(|s| s.id == id))
            .map_or("bare map", |s| s.name.as_str());
        let label = ui.label("Scenario");
        let combo = egui::ComboBox::from_id_salt("scenario")
            .selected_text(shown_name)
            .show_ui(ui, |ui| {
                if ui.selectable_label(shown.is_none(), "bare map").clicked() {
                    out.push(UiCommand::ShowScenario(None));
                }
                for s in scenarios {
                    if ui
                        .selectable_label(shown == Some(s.id.as_str()), &s.name)
                        .clicked()
                    {
                        out.push(UiCommand::ShowScenario(Some(s.id.clone())));
                    }
                }
            });
        let _ = combo.response.labelled_by(label.id);
    });
    crate::play::toolbar::status_line(ui, status);
}
