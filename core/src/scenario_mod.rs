//! A scenario as a mod of its own: a folder that extends the module and adds one
//! scenario, with what a scenario's author writes beside the setup (a description, the
//! designer's notes, each side's briefing, the scenario's special rules), so the base
//! stays untouched and the scenario is shared as one folder. Written by `muster new-mod
//! --scenario` and by the editor's "New scenario", read back by the editor.
//!
//! The files are plain: the notes and briefings are Markdown the loader never reads, the
//! rules a Luau file guarded by the scenario's id (`game:scenario()`), so they apply in
//! this scenario only even when the mod is stacked under others.

use std::path::Path;

use crate::module::Module;

/// The metadata and setup of a scenario's mod.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScenarioMod {
    /// The mod's id, which is also the scenario's (and names the folder).
    pub id: String,
    /// The scenario's name for people.
    pub name: String,
    pub description: String,
    /// The designer's notes (Markdown): sources, intent, what was tested.
    pub notes: String,
    /// Each side's briefing (Markdown), by side id, in the module's side order.
    pub briefings: Vec<(String, String)>,
    /// The scenario file's text, its root's id and name already this mod's
    /// ([`rename_scenario`]).
    pub scenario_xml: String,
}

/// Where the files of a scenario's mod live inside its folder.
pub const NOTES_FILE: &str = "NOTES.md";
pub const BRIEFINGS_DIR: &str = "briefings";
pub const RULES_FILE: &str = "rules/scenario.luau";

/// The scenario file's path inside the mod.
pub fn scenario_file(id: &str) -> String {
    format!("scenarios/{id}.xml")
}

/// Why a scenario's text could not be renamed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct RenameError(String);

/// `text` with its root `<scenario>`'s `id` (and, if given, `name`) set, everything else
/// (comments, layout) as written.
pub fn rename_scenario(text: &str, id: &str, name: Option<&str>) -> Result<String, RenameError> {
    let start = find_root(text).ok_or_else(|| {
        RenameError("the text has no <scenario> element: is it a scenario file?".into())
    })?;
    let end = text[start..]
        .find('>')
        .map(|e| start + e)
        .ok_or_else(|| RenameError("the <scenario> tag is not closed".into()))?;
    let mut tag = text[start..end].to_string();
    tag = set_attr(&tag, "id", id);
    if let Some(name) = name {
        tag = set_attr(&tag, "name", name);
    }
    Ok(format!("{}{tag}{}", &text[..start], &text[end..]))
}

/// The byte offset of the root `<scenario` tag, past the prolog and comments.
fn find_root(text: &str) -> Option<usize> {
    let mut i = 0;
    while let Some(rel) = text[i..].find('<') {
        let at = i + rel;
        let rest = &text[at..];
        if rest.starts_with("<!--") {
            i = at + rest.find("-->")? + 3;
        } else if rest.starts_with("<?") {
            i = at + rest.find("?>")? + 2;
        } else if rest.starts_with("<scenario")
            && rest[9..].starts_with(|c: char| c.is_whitespace() || c == '>' || c == '/')
        {
            return Some(at);
        } else {
            return None;
        }
    }
    None
}

/// Sets `key="value"` in a start tag (replacing its value, or adding it after the
/// element's name).
fn set_attr(tag: &str, key: &str, value: &str) -> String {
    let escaped = xml_attr(value);
    let bytes = tag.as_bytes();
    let mut search = 0;
    while let Some(rel) = tag[search..].find(key) {
        let at = search + rel;
        let before_ok = at > 0 && bytes[at - 1].is_ascii_whitespace();
        let after = tag[at + key.len()..].trim_start();
        if before_ok && after.starts_with('=') {
            let after_eq = after[1..].trim_start();
            let quote = after_eq.chars().next();
            if let Some(q @ ('"' | '\'')) = quote {
                let value_start = tag.len() - after_eq.len() + 1;
                if let Some(close) = tag[value_start..].find(q) {
                    return format!(
                        "{}{key}=\"{escaped}\"{}",
                        &tag[..at],
                        &tag[value_start + close + 1..]
                    );
                }
            }
        }
        search = at + key.len();
    }
    let name_end = "<scenario".len();
    format!(
        "{} {key}=\"{escaped}\"{}",
        &tag[..name_end],
        &tag[name_end..]
    )
}

fn xml_attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn xml_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `^MAJOR.MINOR` of a version (`0.1.0` → `^0.1`): the base versions this mod was made
/// for, which `<requires>` checks.
fn requirement(version: &str) -> String {
    let mut parts = version.split('.');
    let major = parts.next().unwrap_or("0");
    let minor = parts.next().unwrap_or("0");
    format!("^{major}.{minor}")
}

/// The files of the mod, relative to its folder, with their text. `base_path` is the
/// base module's folder relative to the mod's (`../ahd`); `folder` how a reader reaches
/// the mod's folder (for the README's commands).
pub fn files(
    base: &Module,
    base_path: &str,
    folder: &str,
    m: &ScenarioMod,
) -> Vec<(String, String)> {
    let mut out = vec![
        ("module.xml".to_string(), manifest(base, base_path, m)),
        (scenario_file(&m.id), m.scenario_xml.clone()),
        (NOTES_FILE.to_string(), notes(m)),
        (RULES_FILE.to_string(), rules(base, m)),
        ("tests/scenario.luau".to_string(), test(m, folder)),
        ("README.md".to_string(), readme(base, folder, m)),
    ];
    for side in &base.sides {
        let text = m
            .briefings
            .iter()
            .find(|(s, _)| s.eq_ignore_ascii_case(&side.id))
            .map_or_else(
                || {
                    format!(
                        "# {} briefing\n\nWhat {} knows and wants at the start.\n",
                        side.name, side.name
                    )
                },
                |(_, t)| t.clone(),
            );
        out.push((format!("{BRIEFINGS_DIR}/{}.md", side.id), text));
    }
    out
}

fn manifest(base: &Module, base_path: &str, m: &ScenarioMod) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- {name}: a scenario of {base_name}, as a mod of its own. Its designer's notes are in
     NOTES.md, the sides' briefings in briefings/, its special rules in
     {RULES_FILE}. -->
<module id="{id}" name="{name_attr}" version="0.1.0" engine="{engine}">
  <description>{description}</description>
  <extends module="{base_id}" path="{base_path}"/>
  <requires module="{base_id}" version="{req}"/>
  <include file="{file}"/>
  <rules entry="{RULES_FILE}"/>
</module>
"#,
        name = comment(&m.name),
        base_name = comment(&base.name),
        id = m.id,
        name_attr = xml_attr(&m.name),
        engine = xml_attr(&base.engine),
        description = xml_text(&m.description),
        base_id = xml_attr(&base.id),
        base_path = xml_attr(base_path),
        req = requirement(&base.version),
        file = scenario_file(&m.id),
    )
}

fn comment(s: &str) -> String {
    s.replace("--", "- -")
}

fn notes(m: &ScenarioMod) -> String {
    if m.notes.trim().is_empty() {
        format!(
            "# {}: designer's notes\n\nWhy this scenario, its sources, what was changed from the \
             printed setup and what play-testing showed (`muster balance`, the editor's Balance…).\n",
            m.name
        )
    } else {
        m.notes.clone()
    }
}

/// The scenario's special rules: one handler, guarded by the scenario's id, that changes
/// nothing until the author makes it.
fn rules(base: &Module, m: &ScenarioMod) -> String {
    let step = base
        .calendar
        .steps
        .first()
        .map_or("movement", |s| s.id.as_str());
    format!(
        r#"--!strict
-- The special rules of scenario "{id}" ({name}), added to those of {base_id}, which
-- load first. Each handler returns at once in any other scenario, so stacking this mod
-- under another changes nothing else. The API: docs/luau-api.md in muster's repository.

local SCENARIO = "{id}"

-- Called when each step begins ("{step}" is the first of a player turn): return
-- commands to change the game, or nil to leave it as it is.
hooks.on("step_started", function(game: Game, step: string): {{ Command }}?
	if game:scenario() ~= SCENARIO then
		return nil
	end
	-- For example, a rule of this scenario's first turn only:
	-- if game:turn() == game:first_turn() and step == "{step}" then ... end
	return nil
end, {{ id = "{id}.step-started" }})
"#,
        id = m.id,
        name = m.name.replace('\n', " "),
        base_id = base.id,
    )
}

fn test(m: &ScenarioMod, folder: &str) -> String {
    format!(
        r#"-- Tests of scenario "{id}": `muster test {folder}` runs them on the mod and its base.

test.case("the scenario starts with a decision to make", function(t)
	local g = t:game({{ scenario = "{id}", seed = 1 }})
	t:eq(g:outcome(), nil)
	t:ok(#g:legal() > 0, "something to decide: " .. g:situation())
end)
"#,
        id = m.id
    )
}

fn readme(base: &Module, folder: &str, m: &ScenarioMod) -> String {
    format!(
        r#"# {name}

{description}

A scenario of {base_name} (`{base_id}`), as a mod of its own: the base's data and rules
with this scenario added, so the base stays untouched and the scenario is shared as this
one folder.

- `{file}`: the setup (open the folder in muster's editor to change it).
- `{NOTES_FILE}`: the designer's notes; `{BRIEFINGS_DIR}/`: each side's briefing.
- `{RULES_FILE}`: the scenario's special rules (they apply in this scenario only).

```sh
muster check {folder}
muster play {folder} --scenario {id}
muster balance {folder} --scenario {id} --games 100
```
"#,
        name = m.name,
        description = m.description,
        base_name = base.name,
        base_id = base.id,
        id = m.id,
        file = scenario_file(&m.id),
    )
}

/// Why a scenario's mod could not be written.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error("{0} exists already: choose another id (nothing was written)")]
    Exists(String),
    #[error(
        "'{0}' is not a scenario mod's id: use lower-case letters, digits, '-' and '_' (e.g. 1862-west)"
    )]
    BadId(String),
    #[error("cannot write {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// Whether `id` can name a scenario's mod (its folder, its files' errors, and the
/// scenario, whose ids often start with a year): plain characters only.
pub fn valid_mod_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        && id.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
}

/// `to` relative to `from` (both absolute), with `/` separators, as `<extends path>`.
pub fn relative(from: &Path, to: &Path) -> String {
    use std::path::Component;
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// Writes the mod `spec` in a new folder `parent/<id>` extending the module `base` read
/// from `base_dir`, with `extra` files besides its own; never writes over a folder or
/// file. Returns the folder.
pub fn create(
    base_dir: &Path,
    base: &Module,
    parent: &Path,
    spec: &ScenarioMod,
    extra: &[(String, String)],
) -> Result<std::path::PathBuf, CreateError> {
    if !valid_mod_id(&spec.id) {
        return Err(CreateError::BadId(spec.id.clone()));
    }
    let target = parent.join(&spec.id);
    if target.exists() {
        return Err(CreateError::Exists(target.display().to_string()));
    }
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| CreateError::Io { path, source }
    };
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    let abs_parent = parent.canonicalize().map_err(io(parent))?;
    let abs_base = base_dir.canonicalize().map_err(io(base_dir))?;
    let base_path = relative(&abs_parent.join(&spec.id), &abs_base);
    let folder = target.display().to_string();
    let mut all = files(base, &base_path, &folder, spec);
    all.extend(extra.iter().cloned());
    for (file, text) in &all {
        use std::io::Write;
        let path = target.join(file);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
        }
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(io(&path))?;
        f.write_all(text.as_bytes()).map_err(io(&path))?;
    }
    Ok(target)
}

/// What the editor shows of a scenario's mod: its notes and briefings as written.
pub fn read_metadata(dir: &Path, sides: &[String]) -> (String, Vec<(String, String)>) {
    let notes = std::fs::read_to_string(dir.join(NOTES_FILE)).unwrap_or_default();
    let briefings = sides
        .iter()
        .map(|s| {
            let text = std::fs::read_to_string(dir.join(BRIEFINGS_DIR).join(format!("{s}.md")))
                .unwrap_or_default();
            (s.clone(), text)
        })
        .collect();
    (notes, briefings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renaming_keeps_the_rest_of_the_text() {
        let text = "<?xml version=\"1.0\"?>\n<!-- a <scenario> note -->\n<scenario id=\"1862\" name=\"1862 Scenario\" start=\"04/1862\">\n  <side id=\"union\"/>\n</scenario>\n";
        let out = rename_scenario(text, "west", Some("The West & more")).unwrap();
        assert!(out.contains("<!-- a <scenario> note -->"), "{out}");
        assert!(
            out.contains(r#"<scenario id="west" name="The West &amp; more" start="04/1862">"#),
            "{out}"
        );
        assert!(out.contains(r#"<side id="union"/>"#), "{out}");
        let out = rename_scenario("<scenario name='x' start='1'/>", "y", None).unwrap();
        assert_eq!(out, r#"<scenario id="y" name='x' start='1'/>"#);
        assert!(rename_scenario("<map/>", "y", None).is_err());
    }

    #[test]
    fn requirements_allow_the_base_minor_version() {
        assert_eq!(requirement("0.1.0"), "^0.1");
        assert_eq!(requirement("2.3.4"), "^2.3");
    }
}
