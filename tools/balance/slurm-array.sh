#!/bin/bash
# A balance study as a Slurm job array (docs/balance-at-scale.md): task I plays part I
# of 8. Submit from the repository's root with `muster` built (`cargo build --release
# -p muster`):
#   mkdir -p results && sbatch tools/balance/slurm-array.sh
# and once every task has finished:
#   target/release/muster balance merge results/part-*.json
#SBATCH --job-name=muster-balance
#SBATCH --array=1-8
#SBATCH --cpus-per-task=1
#SBATCH --mem=512M
#SBATCH --output=results/slurm-%A_%a.log
set -euo pipefail

target/release/muster balance mods/ahd --mod mods/examples/rail-raid \
  --games 2000 --seed 1 --union strong --confederate ai --threads 1 \
  --shard "${SLURM_ARRAY_TASK_ID}/8" --part "results/part-${SLURM_ARRAY_TASK_ID}.json"
