//! Robustness: whatever is in a module's files, `load_module` returns `Ok` or an `Err`
//! with at least one diagnostic. It never panics.
//!
//! A deterministic mutation test: every XML file of the mini fixture and of the AHD
//! module is damaged in many seeded, reproducible ways (bytes deleted, duplicated or
//! inserted, lines swapped or dropped, numbers and names exchanged, the file cut short),
//! one file at a time, and the module is loaded from a temporary copy.
//!
//! `MUSTER_MUTATION_CASES=<n>` sets the number of cases per file (default
//! [`CASES_PER_FILE`]) for a longer run; a failure names its seed, file and mutations.

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::Command;

use muster_core::load_module;
use muster_test_support::copy_dir;

const MINI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini");
const MINI_HOUSE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini-house");
const AHD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../mods/ahd");

/// Damaged versions of each file; each gets 1 to 4 mutations (about 300 per file in all).
const CASES_PER_FILE: u64 = 120;

// ---------------------------------------------------------------------------------------
// A tiny deterministic RNG
// ---------------------------------------------------------------------------------------

/// xorshift64* (Vigna): small, fast and good enough to pick mutations.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> Self {
        // Scramble the seed (splitmix64 finaliser) so that nearby seeds differ; never 0.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Self((z ^ (z >> 31)) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap_or(0)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// A length of 1..=max, mostly short.
    fn len(&mut self, max: usize) -> usize {
        let cap = if self.below(4) == 0 { max } else { max.min(8) };
        1 + self.below(cap.max(1))
    }
}

// ---------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------

/// Bytes worth inserting: markup, quotes, entities' start, separators, non-UTF-8.
const BYTES: &[u8] = &[
    b'<', b'>', b'"', b'\'', b'&', b'/', b'=', b';', b',', b'-', b'#', b'!', b'?', b' ', b'\n',
    b'\t', b'\r', 0, b'a', b'Z', b'0', b'9', 0xff, 0xfe, 0xc3, 0x80, 0xe2, 0x82,
];

/// Fragments of XML and values that reach deeper checks than random bytes do.
const TOKENS: &[&str] = &[
    "<",
    "</",
    "/>",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "<?xml version=\"1.0\"?>",
    "<!DOCTYPE x [<!ENTITY e \"v\">]>",
    "&amp;",
    "&e;",
    "&#0;",
    "&#x110000;",
    "&#99999999999;",
    "&#65;",
    "=\"\"",
    " x=\"1\"",
    " x=\"1\" x=\"2\"",
    "<box/>",
    "<line/>",
    "<side id=\"x\" name=\"x\"/>",
    "<include file=\"\"/>",
    "<include file=\".\"/>",
    "<extends module=\".\" path=\".\"/>",
    "\u{feff}",
    "é",
    "\u{1F600}",
    ";",
    ",",
    ", 0 ",
    " 65535 Gi,",
];

/// Replacements for a run of digits.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "13",
    "127",
    "128",
    "255",
    "256",
    "65535",
    "65536",
    "2147483647",
    "4294967296",
    "99999999999999999999",
    "",
];

#[derive(Clone, Debug)]
enum Mutation {
    Delete { at: usize, len: usize },
    Duplicate { at: usize, len: usize },
    InsertBytes { at: usize, bytes: Vec<u8> },
    InsertToken { at: usize, token: &'static str },
    SwapLines { a: usize, b: usize },
    DeleteLine { line: usize },
    ReplaceNumber { nth: usize, with: &'static str },
    CopyValue { from: usize, to: usize },
    Truncate { at: usize },
}

impl fmt::Display for Mutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Delete { at, len } => write!(f, "delete {len} bytes at byte {at}"),
            Self::Duplicate { at, len } => write!(f, "duplicate {len} bytes at byte {at}"),
            Self::InsertBytes { at, bytes } => write!(f, "insert bytes {bytes:02x?} at byte {at}"),
            Self::InsertToken { at, token } => write!(f, "insert {token:?} at byte {at}"),
            Self::SwapLines { a, b } => write!(f, "swap lines {} and {}", a + 1, b + 1),
            Self::DeleteLine { line } => write!(f, "delete line {}", line + 1),
            Self::ReplaceNumber { nth, with } => {
                write!(f, "replace number #{nth} by {with:?}")
            }
            Self::CopyValue { from, to } => {
                write!(f, "copy attribute value #{from} over value #{to}")
            }
            Self::Truncate { at } => write!(f, "truncate at byte {at}"),
        }
    }
}

/// Byte ranges of the runs of ASCII digits.
fn digit_runs(text: &[u8]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i].is_ascii_digit() {
            let start = i;
            while i < text.len() && text[i].is_ascii_digit() {
                i += 1;
            }
            runs.push((start, i));
        } else {
            i += 1;
        }
    }
    runs
}

/// Byte ranges of the insides of `="..."`.
fn quoted_values(text: &[u8]) -> Vec<(usize, usize)> {
    let mut values = Vec::new();
    let mut i = 0;
    while i + 1 < text.len() {
        if text[i] == b'=' && text[i + 1] == b'"' {
            let start = i + 2;
            match text[start..].iter().position(|&b| b == b'"') {
                Some(len) => {
                    values.push((start, start + len));
                    i = start + len + 1;
                }
                None => break,
            }
        } else {
            i += 1;
        }
    }
    values
}

/// Byte ranges of the lines, each with its `\n`.
fn lines(text: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in text.iter().enumerate() {
        if b == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out
}

fn random_mutation(rng: &mut XorShift, text: &[u8]) -> Mutation {
    let n = text.len();
    let at = rng.below(n + 1);
    match rng.below(10) {
        0 if n > 0 => Mutation::Delete {
            at: at.min(n - 1),
            len: rng.len(64),
        },
        1 if n > 0 => Mutation::Duplicate {
            at: at.min(n - 1),
            len: rng.len(64),
        },
        2 => {
            let k = rng.len(8);
            let bytes = (0..k).map(|_| rng.pick(BYTES)).collect();
            Mutation::InsertBytes { at, bytes }
        }
        3 => Mutation::InsertToken {
            at,
            token: rng.pick(TOKENS),
        },
        4 if lines(text).len() >= 2 => {
            let count = lines(text).len();
            Mutation::SwapLines {
                a: rng.below(count),
                b: rng.below(count),
            }
        }
        5 if !lines(text).is_empty() => Mutation::DeleteLine {
            line: rng.below(lines(text).len()),
        },
        6 | 7 if !digit_runs(text).is_empty() => Mutation::ReplaceNumber {
            nth: rng.below(digit_runs(text).len()),
            with: rng.pick(NUMBERS),
        },
        8 if quoted_values(text).len() >= 2 => {
            let count = quoted_values(text).len();
            Mutation::CopyValue {
                from: rng.below(count),
                to: rng.below(count),
            }
        }
        9 => Mutation::Truncate { at },
        _ => Mutation::InsertToken {
            at,
            token: rng.pick(TOKENS),
        },
    }
}

fn apply(m: &Mutation, text: &mut Vec<u8>) {
    let n = text.len();
    match m {
        Mutation::Delete { at, len } => {
            let end = (at + len).min(n);
            text.drain(*at..end);
        }
        Mutation::Duplicate { at, len } => {
            let end = (at + len).min(n);
            let copy = text[*at..end].to_vec();
            text.splice(end..end, copy);
        }
        Mutation::InsertBytes { at, bytes } => {
            text.splice(*at..*at, bytes.iter().copied());
        }
        Mutation::InsertToken { at, token } => {
            text.splice(*at..*at, token.bytes());
        }
        Mutation::SwapLines { a, b } => {
            let ls = lines(text);
            let (x, y) = ((*a).min(*b), (*a).max(*b));
            if x == y {
                return;
            }
            let (first, second) = (ls[x], ls[y]);
            let mut out = text[..first.0].to_vec();
            out.extend_from_slice(&text[second.0..second.1]);
            out.extend_from_slice(&text[first.1..second.0]);
            out.extend_from_slice(&text[first.0..first.1]);
            out.extend_from_slice(&text[second.1..]);
            *text = out;
        }
        Mutation::DeleteLine { line } => {
            let (s, e) = lines(text)[*line];
            text.drain(s..e);
        }
        Mutation::ReplaceNumber { nth, with } => {
            let (s, e) = digit_runs(text)[*nth];
            text.splice(s..e, with.bytes());
        }
        Mutation::CopyValue { from, to } => {
            let values = quoted_values(text);
            let value = text[values[*from].0..values[*from].1].to_vec();
            let (s, e) = values[*to];
            text.splice(s..e, value);
        }
        Mutation::Truncate { at } => text.truncate(*at),
    }
}

// ---------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------

/// The `.xml` files under `dir`, relative to it, sorted (so the run is deterministic).
fn xml_files(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir.join(rel)).expect("read module folder") {
        let entry = entry.expect("module entry");
        let rel = rel.join(entry.file_name());
        if entry.path().is_dir() {
            xml_files(dir, &rel, out);
        } else if rel.extension().is_some_and(|e| e == "xml") {
            out.push(rel);
        }
    }
    out.sort();
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(a panic without a message)".into())
}

fn cases_per_file() -> u64 {
    std::env::var("MUSTER_MUTATION_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES_PER_FILE)
}

/// Mutates each XML file of the module in `src`, one file at a time, and loads the module.
fn mutate_module(src: &str, seed: u64) {
    mutate_overlay(None, src, seed);
}

/// [`mutate_module`] for an overlay: `base` is copied beside it (its `extends` path is
/// `../<base>`) and left alone; only the overlay's files are damaged.
fn mutate_overlay(base: Option<&str>, src: &str, seed: u64) {
    let src = Path::new(src);
    assert!(
        load_module(src).is_ok(),
        "{} must load before it is mutated",
        src.display()
    );
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp
        .path()
        .join(src.file_name().expect("module folder name"));
    copy_dir(src, &dir);
    if let Some(base) = base.map(Path::new) {
        copy_dir(
            base,
            &tmp.path().join(base.file_name().expect("base folder name")),
        );
    }
    let mut files = Vec::new();
    xml_files(&dir, Path::new(""), &mut files);
    assert!(!files.is_empty(), "no XML files in {}", src.display());

    let cases = cases_per_file();
    let mut failures = Vec::new();
    let mut mutations = 0usize;
    for (file_no, rel) in files.iter().enumerate() {
        let path = dir.join(rel);
        let original = std::fs::read(&path).expect("read module file");
        for case in 0..cases {
            // Every case has its own seed, so one can be replayed alone.
            let case_seed = seed ^ ((file_no as u64) << 32) ^ case;
            let mut rng = XorShift::new(case_seed);
            let mut text = original.clone();
            let mut applied = Vec::new();
            for _ in 0..1 + rng.below(4) {
                let m = random_mutation(&mut rng, &text);
                apply(&m, &mut text);
                applied.push(m);
            }
            mutations += applied.len();
            std::fs::write(&path, &text).expect("write mutated file");

            let describe = || {
                let list: Vec<String> = applied.iter().map(ToString::to_string).collect();
                format!(
                    "seed {case_seed:#x} (file #{file_no} {}, case {case}): {}",
                    rel.display(),
                    list.join("; ")
                )
            };
            match catch_unwind(AssertUnwindSafe(|| load_module(&dir))) {
                Err(payload) => failures.push(format!(
                    "PANIC {}\n    {}",
                    describe(),
                    panic_message(&*payload)
                )),
                Ok(Err(e)) if e.diagnostics.is_empty() => {
                    failures.push(format!("Err WITHOUT DIAGNOSTICS {}", describe()));
                }
                Ok(_) => {}
            }
        }
        std::fs::write(&path, &original).expect("restore module file");
    }
    let expected = files.len() * usize::try_from(cases).unwrap_or(0);
    assert!(mutations >= expected, "too few mutations: {mutations}");
    assert!(
        failures.is_empty(),
        "{} of {} mutated loads of {} failed:\n{}",
        failures.len(),
        expected,
        src.display(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn mutated_mini_fixture_never_panics() {
    mutate_module(MINI, 0x6d69_6e69_0000_0001);
}

#[test]
fn mutated_ahd_module_never_panics() {
    mutate_module(AHD, 0x0061_6864_0000_0001);
}

/// Removals and patches of every kind of item, damaged.
#[test]
fn mutated_overlay_changes_never_panic() {
    mutate_overlay(Some(MINI), MINI_HOUSE, 0x686f_7573_0000_0001);
}

#[test]
fn mutations_are_deterministic() {
    let text = std::fs::read(format!("{MINI}/map.xml")).expect("read map.xml");
    let run = || {
        let mut rng = XorShift::new(42);
        let mut t = text.clone();
        for _ in 0..50 {
            let m = random_mutation(&mut rng, &t);
            apply(&m, &mut t);
        }
        t
    };
    assert_eq!(run(), run());
    assert_ne!(run(), text);
}

// ---------------------------------------------------------------------------------------
// Inputs found to crash the loader, kept as regression tests
// ---------------------------------------------------------------------------------------

/// A calendar in year 65535 whose last turn comes before its start: the track builder
/// must report that the track never reaches the last turn, not overflow the year.
#[test]
fn calendar_in_the_last_representable_year_does_not_panic() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("mini");
    copy_dir(Path::new(MINI), &dir);
    let path = dir.join("calendar.xml");
    let text = std::fs::read_to_string(&path).expect("read calendar.xml");
    let text = text
        .replacen("start=\"09/1861\"", "start=\"12/65535\"", 1)
        .replacen("last=\"01-02/1862\"", "last=\"01/65535\"", 1);
    std::fs::write(&path, text).expect("write calendar.xml");
    let result = catch_unwind(AssertUnwindSafe(|| load_module(&dir)))
        .unwrap_or_else(|p| panic!("load_module panicked: {}", panic_message(&*p)));
    let e = result.expect_err("the track never reaches its last turn");
    let got: Vec<String> = e
        .diagnostics
        .iter()
        .map(|d| d.to_string().replace(&format!("{}/", dir.display()), ""))
        .collect();
    assert_eq!(
        got,
        ["calendar.xml:3:51: error: the track never reaches 01/65535 from 12/65535"]
    );
}

const CHILD_ENV: &str = "MUSTER_NO_PANIC_CHILD";

/// A file nested 100 000 elements deep (about 700 KB) must be an error, not a crash. A
/// stack overflow aborts the whole process, so the load runs in a child process: this
/// same test binary, started again for this one test.
#[test]
fn deeply_nested_file_does_not_crash() {
    const NAME: &str = "deeply_nested_file_does_not_crash";
    if std::env::var_os(CHILD_ENV).is_some() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("mini");
        copy_dir(Path::new(MINI), &dir);
        let depth = 100_000;
        let text = format!(
            "<sides>{}{}</sides>",
            "<a>".repeat(depth),
            "</a>".repeat(depth)
        );
        std::fs::write(dir.join("sides.xml"), text).expect("write sides.xml");
        // An ordinary main-thread stack.
        let loaded = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || load_module(&dir).map(|_| ()))
            .expect("spawn")
            .join()
            .expect("the load must not panic");
        let e = loaded.expect_err("<a> is not allowed in <sides>");
        assert!(!e.diagnostics.is_empty());
        return;
    }
    let exe = std::env::current_exe().expect("test binary");
    let out = Command::new(exe)
        .args([NAME, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, "1")
        .output()
        .expect("run the test binary");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
    assert!(
        out.status.success(),
        "loading a module whose sides.xml is nested 100000 elements deep crashed: {}\n{}",
        out.status,
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    );
}
