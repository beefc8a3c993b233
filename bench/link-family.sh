#!/usr/bin/env bash
# The link-family benchmark (issue #11): links drawn from a seed over the whole range a user may
# have, three workloads on each, Multilane self-tuned beside curl with 8 files at once. Prints a
# Markdown table with the verdict of each row against the targets, and writes a chart.
#
# Usage: bench/link-family.sh [BUILD_DIR] [OUT_DIR]       (default: build, bench-out)
#   SEED=N          the links' seed (default: a new one each run; printed)
#   LINKS=12        how many links
#   WORKLOADS="big small mix"   CLIENTS="multilane curl8" (also: multilane-unpipelined, the same
#                   client with no chunk sent behind another, for an A/B of pipelining)
#   BIG_SECONDS=20  the big file's size in seconds of the link's uplink
#   ONLY=3,11       only these links of the seed (to look at a few again)
#   TUNER_LOGS=DIR  each Multilane run's tuner log (its decisions, window by window) into DIR
set -euo pipefail
cd "$(dirname "$0")/.."
MULTILANE_BOOTSTRAP_EXTRA="time python3 gnuplot-nox" scripts/bootstrap.sh
build="${1:-build}"
out="${2:-bench-out}"
[ -x "$build/app/multilane" ] && [ -x "$build/bench/linksim/linksim" ] ||
    { echo "build first: BUILD_DIR=$build scripts/build.sh" >&2; exit 2; }
mkdir -p "$out"
exec python3 bench/family/link_family.py --build "$build" --out "$out"
