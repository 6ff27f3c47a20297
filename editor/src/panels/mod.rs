//! The side and top panels around the map.

pub mod line;
pub mod map_props;
pub mod properties;
pub mod scenario;
pub mod toolbar;
pub mod validation;
pub mod workshop;
