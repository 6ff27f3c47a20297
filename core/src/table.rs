//! Data tables a module writes in XML (`<tables>`) for its rules to read
//! (`defs.tables` in Luau): charts such as a combat results table, or per-year
//! parameters, kept as data where a designer can read and check them against the
//! printed game rather than as Luau literals.

use serde::Serialize;

use crate::diag::Pos;

/// One table: named columns of numbers, one row per key.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DataTable {
    pub id: String,
    pub name: Option<String>,
    pub columns: Vec<String>,
    /// In the order written; every row has one value per column.
    pub rows: Vec<TableRow>,
    #[serde(skip)]
    pub pos: Pos,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TableRow {
    pub key: String,
    pub values: Vec<f64>,
}

impl DataTable {
    /// The value in row `key`, column `column`, if both exist.
    pub fn get(&self, key: &str, column: &str) -> Option<f64> {
        let c = self.columns.iter().position(|x| x == column)?;
        let row = self.rows.iter().find(|r| r.key == key)?;
        row.values.get(c).copied()
    }
}
