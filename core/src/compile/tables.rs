//! `<table>` elements compiled into [`DataTable`]s, every mistake located: a row with
//! too few or too many values, a value that is not a number, a duplicate row or column,
//! a row left out of the declared `rows` range.

use super::Ctx;
use crate::format;
use crate::names::NameIndex;
use crate::table::{DataTable, TableRow};

pub(super) fn tables(cx: &mut Ctx<'_>, raw: &[format::TableDef]) -> Vec<DataTable> {
    let mut out: Vec<DataTable> = Vec::new();
    let mut ids = NameIndex::default();
    for t in raw {
        if ids.insert(&t.id, out.len()).is_err() {
            let hint = out
                .iter()
                .find(|x| x.id.eq_ignore_ascii_case(&t.id))
                .and_then(|x| cx.first_at(x.pos));
            cx.error(t.id.pos, format!("duplicate table '{}'", t.id.value), hint);
            continue;
        }
        let columns: Vec<String> = t.columns.split_whitespace().map(str::to_string).collect();
        if columns.is_empty() {
            cx.error(
                t.columns.pos,
                format!("table '{}' names no columns", t.id.value),
                Some("write the column ids separated by spaces: columns=\"a b\"".into()),
            );
        }
        for (i, c) in columns.iter().enumerate() {
            if columns[..i].contains(c) {
                cx.error(
                    t.columns.pos,
                    format!("table '{}' names column '{c}' twice", t.id.value),
                    None,
                );
            }
        }
        let mut rows: Vec<TableRow> = Vec::new();
        for r in &t.row {
            let key = r.key.value.trim().to_string();
            if rows.iter().any(|x| x.key == key) {
                cx.error(
                    r.key.pos,
                    format!("table '{}' has row '{key}' twice", t.id.value),
                    None,
                );
                continue;
            }
            let mut values = Vec::new();
            let mut ok = true;
            for (i, word) in r.values.split_whitespace().enumerate() {
                match word.parse::<f64>() {
                    Ok(v) if v.is_finite() => values.push(v),
                    _ => {
                        let column = columns.get(i).map_or("beyond the last", |c| c.as_str());
                        cx.error(
                            r.values.pos,
                            format!(
                                "table '{}', row '{key}', column '{column}': '{word}' is not a number",
                                t.id.value
                            ),
                            Some("write numbers such as 3, -1 or 0.5".into()),
                        );
                        ok = false;
                    }
                }
            }
            if ok && values.len() != columns.len() {
                cx.error(
                    r.values.pos,
                    format!(
                        "table '{}', row '{key}' has {} values for {} columns ({})",
                        t.id.value,
                        values.len(),
                        columns.len(),
                        columns.join(" ")
                    ),
                    Some("write one number per column, separated by spaces".into()),
                );
                ok = false;
            }
            if ok {
                rows.push(TableRow { key, values });
            }
        }
        if let Some(range) = &t.rows {
            match parse_range(range) {
                Some((first, last)) => {
                    let missing: Vec<String> = (first..=last)
                        .map(|k| k.to_string())
                        .filter(|k| !t.row.iter().any(|r| r.key.value.trim() == k))
                        .collect();
                    if !missing.is_empty() {
                        cx.error(
                            t.pos,
                            format!(
                                "table '{}' declares rows {first}-{last} but has no row {}",
                                t.id.value,
                                missing.join(", ")
                            ),
                            Some(format!("add <row key=\"{}\" values=\"...\"/>", missing[0])),
                        );
                    }
                }
                None => cx.error(
                    range.pos,
                    format!("rows=\"{}\" is not a range FIRST-LAST", range.value),
                    Some("write rows=\"1-20\", the first key not above the last".into()),
                ),
            }
        }
        out.push(DataTable {
            id: t.id.value.clone(),
            name: t.name.clone(),
            columns,
            rows,
            pos: t.pos,
        });
    }
    out
}

/// `FIRST-LAST` with FIRST <= LAST, both integers.
fn parse_range(s: &str) -> Option<(i64, i64)> {
    let (a, b) = s.trim().split_once('-')?;
    let (a, b) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    (a <= b).then_some((a, b))
}
