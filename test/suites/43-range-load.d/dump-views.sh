#!/usr/bin/env bash
# Every pgwt-dump view over one trace directory, in each format and over
# whole, cut and multi-window ranges: the output the engine must keep
# identical when its hot path changes (43-range-load, dump-golden).
# Usage: dump-views.sh PGWT_DUMP DIR
dump=$1 dir=$2
export TZ=UTC
from='2026-01-01 00:00:04.25' to='2026-01-01 00:00:37.5'
run() { echo "### $*"; "$dump" "$dir" "$@" 2>&1; echo "rc=$?"; }
for f in text json csv; do
  run --format "$f"
  for v in time_model system_event session_event query_event transitions concurrency \
           interference lock_chains cross_validate; do
    run --view $v --format "$f" --limit 1000
    run --view $v --format "$f" --limit 1000 --from "$from" --to "$to"
  done
  run --view histogram --event IO:DataFileRead --format "$f"
  run --view histogram --event Lock:transactionid --fine --format "$f" --from "$from" --to "$to"
  run --view session_event --pid-filter 1003 --format "$f"
  run --view query_event --query-id 7 --format "$f" --sort avg
  run --view query_event --event IO:DataFileRead --format "$f" --sort waits
  run --view system_event --only exact --format "$f"
  run --view system_event --only sampled --format "$f"
  run --view time_model --window 5s,20s,1m --format "$f"
  run --view system_event --window 10s,30s --format "$f" --to '2026-01-01 00:00:50'
done
