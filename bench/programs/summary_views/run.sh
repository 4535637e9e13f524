#!/usr/bin/env bash
# Generates the 1-hour, ~50M-transition trace (hour.scn) into a scratch
# directory, prints the summary benchmark's JSON lines, removes the trace.
#   bench/programs/summary_views/run.sh [--reps R]
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
make -s -C "$top/bench/programs/summary_views" all
make -s -C "$top/tools/pgwt-synth" all
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$top/bin/pgwt-synth" -o "$tmp/trace" "$top/bench/programs/summary_views/hour.scn" >/dev/null
"$top/bin/pgwt-bench-summary" "$tmp/trace" "$@"
