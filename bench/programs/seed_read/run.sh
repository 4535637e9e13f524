#!/usr/bin/env bash
# pgwt-dump reading the seed tool's layout against our own format (issue
# #22): the same 10M records (bench/programs/dump_throughput/dump.scn, 8
# backends) written three ways by pgwt-synth: "ours" (our current version),
# "seed_format" (--seed-format: what our writers write for the seed tool)
# and "seed_layout" (--seed-layout: as the seed's own writer lays blocks
# out, records out of order inside each, which the reader sorts). Each run
# is one pgwt-dump process (the system_event view), arms interleaved per
# repetition: records/s by the wall clock and by CPU time, peak RSS
# (build/bench/rusage-run: wait4's figures, in microseconds), and the
# directory's bytes per record. One JSON line per run:
#   {"bench":"seed_read","arm":A,"rep":R,"records":N,"records_per_s":X,
#    "cpu_records_per_s":C,"peak_rss_kb":K,"bytes_per_record":B}
#   bench/programs/seed_read/run.sh [--reps R] [--records N]
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
reps=3 records=10000000
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --records) records=$2; shift 2 ;;
    *) echo "usage: run.sh [--reps R] [--records N]" >&2; exit 2 ;;
  esac
done
for b in pgwt-dump pgwt-synth; do
  [ -x "$top/bin/$b" ] || { echo "run.sh: $top/bin/$b is not built (make userspace)" >&2; exit 1; }
done
source "$top/bench/lib/rusage.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
{ cat "$top/bench/programs/dump_throughput/dump.scn"; echo "max_records $records"; } >"$tmp/s.scn"
"$top/bin/pgwt-synth" -o "$tmp/ours" "$tmp/s.scn" >/dev/null
"$top/bin/pgwt-synth" -o "$tmp/seed_format" --seed-format "$tmp/s.scn" >/dev/null
"$top/bin/pgwt-synth" -o "$tmp/seed_layout" --seed-layout "$tmp/s.scn" >/dev/null

# run ARM REP: one measured process, one JSON line; every record read
run() {
  local arm=$1 rep=$2
  rusage "$tmp/time" "$top/bin/pgwt-dump" "$tmp/$arm" \
    --view system_event >"$tmp/out" 2>"$tmp/err" \
    || { echo "run.sh: $arm failed: $(tail -1 "$tmp/err")" >&2; exit 1; }
  grep -q "; $records records" "$tmp/out" \
    || { echo "run.sh: $arm read other than $records records: $(head -1 "$tmp/out")" >&2; exit 1; }
  read -r wall user sys rss <"$tmp/time"
  bytes=$(cat "$tmp/$arm"/*.trace.lz4 | wc -c)
  python3 - "$arm" "$rep" "$records" "$wall" "$user" "$sys" "$rss" "$bytes" <<'PY'
import json, sys
arm, rep, n, wall, user, sys_, rss, size = sys.argv[1:]
n, wall, cpu = int(n), max(float(wall), 1e-6), max(float(user) + float(sys_), 1e-6)
print(json.dumps({"bench": "seed_read", "arm": arm, "rep": int(rep), "records": n,
                  "records_per_s": round(n / wall), "cpu_records_per_s": round(n / cpu),
                  "peak_rss_kb": int(rss), "bytes_per_record": round(int(size) / n, 3)}))
PY
}
for rep in $(seq 1 "$reps"); do
  for arm in ours seed_format seed_layout; do
    run "$arm" "$rep"
  done
done
