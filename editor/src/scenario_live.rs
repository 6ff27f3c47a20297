//! The edited setup as the engine sees it: compiled by the core's own scenario loader,
//! and the army maximum the engine computes from it.
//!
//! The compiled scenario feeds the map overlay and the computed army maximum while the
//! user edits. Its stated army maxima are left out of the text compiled here: placing a
//! unit changes control and so the computed maximum, and a mismatch with the stated one
//! (which the validation panel reports) must not hide the setup being edited.

use std::path::Path;

use muster_core::{Module, Scenario};

use crate::scenario_data::ScenarioData;
use crate::scenario_xml;

/// Compiles `data` (read from `path`) against `module`; `None` if the engine rejects it.
pub fn compile(module: &Module, path: &Path, data: &ScenarioData) -> Option<Scenario> {
    let text = scenario_xml::write_with(data, "", false);
    match muster_core::load::load_scenario_str(module, &path.display().to_string(), &text) {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::debug!(
                errors = e.diagnostics.len(),
                "edited scenario does not compile"
            );
            None
        }
    }
}

/// For a setup the engine rejects: the same setup with the placements it rejects left
/// out, so the map shows every counter but the bad ones. A placement is kept when the
/// setup with it (and the placements kept so far) still compiles; `None` when even the
/// setup without any placement does not. Not for the tallies: a partial setup's army
/// maximum would mislead.
pub fn compile_partial(module: &Module, path: &Path, data: &ScenarioData) -> Option<Scenario> {
    let mut kept = data.clone();
    for side in &mut kept.sides {
        side.places.clear();
    }
    compile(module, path, &kept)?;
    for (s, side) in data.sides.iter().enumerate() {
        for place in &side.places {
            kept.sides[s].places.push(place.clone());
            if compile(module, path, &kept).is_none() {
                kept.sides[s].places.pop();
            }
        }
    }
    compile(module, path, &kept)
}

/// One side's tally (AHD: army maximum): stated in the file, and computed by the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TallyRow {
    /// The tally's id and its name for people.
    pub tally: String,
    pub name: String,
    pub side: String,
    pub stated: Option<u32>,
    /// `None` when the edited setup does not compile.
    pub computed: Option<u32>,
}

/// Every tally of every side, stated and computed, for a scenario being edited. The
/// computed value is the engine's ([`Scenario::tally`], the same the rule scripts read
/// through `game:tally`), never worked out by the editor.
pub fn tallies(module: &Module, data: &ScenarioData, live: Option<&Scenario>) -> Vec<TallyRow> {
    module
        .tally_ids()
        .flat_map(|t| {
            module.side_ids().map(move |side| {
                let id = &module.side(side).id;
                let tally = module.tally(t);
                TallyRow {
                    tally: tally.id.clone(),
                    name: tally.name.clone(),
                    side: id.clone(),
                    stated: data.side(id).and_then(|s| s.stated(&tally.id)),
                    computed: live.map(|s| s.tally(module, t, side)),
                }
            })
        })
        .collect()
}
