//! `muster new-mod NAME --extends BASE`: a ready overlay of a module, which passes
//! `muster check` as created: its manifest, a rules file with one handler to start from,
//! the type definitions and the settings that let luau-lsp check it, and a README.
//! With `--scenario`, a scenario's own mod ([`muster_core::scenario_mod`]): the
//! scenario file, its notes, briefings and special rules.

use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use muster_core::{Module, load_module};

/// The files of a new mod, relative to its folder, with their text.
fn files(name: &str, base: &Module, base_path: &str, folder: &str) -> Vec<(&'static str, String)> {
    vec![
        ("module.xml", manifest(name, base, base_path)),
        ("rules/init.luau", rules(name, base)),
        ("tests/first.luau", FIRST_TEST.replace("{folder}", folder)),
        ("tests/.luaurc", TESTS_LUAURC.to_string()),
        (".luaurc", LUAURC.to_string()),
        ("types/muster.d.luau", muster_scripting::api::definitions()),
        (".vscode/settings.json", VSCODE.to_string()),
        ("README.md", readme(name, base, base_path, folder)),
    ]
}

/// A first test, for any base: `muster test` refuses a module without tests, and a
/// modder copies a case more readily than writing one from the reference.
const FIRST_TEST: &str = r#"-- This mod's rule tests: `muster test {folder}` runs every .luau file in this folder
-- on the mod and its base. Write one case per clause of your rule, with fixed dice and
-- the smallest scenario that shows it (a scenario id, or scenario XML as a string):
--   local g = t:game({ scenario = "<scenario ...>...</scenario>", side = "...", dice = { 3 } })
--   g:act("...")  -- an action in the words of g:legal()
--   t:eq(got, want) / t:contains(list, item) / t:ok(value)
-- The test API is in docs/modding.md of muster's repository ("Testing a rule").

test.case("a game starts with a decision to make", function(t)
	local g = t:game({ seed = 1 }) -- the first scenario, dice seeded with 1
	t:eq(g:outcome(), nil)
	t:ok(#g:legal() > 0, "something to decide: " .. g:situation())
end)
"#;

/// Test files are run by `muster test`, not the rules engine: `test` is their global,
/// which the rules' type definitions do not declare.
const TESTS_LUAURC: &str = "{\n\t\"languageMode\": \"nonstrict\",\n\t\"globals\": [\"test\"]\n}\n";

/// Luau's own configuration: every file of the mod is type-checked strictly.
const LUAURC: &str = "{\n\t\"languageMode\": \"strict\"\n}\n";

/// luau-lsp's settings (VS Code; other editors take the same keys): the engine's API
/// as definitions, Luau without Roblox's globals.
const VSCODE: &str = r#"{
	"luau-lsp.platform.type": "standard",
	"luau-lsp.types.definitionFiles": ["types/muster.d.luau"],
	"luau-lsp.types.roblox": false
}
"#;

fn manifest(name: &str, base: &Module, base_path: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- {name}: a mod of {base_name}. It has the base's data and rules; add files here
     (include them below) to change its data, and rules in rules/init.luau. -->
<module id="{name}" name="{name}" version="0.1.0" engine="0.1">
  <description>A mod of {base_name}.</description>
  <extends module="{base_id}" path="{base_path}"/>
  <rules entry="rules/init.luau"/>
</module>
"#,
        base_name = xml_text(&base.name),
        base_id = base.id,
    )
}

fn xml_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The rules: one handler, commented, that changes nothing until the modder makes it.
fn rules(name: &str, base: &Module) -> String {
    let step = base
        .calendar
        .steps
        .first()
        .map_or("movement", |s| s.id.as_str());
    let resource = base.resources.first().map_or("marches", |r| r.id.as_str());
    muster_scripting::api::skeleton_rules(name, &base.id, step, resource)
}

fn readme(name: &str, base: &Module, base_path: &str, folder: &str) -> String {
    format!(
        r#"# {name}

A mod of {base_name} (`{base_id}`, in `{base_path}`): the base's data and rules, with
the changes made here.

- `module.xml`: the manifest; include data files here to add to or change the base's.
- `rules/init.luau`: the rules, loaded after the base's. It starts with one handler that
  changes nothing.

Check it, then play it:

```sh
muster check {folder} --smoke 4
muster play {folder} --seed 1
```

## Editing the rules with types
`types/muster.d.luau` declares the engine's API (`game`, `defs`, `hooks`, the records
and commands), written by `muster new-mod` from the engine that made this folder; `muster
api --out types` writes it again after an engine update (it also writes the reference,
`luau-api.md`). `.luaurc` asks for strict type checking, and `.vscode/settings.json`
points luau-lsp at the definitions; in another editor, give luau-lsp the same settings,
or run `luau-lsp analyze --definitions=types/muster.d.luau rules`. `muster check` runs
the same strict check on this mod's scripts and its base's, each error at its line.

## Testing
`tests/*.luau` are the mod's rule tests, run on the mod and its base by
`muster test {folder}` (a failure names the test file and line; the exit status is
non-zero); `muster test {folder} --with-base` runs the base's tests on the mod too
(mark a base test the mod changes on purpose with `test.changes(name, reason)`).
`tests/first.luau` shows the shape; the test API is in muster's `docs/modding.md`.
"#,
        base_name = base.name,
        base_id = base.id,
    )
}

/// A mod's id: it names its folder and its files' errors, so plain characters only.
fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        && name.starts_with(|c: char| c.is_ascii_lowercase());
    if !ok {
        bail!(
            "'{name}' is not a mod name: use lower-case letters, digits, '-' and '_', starting with a letter (e.g. ahd-house)"
        );
    }
    Ok(())
}

/// The base module's folder: `BASE` in `dir` (`mods/ahd`), or `BASE` as a path.
fn find_base(base: &str, dir: &Path) -> Result<PathBuf> {
    let in_dir = dir.join(base);
    if in_dir.join("module.xml").is_file() {
        return Ok(in_dir);
    }
    let as_path = Path::new(base);
    if as_path.join("module.xml").is_file() {
        return Ok(as_path.to_path_buf());
    }
    let known: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok())
                .filter(|e| e.path().join("module.xml").is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        })
        .unwrap_or_default();
    let hint = if known.is_empty() {
        format!("{} holds no module", dir.display())
    } else {
        format!("modules in {}: {}", dir.display(), known.join(", "))
    };
    Err(anyhow!(
        "no base module '{base}': no {}/module.xml; {hint}",
        in_dir.display()
    ))
}

/// `to` relative to `from` (both absolute), with `/` separators, as `<extends path>`.
fn relative(from: &Path, to: &Path) -> String {
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

// `muster new-mod`.
#[derive(clap::Args)]
pub struct Args {
    /// The mod's id and folder name, e.g. ahd-house.
    name: String,
    /// The module it extends: a folder name in --dir (ahd) or a module's path.
    #[arg(long, value_name = "BASE")]
    extends: String,
    /// The folder to create it in (and to find the base in).
    #[arg(long, value_name = "DIR", default_value = "mods")]
    dir: PathBuf,
    /// Make it a scenario's own mod: the scenario is a scenario file (e.g. made by
    /// `muster scenario from-save`) or the id of a scenario of the base to start from a
    /// copy of; it takes the mod's name as its id.
    #[arg(long, value_name = "FILE|ID")]
    scenario: Option<String>,
    /// With --scenario: the scenario's name for people (default: its source's).
    #[arg(long, value_name = "TEXT", requires = "scenario")]
    title: Option<String>,
    /// With --scenario: a sentence or two on what the scenario is.
    #[arg(long, value_name = "TEXT", requires = "scenario")]
    description: Option<String>,
}

/// Creates the mod and says how to check it.
pub fn run(a: &Args) -> Result<()> {
    if let Some(source) = &a.scenario {
        let folder = create_scenario_mod(
            &a.name,
            &a.extends,
            &a.dir,
            source,
            a.title.as_deref(),
            a.description.as_deref(),
        )?;
        println!(
            "created {}: check it with `muster check {}`, play it with `muster play {} --scenario {}`",
            folder.display(),
            folder.display(),
            folder.display(),
            a.name
        );
        return Ok(());
    }
    let folder = create(&a.name, &a.extends, &a.dir)?;
    println!(
        "created {}: check it with `muster check {}`",
        folder.display(),
        folder.display()
    );
    Ok(())
}

/// The scenario's text for a scenario mod `name`: a file's, or a base scenario's (by
/// id), renamed to the mod's id.
fn scenario_source(
    module: &Module,
    source: &str,
    name: &str,
    title: Option<&str>,
) -> Result<(String, String, String)> {
    let (text, from_name, description) = if let Some(s) = module.scenario(source) {
        let text = std::fs::read_to_string(&s.file)
            .with_context(|| format!("cannot read {}", s.file.display()))?;
        (text, s.name.clone(), s.description.clone())
    } else if Path::new(source).is_file() {
        let text =
            std::fs::read_to_string(source).with_context(|| format!("cannot read {source}"))?;
        let s = muster_core::load_scenario_str(module, source, &text)
            .map_err(|e| anyhow!("{source} is no scenario of {}:\n{e}", module.id))?;
        (text, s.name, s.description)
    } else {
        let ids: Vec<&str> = module.scenarios.iter().map(|s| s.id.as_str()).collect();
        let hint = muster_core::suggest::did_you_mean(source, ids.iter().copied())
            .unwrap_or_else(|| format!("the base's scenarios: {}", ids.join(", ")));
        bail!(
            "no scenario file '{source}' and no scenario of that id in {}; {hint}",
            module.id
        );
    };
    let title = title.map_or(from_name, str::to_string);
    let text = muster_core::scenario_mod::rename_scenario(&text, name, Some(&title))
        .map_err(|e| anyhow!("{source}: {e}"))?;
    let description = description.unwrap_or_else(|| format!("A scenario of {}.", module.name));
    Ok((text, title, description))
}

/// Creates a scenario's own mod `name` in `dir`, extending `base`; returns its folder.
fn create_scenario_mod(
    name: &str,
    base: &str,
    dir: &Path,
    source: &str,
    title: Option<&str>,
    description: Option<&str>,
) -> Result<PathBuf> {
    if !muster_core::scenario_mod::valid_mod_id(name) {
        bail!(
            "'{name}' is not a scenario mod's name: use lower-case letters, digits, '-' and '_' (e.g. 1862-west)"
        );
    }
    let base_dir = find_base(base, dir)?;
    let module = load_module(&base_dir)
        .map_err(|e| anyhow!("the base module {} does not load:\n{e}", base_dir.display()))?;
    if module.scenario(name).is_some() {
        bail!(
            "{} has a scenario '{name}' already, which this mod's would replace; choose another name",
            module.id
        );
    }
    let (text, title, from_description) = scenario_source(&module, source, name, title)?;
    let spec = muster_core::scenario_mod::ScenarioMod {
        id: name.to_string(),
        name: title,
        description: description.map_or(from_description, str::to_string),
        scenario_xml: text,
        ..Default::default()
    };
    let target =
        muster_core::scenario_mod::create(&base_dir, &module, dir, &spec, &editor_files())?;
    Ok(target)
}

/// The files that let luau-lsp check a mod's rules, shared by both kinds of mod.
fn editor_files() -> Vec<(String, String)> {
    vec![
        (".luaurc".into(), LUAURC.to_string()),
        ("tests/.luaurc".into(), TESTS_LUAURC.to_string()),
        (
            "types/muster.d.luau".into(),
            muster_scripting::api::definitions(),
        ),
        (".vscode/settings.json".into(), VSCODE.to_string()),
    ]
}

/// The new mod's folder (which must not exist), the base module and its path from the
/// mod.
fn prepare(name: &str, base: &str, dir: &Path) -> Result<(PathBuf, Module, String)> {
    check_name(name)?;
    let target = dir.join(name);
    if target.exists() {
        bail!(
            "{} exists already; choose another name or remove it",
            target.display()
        );
    }
    let base_dir = find_base(base, dir)?;
    let module = load_module(&base_dir)
        .map_err(|e| anyhow!("the base module {} does not load:\n{e}", base_dir.display()))?;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the folder {}", dir.display()))?;
    let abs_dir = dir
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", dir.display()))?;
    let abs_base = base_dir
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", base_dir.display()))?;
    let base_path = relative(&abs_dir.join(name), &abs_base);
    Ok((target, module, base_path))
}

fn write_files(target: &Path, files: &[(String, String)]) -> Result<()> {
    for (file, text) in files {
        let path = target.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create the folder {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Creates the mod `name` in `dir`, extending `base`; returns its folder.
fn create(name: &str, base: &str, dir: &Path) -> Result<PathBuf> {
    let (target, module, base_path) = prepare(name, base, dir)?;
    let folder = target.display().to_string();
    let all: Vec<(String, String)> = files(name, &module, &base_path, &folder)
        .into_iter()
        .map(|(f, t)| (f.to_string(), t))
        .collect();
    write_files(&target, &all)?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative(Path::new("/a/mods/house"), Path::new("/a/mods/ahd")),
            "../ahd"
        );
        assert_eq!(
            relative(Path::new("/a/x/house"), Path::new("/a/mods/ahd")),
            "../../mods/ahd"
        );
    }

    #[test]
    fn names() {
        assert!(check_name("ahd-house").is_ok());
        for bad in ["", "House", "1st", "a/b", "../x", "a b"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
