#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Score a large manifest of (reference, distorted) pairs on a Slurm cluster
# with `fovea vmaf`: one array task per machine, task I of N scoring pairs
# I, I+N, I+2N, ... of the manifest (--shard I/N), no coordinator. Every task
# reads the same manifest, so the tasks need no shared state but the files.
#
#   sbatch --array=0-15 vmaf-slurm.sh pairs.csv results [fovea vmaf options]
#   cat results/shard-*.jsonl > results.jsonl     # when all tasks are done
#
# Any contiguous range works (--array=1-16, --array=0-15%4 to run 4 at a
# time, --array=0-30:2): the shard is the task's position in the range. A
# task that is run again (scontrol requeue) scores its shard again. fovea
# spreads a task's pairs over the GPUs Slurm gives it (--gres), or over CPU
# workers when it gives none.
#SBATCH --job-name=fovea-vmaf
#SBATCH --array=0-15
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=16
#SBATCH --gres=gpu:1
#SBATCH --time=08:00:00
#SBATCH --output=vmaf-%A_%a.log
set -euo pipefail

manifest=${1:?usage: vmaf-slurm.sh MANIFEST RESULTS_DIR [fovea vmaf options]}
results=${2:?usage: vmaf-slurm.sh MANIFEST RESULTS_DIR [fovea vmaf options]}
shift 2
fovea=${FOVEA:-fovea}

# this task's shard: its position in the array's range, of the array's count
step=${SLURM_ARRAY_TASK_STEP:-1}
index=$(( (SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0}) / step ))
count=${SLURM_ARRAY_TASK_COUNT:?submit with sbatch --array}

mkdir -p "$results"
# one JSON line per pair as it finishes (through the shell's redirection, so
# the lines of a task killed at its time limit stay); exit status 1 when a
# pair failed (its line carries "error"), after the others were scored
"$fovea" vmaf --manifest "$manifest" --shard "$index/$count" --quiet "$@" \
    > "$results/shard-$index.jsonl"
