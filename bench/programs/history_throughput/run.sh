#!/usr/bin/env bash
# The history functions end to end (issue #23): pgwt_history_time_model,
# _system_event and _histogram (IO:DataFileRead) over the directory
# pgwt-dump's figure is measured on (dump_throughput/dump.scn from
# pgwt-synth, N records, default 10M, 8 backends), named as the last
# argument, in a private cluster of the hooked PostgreSQL 18 that preloads
# the extension. Each run is one fresh session:
#   SELECT count(*) FROM pgwt_history_X(..., NULL, NULL, '<dir>')
# timed by that backend's own CPU, read in the same session before and
# after the call (/proc/self/stat utime+stime, 10 ms ticks, and
# /proc/self/schedstat's on-CPU ns), and its peak RSS (/proc/self/status
# VmHWM) after the call against the same fresh backend's before it, so
# the read's own memory shows. Arm "dump" is bin/pgwt-dump's default
# summary over the same directory (CPU of the process by wait4,
# build/bench/rusage-run), the path the functions share the loader and
# the engine with. Arms are interleaved within a repetition. One JSON line
# per run:
#   {"bench":"history_throughput","arm":A,"rep":R,"records":N,"rows":K,
#    "cpu_records_per_s":C,"sched_records_per_s":S,"peak_rss_kb":P,
#    "fresh_rss_kb":F,"read_rss_kb":P-F}
# Then, when valgrind is installed, instructions per record of each
# function (and of pgwt-dump) on a 1M-record directory of the same
# scenario: the cluster stopped, one single-user backend (postgres
# --single) under callgrind per call, less a run of "SELECT 1": a count
# the shared host's load does not move, to hold beside dump_callgrind's.
#   {"bench":"history_callgrind","arm":A,"rep":R,"records":N,"instr_per_record":I}
#   run.sh [--reps R] [--records N] [--pg-config PATH] [--port P]
# Needs: bin/pgwt-synth and bin/pgwt-dump (make userspace),
# root (the cluster runs as postgres), and an extension build
# (test/lib/common.sh ext_install, done here, into the server named by
# --pg-config, else PGWT_BENCH_PG_CONFIG_18_HOOKS, else the cached build).
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
reps=5 records=10000000 pgc=${PGWT_BENCH_PG_CONFIG_18_HOOKS:-}
port=$(( ${PGWT_PORT_BASE:-55400} + 49 ))
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --records) records=$2; shift 2 ;;
    --pg-config) pgc=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    *) echo "usage: run.sh [--reps R] [--records N] [--pg-config PATH] [--port P]" >&2; exit 2 ;;
  esac
done
for b in pgwt-dump pgwt-synth; do
  [ -x "$top/bin/$b" ] || { echo "run.sh: $top/bin/$b is not built (make userspace)" >&2; exit 1; }
done
source "$top/bench/lib/rusage.sh"
if [ -z "$pgc" ]; then
  pgc=$("$top/scripts/build-server" 18 hooks | tail -n1)
fi
name=bench-history
tmp=$(mktemp -d)
cleanup() { "$top/scripts/cluster" stop "$name" >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap cleanup EXIT
# shellcheck source=/dev/null
export PGWT_TOP=$top
source "$top/test/lib/common.sh"
ext_install "$pgc" || { echo "run.sh: the extension did not build for $pgc" >&2; exit 1; }

{ cat "$top/bench/programs/dump_throughput/dump.scn"; echo "max_records $records"; } >"$tmp/dump.scn"
"$top/bin/pgwt-synth" -o "$tmp/trace" "$tmp/dump.scn" >/dev/null
# the server reads the directory as postgres
chmod 755 "$tmp" "$tmp/trace"; chmod a+r "$tmp"/trace/*
runuser -u postgres -- test -r "$(ls "$tmp"/trace/*.trace.lz4 | head -1)" \
  || { echo "run.sh: $tmp/trace is not readable by postgres" >&2; exit 1; }

"$top/scripts/cluster" start "$name" "$pgc" "$port" shared_preload_libraries=pg_wait_tracer >/dev/null
"$top/scripts/cluster" psql "$name" -XAtq -v ON_ERROR_STOP=1 -c "CREATE EXTENSION pg_wait_tracer" >/dev/null

# call ARM SQL-CALL: one fresh session, the call between two reads of the
# backend's own /proc files; prints "s0|h0|sched0 \n rows \n s1|h1|sched1"
proc_sql="SELECT btrim(split_part(pg_read_file('/proc/self/stat'), ') ', 2), E'\n')
  || '|' || substring(pg_read_file('/proc/self/status') from 'VmHWM:\s*(\d+)')
  || '|' || split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)"
history() {
  local arm=$1 rep=$2 call=$3
  "$top/scripts/cluster" psql "$name" -XAtq -v ON_ERROR_STOP=1 \
    -c "$proc_sql" -c "SELECT count(*) FROM $call" -c "$proc_sql" >"$tmp/out" 2>"$tmp/err" \
    || { echo "run.sh: $arm failed: $(tail -1 "$tmp/err")" >&2; exit 1; }
  python3 - "$arm" "$rep" "$records" "$(getconf CLK_TCK)" "$tmp/out" <<'PY'
import json, sys
arm, rep, n, tck, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
lines = open(out).read().splitlines()
if len(lines) != 3:
    sys.exit(f"run.sh: {arm}: unexpected output {lines!r}")
def parse(s):
    stat, hwm, sched = s.split("|")
    f = stat.split()  # fields from the state on: utime is the 12th, stime the 13th
    return int(f[11]) + int(f[12]), int(hwm), int(sched)
t0, h0, s0 = parse(lines[0])
t1, h1, s1 = parse(lines[2])
cpu = max((t1 - t0) / tck, 1.0 / tck)
sched = max((s1 - s0) / 1e9, 1e-6)
print(json.dumps({"bench": "history_throughput", "arm": arm, "rep": rep, "records": n,
                  "rows": int(lines[1]), "cpu_records_per_s": round(n / cpu),
                  "sched_records_per_s": round(n / sched), "peak_rss_kb": h1,
                  "fresh_rss_kb": h0, "read_rss_kb": h1 - h0}), flush=True)
PY
}
dump() {
  local rep=$1
  rusage "$tmp/time" "$top/bin/pgwt-dump" "$tmp/trace" >/dev/null 2>"$tmp/err" \
    || { echo "run.sh: dump failed: $(tail -1 "$tmp/err")" >&2; exit 1; }
  read -r _ user sys rss <"$tmp/time"
  python3 - "$rep" "$records" "$user" "$sys" "$rss" <<'PY'
import json, sys
rep, n, user, sys_, rss = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
print(json.dumps({"bench": "history_throughput", "arm": "dump", "rep": rep, "records": n,
                  "cpu_records_per_s": round(n / max(user + sys_, 0.01)), "peak_rss_kb": rss}),
      flush=True)
PY
}
dir=$tmp/trace
for rep in $(seq 1 "$reps"); do
  history time_model "$rep" "pgwt_history_time_model(NULL, NULL, '$dir')"
  history system_event "$rep" "pgwt_history_system_event(NULL, NULL, '$dir')"
  history histogram "$rep" "pgwt_history_histogram('IO', 'DataFileRead', NULL, NULL, '$dir')"
  dump "$rep"
done

# callgrind ARM REP SQL: instructions of one single-user backend running SQL
callgrind() {
  local arm=$1 rep=$2 sql=$3
  echo "$sql" | runuser -u postgres -- valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    "$bindir/postgres" --single -D "$datadir" postgres >"$tmp/cg.out" 2>"$tmp/cg.err" \
    || { echo "run.sh: callgrind of $arm failed: $(tail -1 "$tmp/cg.err")" >&2; exit 1; }
  # a single-user backend says its errors on stderr, beside valgrind's "==PID==" lines
  if grep -v '^==' "$tmp/cg.err" | grep -q 'ERROR:'; then
    echo "run.sh: $arm: $(grep -v '^==' "$tmp/cg.err" | grep 'ERROR:' | head -1)" >&2; exit 1
  fi
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/cg.err"
}
if command -v valgrind >/dev/null; then
  n=1000000
  { cat "$top/bench/programs/dump_throughput/dump.scn"; echo "max_records $n"; } >"$tmp/cg.scn"
  "$top/bin/pgwt-synth" -o "$tmp/cgtrace" "$tmp/cg.scn" >/dev/null
  chmod 755 "$tmp/cgtrace"; chmod a+r "$tmp"/cgtrace/*
  bindir=$("$pgc" --bindir)
  datadir=${PGWT_CLUSTERS:-/tmp/pgwt-clusters}/$name/data
  runuser -u postgres -- "$bindir/pg_ctl" -D "$datadir" -w -m fast stop >/dev/null
  cgdir=$tmp/cgtrace
  for rep in 1 2 3; do
    base=$(callgrind base "$rep" "SELECT 1;")
    for arm in time_model system_event histogram; do
      case $arm in
        histogram) call="pgwt_history_histogram('IO', 'DataFileRead', NULL, NULL, '$cgdir')" ;;
        *) call="pgwt_history_$arm(NULL, NULL, '$cgdir')" ;;
      esac
      total=$(callgrind "$arm" "$rep" "SELECT count(*) FROM $call;")
      python3 -c 'import json, sys; a, r, n, t, b = sys.argv[1:]
print(json.dumps({"bench": "history_callgrind", "arm": a, "rep": int(r), "records": int(n),
                  "instr_per_record": round((int(t) - int(b)) / int(n), 1)}))' "$arm" "$rep" "$n" "$total" "$base"
    done
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$top/bin/pgwt-dump" "$cgdir" \
      >/dev/null 2>"$tmp/cg.err" || { echo "run.sh: callgrind of dump failed" >&2; exit 1; }
    python3 -c 'import json, sys; r, n, t = sys.argv[1:]
print(json.dumps({"bench": "history_callgrind", "arm": "dump", "rep": int(r), "records": int(n),
                  "instr_per_record": round(int(t) / int(n), 1)}))' "$rep" "$n" \
      "$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/cg.err")"
  done
else
  echo "run.sh: no instruction counts: valgrind is not installed" >&2
fi
