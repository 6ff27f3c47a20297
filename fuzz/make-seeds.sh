#!/usr/bin/env bash
# Writes the fuzz targets' seed corpora into fuzz/seeds/TARGET (issue 17, item 4), from
# the shipped modules (mods/ahd, ahd-1981, ahd-triplea, examples, tests/scenarios) and
# from saves written by `muster play --save`. Run from anywhere; safe to run again.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
seeds="$here/seeds"
rm -rf "$seeds"
mkdir -p "$seeds/module" "$seeds/save" "$seeds/actions"

# module: one byte picking the file (the order of harness::MODULE_FILES, then
# SCENARIO_FILES), then the file's text as shipped.
files=(
  mods/ahd/module.xml mods/ahd/map.xml mods/ahd/units.xml mods/ahd/sides.xml
  mods/ahd/calendar.xml mods/ahd/options.xml mods/ahd/scenarios/1861.xml
  mods/ahd/scenarios/1862.xml mods/ahd/scenarios/1863.xml mods/ahd/scenarios/1864.xml
  mods/ahd/scenarios/1861-short.xml mods/ahd-1981/changes.xml mods/ahd-1981/module.xml
  mods/ahd-triplea/units.xml mods/ahd-triplea/calendar.xml mods/ahd-triplea/sides.xml
  mods/ahd-triplea/scenarios/1861.xml mods/examples/no-cairo-rail/changes.xml
  mods/examples/cavalry-screen/module.xml mods/examples/rail-raid/raid-example.xml
  tests/scenarios/rule_4_0_example.xml tests/scenarios/rule_4_5_example.xml
  mods/examples/cavalry-screen/screen-example.xml
)
i=0
for f in "${files[@]}"; do
  { printf "\\x$(printf %02x "$i")"; cat "$root/$f"; } > "$seeds/module/$(printf %02d "$i")-$(basename "$f")"
  i=$((i + 1))
done

# save: games of the union (random) up to the confederate's first decision, where the
# human confederate quits and the game is saved; one per scenario, with and without
# optional rules, and one on a scenario file (a save that carries its scenario's XML).
muster="$root/target/release/muster"
# Built (or found up to date) every time: a stale binary may not load today's rules.
(cd "$root" && cargo build --release --bin muster)
n=0
for scenario in 1861-short 1861 1862 1863 1864; do
  for opts in "" "--options naval-evacuations,refitting,sudden-death"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    echo q | "$muster" play "$root/mods/ahd" --scenario "$scenario" --seed "$n" \
      --player union=random --player confederate=human $opts --quiet \
      --save "$seeds/save/$scenario-$n.json" >/dev/null 2>&1 || true
  done
done
echo q | "$muster" play "$root/mods/ahd" --scenario "$root/tests/scenarios/rule_4_0_example.xml" \
  --seed 99 --player union=random --player confederate=human --quiet \
  --save "$seeds/save/rule_4_0_example.json" >/dev/null 2>&1 || true

if [ -z "$(ls -A "$seeds/save")" ]; then
  echo "no save seed was written: does '$muster play' run on mods/ahd?" >&2
  exit 1
fi

# Compact JSON: AFL mutates small inputs faster (the saves read the same).
python3 - "$seeds/save" <<'PY'
import json, os, sys
d = sys.argv[1]
for f in os.listdir(d):
    p = os.path.join(d, f)
    with open(p) as r:
        v = json.load(r)
    with open(p, "w") as w:
        json.dump(v, w, separators=(",", ":"))
PY

# actions: variant, scenario, three bytes of optional rules, two of seed, then choices.
python3 - "$seeds/actions" <<'PY'
import random, sys
out = sys.argv[1]
rng = random.Random(17)
for variant in range(3):
    for scenario in range(5):
        for options in (0, 0xFFFFFF, rng.getrandbits(24)):
            head = bytes([variant, scenario]) + options.to_bytes(3, "little") + rng.getrandbits(16).to_bytes(2, "little")
            body = bytes(rng.getrandbits(8) & 0xDF for _ in range(rng.randrange(20, 200)))
            with open(f"{out}/v{variant}-s{scenario}-o{options:06x}.bin", "wb") as f:
                f.write(head + body)
PY
for t in module save actions; do echo "$t: $(ls "$seeds/$t" | wc -l) seeds"; done
