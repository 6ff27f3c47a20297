//! The map's boxes and the engine's, matched by name: the edited map is indexed by
//! position in the file, the compiled module by `BoxId`. Overlays and the play client
//! both go through it.

use std::collections::HashMap;

use muster_core::Module;
use muster_core::ids::BoxId;

use crate::map_data::MapData;

pub struct BoxIndex {
    /// Per map box index, the engine's box.
    to_engine: Vec<Option<BoxId>>,
    /// Per engine box, the map's index.
    to_doc: HashMap<BoxId, usize>,
}

impl BoxIndex {
    pub fn new(module: &Module, map: &MapData) -> Self {
        let by_name: HashMap<String, BoxId> = module
            .board
            .box_ids()
            .map(|id| (module.board.get(id).name.to_lowercase(), id))
            .collect();
        let to_engine: Vec<Option<BoxId>> = map
            .boxes
            .iter()
            .map(|b| by_name.get(&b.name.to_lowercase()).copied())
            .collect();
        let to_doc = to_engine
            .iter()
            .enumerate()
            .filter_map(|(i, id)| id.map(|id| (id, i)))
            .collect();
        Self { to_engine, to_doc }
    }

    /// The engine's box for map box `i`, if the module knows it.
    pub fn engine(&self, i: usize) -> Option<BoxId> {
        self.to_engine.get(i).copied().flatten()
    }

    /// How many boxes the map has.
    pub fn len(&self) -> usize {
        self.to_engine.len()
    }

    pub fn is_empty(&self) -> bool {
        self.to_engine.is_empty()
    }

    /// The map's index of an engine box.
    pub fn doc(&self, id: BoxId) -> Option<usize> {
        self.to_doc.get(&id).copied()
    }
}
