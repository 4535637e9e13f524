#!/usr/bin/env bash
# pgwt-dump end to end (issue #23): the default summary view over a
# directory of N records (default 10M) from pgwt-synth (dump.scn: 8
# backends), one process per run, so each run's figures are its own:
# records/s by the wall clock and by the process's CPU time, and peak RSS
# (build/bench/rusage-run: wait4's figures, in microseconds). Arms:
# "summary" (bin/pgwt-dump), "decode" (the same
# file decoded and nothing else: pgwt-bench-tracefmt --decode-only, the
# floor the analysis is measured against) and, with --baseline BIN,
# "baseline" (another pgwt-dump build, run interleaved with "summary").
# One JSON line per run:
#   {"bench":"dump_throughput","arm":A,"rep":R,"records":N,
#    "records_per_s":X,"cpu_records_per_s":C,"peak_rss_kb":K}
# and, when valgrind is installed, instructions per record under
# callgrind on a 1M-record directory of the same scenario, three runs of
# each arm (summary, decode, and baseline when given): a count the shared
# host's load does not move:
#   {"bench":"dump_callgrind","arm":A,"rep":R,"records":N,"instr_per_record":I}
#   bench/programs/dump_throughput/run.sh [--reps R] [--records N] [--baseline BIN]
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
reps=5 records=10000000 baseline=
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --records) records=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    *) echo "usage: run.sh [--reps R] [--records N] [--baseline BIN]" >&2; exit 2 ;;
  esac
done
for b in pgwt-dump pgwt-synth pgwt-bench-tracefmt; do
  [ -x "$top/bin/$b" ] || { echo "run.sh: $top/bin/$b is not built (make userspace)" >&2; exit 1; }
done
source "$top/bench/lib/rusage.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
{ cat "$top/bench/programs/dump_throughput/dump.scn"; echo "max_records $records"; } >"$tmp/dump.scn"
"$top/bin/pgwt-synth" -o "$tmp/trace" "$tmp/dump.scn" >/dev/null
trace=$(ls "$tmp"/trace/*.trace.lz4)

# run ARM REP CMD...: one measured process, one JSON line
run() {
  local arm=$1 rep=$2
  shift 2
  rusage "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" \
    || { echo "run.sh: $arm failed: $(tail -1 "$tmp/err")" >&2; exit 1; }
  read -r wall user sys rss <"$tmp/time"
  python3 - "$arm" "$rep" "$records" "$wall" "$user" "$sys" "$rss" <<'PY'
import json, sys
arm, rep, n, wall, user, sys_, rss = sys.argv[1:]
n, wall, cpu = int(n), max(float(wall), 1e-6), max(float(user) + float(sys_), 1e-6)
print(json.dumps({"bench": "dump_throughput", "arm": arm, "rep": int(rep), "records": n,
                  "records_per_s": round(n / wall), "cpu_records_per_s": round(n / cpu),
                  "peak_rss_kb": int(rss)}))
PY
}
for rep in $(seq 1 "$reps"); do
  run summary "$rep" "$top/bin/pgwt-dump" "$tmp/trace"
  [ -z "$baseline" ] || run baseline "$rep" "$baseline" "$tmp/trace"
  run decode "$rep" "$top/bin/pgwt-bench-tracefmt" --decode-only "$trace"
done

# callgrind ARM REP CMD...: instructions per record of one run of CMD DIR
# (CMD DIR's trace file for decode)
callgrind() {
  local arm=$1 rep=$2 n=1000000 input
  shift 2
  [ -d "$tmp/cgtrace" ] || {
    { cat "$top/bench/programs/dump_throughput/dump.scn"; echo "max_records $n"; } >"$tmp/cg.scn"
    "$top/bin/pgwt-synth" -o "$tmp/cgtrace" "$tmp/cg.scn" >/dev/null
  }
  input=$tmp/cgtrace
  [ "$arm" != decode ] || input=$(ls "$tmp"/cgtrace/*.trace.lz4)
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" "$input" \
    >/dev/null 2>"$tmp/cg.err" || { echo "run.sh: callgrind of $arm failed" >&2; exit 1; }
  python3 - "$arm" "$rep" "$n" "$tmp/cg.err" <<'PY'
import json, re, sys
arm, rep, n, err = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), open(sys.argv[4]).read()
m = re.search(r"Collected : (\d+)", err)
if not m:
    sys.exit("run.sh: no instruction count in callgrind's output")
print(json.dumps({"bench": "dump_callgrind", "arm": arm, "rep": rep, "records": n,
                  "instr_per_record": round(int(m.group(1)) / n, 1)}))
PY
}
if command -v valgrind >/dev/null; then
  for rep in 1 2 3; do
    callgrind summary "$rep" "$top/bin/pgwt-dump"
    [ -z "$baseline" ] || callgrind baseline "$rep" "$baseline"
    callgrind decode "$rep" "$top/bin/pgwt-bench-tracefmt" --decode-only
  done
else
  echo "run.sh: no instruction counts: valgrind is not installed" >&2
fi
