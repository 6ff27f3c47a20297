//! Probes for what two of the editor's tests need beyond a Rust toolchain: Xvfb, xdotool
//! and ImageMagick to drive the real window (`tests/it/xvfb_window.rs`), a software Vulkan to
//! render the snapshot images (`tests/it/snapshot.rs`). Where one is missing it sets a cfg
//! that marks those tests ignored, so that `cargo test` passes on a fresh machine and lists
//! each skip in its own output ("ignored, needs ...") and count; a warning names exactly
//! what is missing. Under CI (`CI` set, as `.ci/run` does) it sets nothing: a missing
//! tool fails the test there, never skips it.
//!
//! The probe runs again when `CI`, `PATH` or a Vulkan driver variable changes, and after
//! an `apt-get` (dpkg's status file changes), so installing the packages is enough.

use std::env;
use std::path::{Path, PathBuf};

/// What the real-window test runs: each program, with the Debian package that brings it.
const XVFB_TOOLS: [(&str, &str); 4] = [
    ("Xvfb", "xvfb"),
    ("xdotool", "xdotool"),
    ("import", "imagemagick"),
    ("identify", "imagemagick"),
];

/// Environment variables the probe reads.
const VARS: [&str; 10] = [
    "CI",
    "HOME",
    "PATH",
    "VK_DRIVER_FILES",
    "VK_ICD_FILENAMES",
    "VK_ADD_DRIVER_FILES",
    "XDG_CONFIG_HOME",
    "XDG_CONFIG_DIRS",
    "XDG_DATA_HOME",
    "XDG_DATA_DIRS",
];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(muster_no_xvfb, muster_no_soft_vulkan)");
    println!("cargo::rerun-if-changed=build.rs");
    for var in VARS {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let dpkg = Path::new("/var/lib/dpkg/status");
    if dpkg.exists() {
        println!("cargo::rerun-if-changed={}", dpkg.display());
    }
    if env::var("CI").is_ok_and(|ci| !matches!(ci.as_str(), "" | "0" | "false")) {
        return;
    }

    let missing: Vec<(&str, &str)> = XVFB_TOOLS
        .into_iter()
        .filter(|(tool, _)| !on_path(tool))
        .collect();
    if !missing.is_empty() {
        let tools: Vec<&str> = missing.iter().map(|(tool, _)| *tool).collect();
        let mut packages: Vec<&str> = missing.iter().map(|(_, package)| *package).collect();
        packages.dedup();
        println!("cargo::rustc-cfg=muster_no_xvfb");
        println!(
            "cargo::warning=skipping the real-window test (xvfb_window): no {} on PATH \
             (apt-get install {}; the README names the libraries it also needs)",
            tools.join(", "),
            packages.join(" ")
        );
    }
    if !software_vulkan() {
        println!("cargo::rustc-cfg=muster_no_soft_vulkan");
        println!(
            "cargo::warning=skipping the snapshot images (snapshot): no software Vulkan driver \
             (Mesa's lavapipe: apt-get install mesa-vulkan-drivers)"
        );
    }
}

/// Whether `program` is an executable file in a folder of `PATH`.
fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    env::var_os("PATH").is_some_and(|path| {
        env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join(program))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

/// Whether the Vulkan loader would find a software driver (lavapipe or SwiftShader): a
/// driver manifest naming one, where the loader looks (its variables first, as it does).
fn software_vulkan() -> bool {
    let list = |var: &str| -> Vec<PathBuf> {
        env::var_os(var)
            .map(|v| env::split_paths(&v).collect())
            .unwrap_or_default()
    };
    let mut places = list("VK_DRIVER_FILES");
    if places.is_empty() {
        places = list("VK_ICD_FILENAMES");
    }
    if places.is_empty() {
        let home = env::var_os("HOME").map(PathBuf::from);
        let dirs = |var: &str, home_default: &str, defaults: &str| -> Vec<PathBuf> {
            let mut dirs = list(var);
            if dirs.is_empty() {
                if let (Some(home), false) = (&home, home_default.is_empty()) {
                    dirs.push(home.join(home_default));
                }
                dirs.extend(
                    defaults
                        .split(':')
                        .filter(|d| !d.is_empty())
                        .map(PathBuf::from),
                );
            }
            dirs
        };
        for dir in dirs("XDG_CONFIG_HOME", ".config", "")
            .into_iter()
            .chain(dirs("XDG_CONFIG_DIRS", "", "/etc/xdg"))
            .chain([PathBuf::from("/etc")])
            .chain(dirs("XDG_DATA_HOME", ".local/share", ""))
            .chain(dirs("XDG_DATA_DIRS", "", "/usr/local/share:/usr/share"))
        {
            places.push(dir.join("vulkan/icd.d"));
        }
    }
    places.extend(list("VK_ADD_DRIVER_FILES"));
    places.iter().any(|place| {
        let manifests: Vec<PathBuf> = match std::fs::read_dir(place) {
            Ok(entries) => entries.flatten().map(|e| e.path()).collect(),
            Err(_) => vec![place.clone()],
        };
        manifests.iter().any(|manifest| {
            std::fs::read_to_string(manifest)
                .is_ok_and(|text| text.contains("libvulkan_lvp") || text.contains("vk_swiftshader"))
        })
    })
}
