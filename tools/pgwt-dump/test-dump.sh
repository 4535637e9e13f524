#!/usr/bin/env bash
# End-to-end test of pgwt-dump: a trace with a known truth (test/dump_fixture.c
# says what it holds) -> pgwt-dump --format json|csv|text -> the numbers.
# Prints PASS/FAIL lines for test/run; called by test/suites/40-analysis.
source "$(dirname "$0")/../../test/lib/common.sh"

top=$PGWT_TOP
log=$PGWT_LOGDIR/pgwt-dump-build.log
if ! make -s -C "$top/tools/pgwt-dump" all test-tools >"$log" 2>&1; then
  fail dump-build "$(tail -5 "$log" | tr '\n' ' ')"
  exit 0
fi
pass dump-build
# the sanitizer build: a memory error fails the check it happens in
dump=$top/build/tools/pgwt-dump/san/pgwt-dump
work=$(mktemp -d /tmp/pgwt-dump-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$top/build/tools/pgwt-dump/dump_fixture" "$work" || { fail dump-fixture "fixture writer failed"; exit 0; }
export TZ=UTC

# json_check NAME PYTHON-EXPR ARGS...: runs pgwt-dump ARGS --format json, loads
# the JSON lines into `objs` (list) and `v` (dict by view name, last wins),
# and passes when the expression is true.
cat >"$work/check.py" <<'PY'
import json, sys
objs = [json.loads(l) for l in sys.stdin if l.strip()]
v = {o["view"]: o for o in objs}
def row(view, event, **kw):
    for r in v[view]["rows"]:
        if r.get("event") == event and all(r.get(k) == x for k, x in kw.items()):
            return r
    raise KeyError(event)
def pid(p):
    return [x for x in v["session_event"]["rows"] if x["pid"] == p][0]
if not eval(sys.argv[1]):
    print("false:", sys.argv[1][:200]); sys.exit(1)
PY
json_check() {
  local name=$1 expr=$2; shift 2
  local out
  # the fixture holds one bad block on purpose (dump-damaged-status)
  if ! out=$("$dump" "${jdir:-$work}" --format json --accept-damaged "$@" 2>&1); then
    fail "$name" "pgwt-dump exited non-zero: $(echo "$out" | tail -2 | tr '\n' ' ')"; return
  fi
  if python3 "$work/check.py" "$expr" <<<"$out" >"$work/py.out" 2>&1; then
    pass "$name"
  else
    fail "$name" "$(tail -2 "$work/py.out" | tr '\n' ' ')"
  fi
}

json_check dump-trace-bad-block \
  'v["trace"]["bad_blocks_skipped"] == 1 and v["trace"]["records"] == 31 and v["trace"]["pg_major"] == 15' \
  --view time_model
json_check dump-system-event-exact \
  'row("system_event","Timeout:PgSleep") == {"event":"Timeout:PgSleep","event_id":0x09000002,"other":False,"idle":False,"fidelity":"exact","waits":10,"exact_waits":10,"total_ns":2000000000,"exact_ns":2000000000,"sampled_ns":0,"avg_ns":200000000,"max_ns":200000000,"p50_ns":200000000,"p50_lo_ns":200000000,"p50_hi_ns":200000001,"p95_ns":200000000,"p95_lo_ns":200000000,"p95_hi_ns":200000001,"p99_ns":200000000,"p99_lo_ns":200000000,"p99_hi_ns":200000001,"pct_db":row("system_event","Timeout:PgSleep")["pct_db"]} and abs(row("system_event","Timeout:PgSleep")["pct_db"] - 200000/3037.0) < 1e-3' \
  --view system_event
json_check dump-system-event-io \
  'row("system_event","IO:DataFileRead")["waits"] == 3 and row("system_event","IO:DataFileRead")["total_ns"] == 7000000 and row("system_event","IO:DataFileRead")["max_ns"] == 4000000 and row("system_event","CPU*")["total_ns"] == 530000000 and row("system_event","CPU*")["waits"] == 13' \
  --view system_event
json_check dump-system-event-sampled \
  'row("system_event","IO:WALWrite")["waits"] is None and row("system_event","IO:WALWrite")["avg_ns"] is None and row("system_event","IO:WALWrite")["max_ns"] is None and row("system_event","IO:WALWrite")["total_ns"] == 500000000 and row("system_event","IO:WALWrite")["fidelity"] == "sampled" and v["system_event"]["fidelity"] == "mixed" and v["system_event"]["db_time_ns"] == 3037000000' \
  --view system_event
json_check dump-time-model \
  '[c["class"] for c in v["time_model"]["classes"]] == ["CPU*","Timeout","IO"] and v["time_model"]["classes"][1]["total_ns"] == 2000000000 and v["time_model"]["classes"][2]["fidelity"] == "mixed"' \
  --view time_model
# [14:30:01, 14:30:02): 4 sleeps of 200 ms, the last ending at 14:30:02
# (all of its time inside: it counts here), 4 CPU bursts of 50 ms
json_check dump-from-to-clips \
  'row("system_event","Timeout:PgSleep")["waits"] == 4 and row("system_event","Timeout:PgSleep")["total_ns"] == 800000000 and row("system_event","CPU*")["waits"] == 4 and row("system_event","CPU*")["total_ns"] == 200000000' \
  --view system_event --from 2026-02-25T14:30:01 --to '2026-02-25 14:30:02'
json_check dump-histogram-fine \
  '[b["waits"] for b in v["histogram"]["buckets"] if b["lo_ns"] == 134217728] == [10] and sum(b["waits"] for b in v["histogram"]["buckets"]) == 10' \
  --view histogram --event Timeout:PgSleep --fine
# the default histogram is the one layout of every view: 32 log2 ns buckets
# from < 2^10 ns to an open top from 2^40 ns (--fine is accepted, no effect)
json_check dump-histogram-default-log2-ns \
  '[b["waits"] for b in v["histogram"]["buckets"]][9:13] == [0, 1, 1, 1] and v["histogram"]["buckets"][10]["lo_ns"] == 524288 and len(v["histogram"]["buckets"]) == 32 and v["histogram"]["buckets"][31] == {"lo_ns": 1 << 40, "hi_ns": None, "waits": 0} and v["histogram"]["buckets_unit"] == "log2_ns" and v["histogram"]["waits"] == 3' \
  --view histogram --event IO:DataFileRead
json_check dump-histogram-requires-exact \
  'v["histogram"]["status"] == "requires_exact" and v["histogram"]["buckets"] is None' \
  --view histogram --event IO:WALWrite
json_check dump-sessions \
  'pid(100)["user"] == "app" and pid(100)["database"] == "shop" and pid(100)["db_time_ns"] == 2500000000 and abs(pid(100)["cpu_pct"] - 20.0) < 1e-9 and pid(100)["top_wait"] == "Timeout:PgSleep" and v["session_event"]["rows"][0]["pid"] == 100 and pid(300)["type"] == "-"' \
  --view session_event
json_check dump-session-detail \
  '[(r["event"], r["total_ns"]) for r in v["session_detail"]["rows"]] == [("CPU*", 30000000), ("IO:DataFileRead", 7000000)]' \
  --view session_event --pid-filter 200
json_check dump-query-profile \
  '[(r["event"], r["total_ns"]) for r in v["query_event"]["rows"]] == [("CPU*", 30000000), ("IO:DataFileRead", 7000000)]' \
  --view query_event --query-id 8888
json_check dump-query-by-event \
  '[(r["query_id"], r["waits"], r["query"]) for r in v["query_event"]["rows"]] == [(7777, 10, "SELECT pg_sleep(0.2)")]' \
  --view query_event --event Timeout:PgSleep
json_check dump-windows \
  '[o["window"] for o in objs if o["view"] == "system_event"] == ["last 5s", "last 1m"] and [o["db_time_ns"] for o in objs if o["view"] == "system_event"] == [500000000, 3037000000] and [o["fidelity"] for o in objs if o["view"] == "system_event"] == ["sampled", "mixed"]' \
  --view system_event --window 5s,1m

# Damaged input is never silent: status 3 and the counts on stderr, unless
# accepted (then the counts are in the output only).
"$dump" "$work" --view system_event --format json >/dev/null 2>"$work/dmg.err"; rc=$?
if [ $rc -eq 3 ] && grep -q 'damaged input: 2 blocks read, 1 bad blocks skipped' "$work/dmg.err"; then
  pass dump-damaged-status
else
  fail dump-damaged-status "status $rc: $(tr '\n' ' ' <"$work/dmg.err")"
fi

out=$("$dump" "$work" --view system_event --format csv --accept-damaged 2>"$work/csv.err")
if [ "$(echo "$out" | head -1)" = "window,fidelity,event,waits,total_ns,avg_ns,max_ns,pct_db,status,p50_ns,p95_ns,p99_ns,p50_lo_ns,p50_hi_ns,p95_lo_ns,p95_hi_ns,p99_lo_ns,p99_hi_ns" ] &&
   echo "$out" | grep -qx 'all,exact,Timeout:PgSleep,10,2000000000,200000000,200000000,65.8545,ok,200000000,200000000,200000000,200000000,200000001,200000000,200000001,200000000,200000001' &&
   echo "$out" | grep -qx 'all,sampled,IO:WALWrite,,500000000,,,16.4636,ok,,,,,,,,,' &&
   grep -q '1 bad blocks skipped' "$work/csv.err"; then
  pass dump-csv
else
  fail dump-csv "$(echo "$out" | head -3 | tr '\n' ' ')"
fi

out=$("$top/bin/pgwt-dump" "$work" --accept-damaged 2>&1)
if echo "$out" | grep -q '1 bad blocks skipped' && echo "$out" | grep -q '== Time model' &&
   echo "$out" | grep -q '== Sessions' && echo "$out" | grep -q '== Query events' &&
   echo "$out" | grep -Eq 'IO:WALWrite +\? '; then
  pass dump-text-summary
else
  fail dump-text-summary "$(echo "$out" | head -3 | tr '\n' ' ')"
fi

# Several windows side by side in text: PgSleep is 0 in the last 5 s (only
# samples there) and 2000 ms in the last minute.
out=$("$dump" "$work" --view time_model --window 5s,1m 2>&1)
if echo "$out" | grep -q '== Time model by window  \[last 5s: sampled\] \[last 1m: mixed\]' &&
   echo "$out" | grep -Eq '^ +Timeout:PgSleep +0\.000 +0\.0% +2000\.000 +65\.9%$'; then
  pass dump-window-columns
else
  fail dump-window-columns "$(echo "$out" | sed -n 3,5p | tr '\n' ' ')"
fi

# A pgwt-synth trace (transitions and samples of the same backends, with the
# truth printed by the generator) read back one tier at a time.
synth=$top/bin/pgwt-synth
make -s -C "$top/tools" all >"$PGWT_LOGDIR/pgwt-synth-build.log" 2>&1
if [ ! -x "$synth" ]; then
  fail dump-synth "bin/pgwt-synth not built: $(tail -3 "$PGWT_LOGDIR/pgwt-synth-build.log" | tr '\n' ' ')"
elif ! "$synth" -o "$work/synth" "$top/tools/pgwt-synth/scenarios/small.scn" >"$work/truth.json" 2>"$work/synth.err"; then
  fail dump-synth "pgwt-synth failed: $(tail -2 "$work/synth.err" | tr '\n' ' ')"
else
  "$dump" "$work/synth" --only exact --view system_event --format json >"$work/exact.json" 2>&1 &&
  "$dump" "$work/synth" --only sampled --view system_event --format json >"$work/sampled.json" 2>&1
  if python3 - "$work" <<'PY' >"$work/synth.out" 2>&1
import json, sys
d = sys.argv[1]
truth = json.load(open(d + "/truth.json"))
def rows(f):
    objs = [json.loads(l) for l in open(f) if l.strip()]
    o = [x for x in objs if x["view"] == "system_event"][0]
    return o, {r["event"]: r for r in o["rows"]}
eo, ex = rows(d + "/exact.json")
so, sa = rows(d + "/sampled.json")
bad = []
def want(cond, what):
    if not cond: bad.append(what)
idle = {"Client:ClientRead"}
db = truth["cpu"]["wait_ns"]
for e in truth["events"]:
    r = ex.get(e["name"]); s = sa.get(e["name"])
    want(r and r["waits"] == e["waits"] and r["total_ns"] == e["wait_ns"] and r["fidelity"] == "exact", "exact " + e["name"])
    want(s and s["waits"] is None and s["total_ns"] == e["sampled_ns"] and s["fidelity"] == "sampled", "sampled " + e["name"])
    if e["name"] not in idle: db += e["wait_ns"]
want(ex["CPU*"]["waits"] == truth["cpu"]["waits"] and ex["CPU*"]["total_ns"] == truth["cpu"]["wait_ns"], "exact CPU*")
want(sa["CPU*"]["total_ns"] == truth["cpu"]["sampled_ns"], "sampled CPU*")
want(eo["db_time_ns"] == db, "exact DB time %d != %d" % (eo["db_time_ns"], db))
want(eo["backends"] == truth["backends"], "backends")
if bad:
    print("mismatch:", ", ".join(bad)); sys.exit(1)
PY
  then pass dump-synth-truth; else fail dump-synth-truth "$(tail -2 "$work/synth.out" | tr '\n' ' ')"; fi
fi

# The exact-only views over a second known-truth trace (test/exact_fixture.c
# says what it holds): a herd on one event, a lock chain with the server's
# blocker lists in blockers.tsv, an escalation with samples inside it.
xdir=$work/exact
mkdir "$xdir"
if ! "$top/build/tools/pgwt-dump/exact_fixture" "$xdir"; then
  fail dump-exact-fixture "fixture writer failed"
else
  xcheck() {
    local name=$1 expr=$2; shift 2
    local out
    if ! out=$("$dump" "$xdir" --format json "$@" 2>&1); then
      fail "$name" "pgwt-dump exited non-zero: $(echo "$out" | tail -2 | tr '\n' ' ')"; return
    fi
    if python3 "$work/check.py" "$expr" <<<"$out" >"$work/py.out" 2>&1; then
      pass "$name"
    else
      fail "$name" "$(tail -2 "$work/py.out" | tr '\n' ' ')"
    fi
  }
  T1=1772029801000000000
  xcheck dump-transitions \
    'v["transitions"]["transitions"] == 17 and [(r["from"], r["to"], r["count"], r["total_ns"]) for r in v["transitions"]["rows"]][:2] == [("IO:DataFileRead", "CPU*", 7, 602000000), ("Lock:tuple", "CPU*", 5, 330000000)] and v["transitions"]["rows"][0]["pct_of_from"] == 100.0' \
    --view transitions
  xcheck dump-fingerprints \
    '[(r["query_id"], r["fingerprint"], r["exact_ns"]) for r in v["fingerprints"]["rows"]] == [(33, "CPU:60%|IO:40%", 1000000000), (22, "Lock:100%", 330000000), (11, "IO:98%|LWLock:2%", 206000000)] and v["fingerprints"]["rows"][0]["query"] == "UPDATE t SET v = v + 1"' \
    --view transitions
  xcheck dump-concurrency \
    "[(r['event'], r['peak'], r['peak_ns'], r['intervals'], r['bursts']) for r in v['concurrency']['rows']][:2] == [('IO:DataFileRead', 4, $T1 + 9000000, 7, 1), ('Lock:tuple', 3, $T1 + 1000000000, 5, 0)] and v['concurrency']['bursts'] == [{'event': 'IO:DataFileRead', 'sessions': 4, 'first_ns': $T1}] and v['concurrency']['late_intervals'] == 0 and [r['bursts'] for r in v['concurrency']['rows'] if r['event'] == 'LWLock:WALWrite'] == [0]" \
    --view concurrency
  xcheck dump-interference \
    '[(r["pid_a"], r["pid_b"], r["overlap_ns"], r["top_event"]) for r in v["interference"]["rows"]] == [(200, 300, 100000000, "Lock:tuple"), (200, 400, 50000000, "Lock:tuple"), (300, 400, 50000000, "Lock:tuple"), (1, 2, 47000000, "IO:DataFileRead")]' \
    --view interference --limit 4
  xcheck dump-lock-chains \
    '[(c["head"], c["waiters"], c["total_wait_ns"], c["depth"], c["path"]) for c in v["lock_chains"]["rows"]] == [(100, 4, 310000000, 2, [300, 200, 100]), (600, 2, 30000000, 1, [500, 600])] and len(v["lock_chains"]["edges"]) == 6 and v["trace"]["blocker_obs"] == 5 and v["trace"]["blocker_lines_bad"] == 1' \
    --view lock_chains
  xcheck dump-cross-validate \
    'v["cross_validate"]["basis"] == "superseded_samples" and v["cross_validate"]["samples"] == 10 and v["cross_validate"]["worst_diff_pp"] == 10.0 and v["cross_validate"]["worst_event"] == "IO:DataFileRead" and (v["cross_validate"]["top_n"], v["cross_validate"]["top_overlap"]) == (2, 2) and [(r["event"], r["exact_pct"], r["sampled_pct"]) for r in v["cross_validate"]["rows"]] == [("CPU*", 60.0, 60.0), ("IO:DataFileRead", 40.0, 30.0), ("IO:WALWrite", 0.0, 10.0)]' \
    --view cross_validate --from 2026-02-25T14:30:03 --to 2026-02-25T14:30:04
  # samples only: every exact view says so, with no rows
  for xv in transitions concurrency interference lock_chains cross_validate; do
    xcheck "dump-$xv-requires-exact" \
      "all(o['status'] == 'requires_exact' and o['rows'] is None for o in objs if o['view'] != 'trace') and len(objs) >= 2" \
      --view $xv --from 2026-02-25T14:30:10 --to 2026-02-25T14:30:12
  done
  out=$("$dump" "$xdir" --view lock_chains --format csv 2>/dev/null)
  if [ "$(echo "$out" | head -1)" = "window,head,cycle,total_wait_ns,waiters,depth,path,status" ] &&
     echo "$out" | grep -qx 'all,100,false,310000000,4,2,300 -> 200 -> 100,ok'; then
    pass dump-lock-chains-csv
  else
    fail dump-lock-chains-csv "$(echo "$out" | head -2 | tr '\n' ' ')"
  fi
  out=$("$dump" "$xdir" --view concurrency 2>&1)
  if echo "$out" | grep -Eq '^ +IO:DataFileRead +4 +14:30:01\.009 +7 +1 +4$' &&
     echo "$out" | grep -q '14:30:01.000 IO:DataFileRead *4 sessions'; then
    pass dump-concurrency-text
  else
    fail dump-concurrency-text "$(echo "$out" | sed -n 3,6p | tr '\n' ' ')"
  fi
fi

# cross_validate over a pgwt-synth trace: both tiers of one truth, no spans,
# so each side's shares must be the truth's, to the printed precision.
if [ -x "$synth" ] && [ -f "$work/truth.json" ]; then
  "$dump" "$work/synth" --view cross_validate --format json >"$work/xv.json" 2>&1
  if python3 - "$work" <<'PY' >"$work/xv.out" 2>&1
import json, sys
d = sys.argv[1]
truth = json.load(open(d + "/truth.json"))
xv = [json.loads(l) for l in open(d + "/xv.json") if l.strip()]
xv = [o for o in xv if o["view"] == "cross_validate"][0]
rows = {r["event"]: r for r in xv["rows"]}
idle = {"Client:ClientRead"}
ev = [e for e in truth["events"] if e["name"] not in idle]
ex_db = truth["cpu"]["wait_ns"] + sum(e["wait_ns"] for e in ev)
sa_db = truth["cpu"]["sampled_ns"] + sum(e["sampled_ns"] for e in ev)
bad = []
def near(a, b): return abs(a - b) < 1e-3
for name, w, s in [("CPU*", truth["cpu"]["wait_ns"], truth["cpu"]["sampled_ns"])] + [(e["name"], e["wait_ns"], e["sampled_ns"]) for e in ev]:
    r = rows.get(name)
    if not r or r["exact_ns"] != w or r["sampled_ns"] != s or not near(r["exact_pct"], 100.0 * w / ex_db) or not near(r["sampled_pct"], 100.0 * s / sa_db):
        bad.append(name)
worst = max(abs(100.0 * s / sa_db - 100.0 * w / ex_db) for _, w, s in [("", truth["cpu"]["wait_ns"], truth["cpu"]["sampled_ns"])] + [("", e["wait_ns"], e["sampled_ns"]) for e in ev])
if xv["basis"] != "window_samples" or xv["exact_db_ns"] != ex_db or xv["sampled_db_ns"] != sa_db or not near(xv["worst_diff_pp"], worst) or xv["top_n"] != 4 or xv["top_overlap"] != 4:
    bad.append("summary %r" % {k: xv[k] for k in ("basis", "worst_diff_pp", "top_n", "top_overlap")})
if bad:
    print("mismatch:", ", ".join(bad)); sys.exit(1)
PY
  then pass dump-cross-validate-synth; else fail dump-cross-validate-synth "$(tail -2 "$work/xv.out" | tr '\n' ' ')"; fi
fi

# Bad input: one line on stderr, non-zero status, nothing on stdout.

# A window that begins inside an escalation window (test/esc_edge_fixture.c:
# one backend, always active, sampled all along, exact in [100 s, 200 s)):
# the samples the exact records supersede are billed once, from records
# as from summaries, and without summaries.
esc=$work/esc-edge; mkdir "$esc"
if "$top/build/tools/pgwt-dump/esc_edge_fixture" "$esc"; then
  jdir=$esc
  json_check dump-esc-open-at-start \
    'v["time_model"]["db_time_ns"] == 100000000000 and v["time_model"]["cpu_ns"] == 25000000000 and v["trace"]["superseded_samples"] == 5000' \
    --view time_model --from 2026-01-01T00:02:30 --to 2026-01-01T00:04:10
  json_check dump-esc-open-at-start-exact-only \
    'v["time_model"]["db_time_ns"] == 30000000000 and v["time_model"]["fidelity"] == "exact"' \
    --view time_model --from 2026-01-01T00:02:30 --to 2026-01-01T00:03:00
  # the tracer's --replay reads the same way (it bills whole records, so a
  # wait crossing --from counts whole: 0.5 s more, never the 50 s twice)
  if make -s -C "$top" userspace >"$work/tracer-build.log" 2>&1 && [ -x "$top/bin/pg_wait_tracer" ]; then
    rj=$("$top/bin/pg_wait_tracer" --replay -T "$esc" --from 2026-01-01T00:02:30 --to 2026-01-01T00:04:10 \
         --view time_model --format json 2>&1)
    if python3 -c 'import json,sys; d=json.loads(sys.argv[1].splitlines()[0]); sys.exit(0 if 99.9e9 <= d["db_time_ns"] <= 100.6e9 else 1)' "$rj"; then
      pass replay-esc-open-at-start
    else
      fail replay-esc-open-at-start "$(head -c 200 <<<"$rj")"
    fi
  else
    fail replay-esc-open-at-start "tracer build: $(tail -3 "$work/tracer-build.log" | tr '\n' ' ')"
  fi
  json_check dump-esc-open-at-start-summaries \
    'v["time_model"]["db_time_ns"] == 100000000000 and v["time_model"]["cpu_ns"] == 25000000000 and v["summaries"]["used"]' \
    --view time_model --from 2026-01-01T00:02:30 --to 2026-01-01T00:04:10 --summaries
  json_check dump-esc-after-window \
    'v["time_model"]["db_time_ns"] == 40000000000 and v["time_model"]["fidelity"] == "sampled"' \
    --view time_model --from 2026-01-01T00:03:30 --to 2026-01-01T00:04:10
  rm -f "$esc"/*.sum
  json_check dump-esc-open-at-start-no-summary \
    'v["time_model"]["db_time_ns"] == 100000000000 and v["trace"]["superseded_samples"] == 5000' \
    --view time_model --from 2026-01-01T00:02:30 --to 2026-01-01T00:04:10
  unset jdir
else
  fail dump-esc-fixture "fixture writer failed"
fi

# The same trace rotated at 01:00:00Z, 150 s in, inside the window: the new
# file repeats the open window's ESC_START, so its summary (and a read of
# that file alone) supersedes the window's samples.
escr=$work/esc-rot; mkdir "$escr"
if "$top/build/tools/pgwt-dump/esc_edge_fixture" "$escr" rotate; then
  jdir=$escr
  n=$(ls "$escr"/*.trace.lz4 | wc -l)
  if [ "$n" = 2 ]; then pass dump-esc-rotation-two-files; else fail dump-esc-rotation-two-files "$n archives"; fi
  json_check dump-esc-rotation-summaries \
    'v["summaries"]["used"] and v["time_model"]["db_time_ns"] == 90000000000 and v["time_model"]["cpu_ns"] == 20000000000' \
    --view time_model --from 2026-01-01T01:00:10 --to 2026-01-01T01:01:40 --summaries
  json_check dump-esc-rotation-raw \
    'v["time_model"]["db_time_ns"] == 90000000000 and v["time_model"]["cpu_ns"] == 20000000000' \
    --view time_model --from 2026-01-01T01:00:10 --to 2026-01-01T01:01:40
  jdir=$escr/2026-01-01_01.trace.lz4
  json_check dump-esc-rotation-second-file-alone \
    'v["time_model"]["db_time_ns"] == 40000000000 and v["time_model"]["fidelity"] == "exact"' \
    --view time_model --from 2026-01-01T01:00:00 --to 2026-01-01T01:00:40
  json_check dump-esc-rotation-second-file-summaries \
    'v["summaries"]["used"] and v["time_model"]["db_time_ns"] == 30000000000 and v["time_model"]["fidelity"] == "exact"' \
    --view time_model --from 2026-01-01T01:00:10 --to 2026-01-01T01:00:40 --summaries
  unset jdir
else
  fail dump-esc-rotation-fixture "fixture writer failed"
fi

bad() {
  local name=$1 want=$2; shift 2
  local o e rc
  o=$("$dump" "$@" 2>"$work/err"); rc=$?
  e=$(cat "$work/err")
  if [ "$rc" = "$want" ] && [ -z "$o" ] && [ "$(echo "$e" | wc -l)" = 1 ] && [[ "$e" == pgwt-dump:* ]]; then
    pass "$name"
  else
    fail "$name" "rc=$rc (want $want) stdout='${o:0:60}' stderr='$e'"
  fi
}
bad dump-bad-view 2 "$work" --view nope
bad dump-bad-time 2 "$work" --from yesterday
bad dump-bad-format 2 "$work" --format xml
bad dump-bad-event 2 "$work" --view histogram --event IO:Nope
bad dump-missing-dir 1 "$work/missing"
bad dump-empty-dir 1 "$work/empty-dir-does-not-exist-either"
mkdir "$work/empty"
bad dump-no-traces 1 "$work/empty"
bad dump-bad-only 2 "$work" --only both
bad dump-bad-exact-view 2 "$work" --view transition

# A hostile events.tsv (docs/TRACE_FORMAT.md 8.3): its good lines name
# events, its bad ones (control characters, overlong, a class that is not
# the id's, malformed) are one warning with their count, and the views run.
{
  printf '#pgwt-events\t1\t180006\n'
  printf '0x0a000015\tIO\tDataFileReadFromFile\n'
  printf '0x0a000015\tIO\tterm\033]0;x\007\n'
  printf '0x0a000016\tIO\t%s\n' "$(printf 'y%.0s' $(seq 80))"
  printf '0x0a000017\tLWLock\tliar\n'
  printf 'not a line\n'
  printf '0x0a000018\tIO\ttorn'
} >"$work/events.tsv"
o=$("$dump" "$work" --view system_event --format csv --accept-damaged 2>"$work/err"); rc=$?
e=$(grep -c . "$work/err"); w=$(grep -c 'warning: .*events.tsv: 5 line(s) ignored' "$work/err")
if [ "$rc" = 0 ] && [ -n "$o" ] && [ "$w" = 1 ] && [ "$(grep -vc '^trace: ' "$work/err")" = 1 ] \
   && ! grep -q $'\033' <<<"$o$(cat "$work/err")"; then
  pass dump-events-hostile
else
  fail dump-events-hostile "rc=$rc, $e stderr line(s): $(tr '\n' ' ' <"$work/err" | cut -c1-300)"
fi
rm -f "$work/events.tsv"
exit 0
