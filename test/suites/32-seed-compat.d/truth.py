#!/usr/bin/env python3
"""pgwt-dump's system_event (JSON, stdin) against pgwt-synth's truth (argv[1]):
per event (CPU* as id 0) exact waits and time, and sampled time, equal.
Prints one line per difference; exit 1 if any."""
import json
import sys

truth = json.load(open(sys.argv[1]))
lines = [json.loads(x) for x in sys.stdin if x.startswith("{")]
rows = {r["event_id"]: r for r in lines[-1]["rows"]}
want = {0: truth["cpu"]}
for e in truth["events"]:
    want[e["id"]] = e
bad = 0
for eid, t in want.items():
    r = rows.get(eid)
    got = (r["exact_waits"], r["exact_ns"], r["sampled_ns"]) if r else None
    exp = (t["waits"], t["wait_ns"], t["sampled_ns"])
    if got != exp:
        print("event 0x%08x: ours %s, truth %s" % (eid, got, exp))
        bad = 1
if lines[0]["records"] != truth["records"]:
    print("records: ours %d, truth %d" % (lines[0]["records"], truth["records"]))
    bad = 1
sys.exit(bad)
