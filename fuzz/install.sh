#!/usr/bin/env bash
# Installs the coverage-guided fuzzer for the targets in fuzz/ (issue 17, item 4):
# cargo-afl from crates.io, then AFL++ built from the source the `afl` crate ships
# (no nightly toolchain, no download outside crates.io). Safe to run again.
set -euo pipefail
AFL_VERSION="${AFL_VERSION:-0.18.2}"
if ! cargo afl --version >/dev/null 2>&1; then
    nice -n 19 cargo install --locked cargo-afl --version "$AFL_VERSION"
fi
# Builds afl-fuzz and its runtime into ~/.local/share/afl.rs (needs make and a C compiler).
if ! ls "$HOME"/.local/share/afl.rs/rustc-*/afl.rs-"$AFL_VERSION"/afl/bin/afl-fuzz >/dev/null 2>&1; then
    nice -n 19 cargo afl config --build --force
fi
cargo afl --version
cargo afl fuzz -h 2>&1 | head -n 1 || true
