#!/usr/bin/env python3
"""Hold pgwt-dump's reading of a seed-tool trace directory to the seed's own dump.

usage: compare.py PGWT_DUMP DIR SEED_DUMP

Prints PASS/FAIL lines (suite format). Only the differences named in
docs/TRACE_FORMAT.md ("Reading the seed tool's directories") are allowed,
each computed and asserted here:
  D1 which processes count: the seed leaves io workers out of everything and
     counts every other process in DB time; we count sessions in DB time and
     the rest as background. Events and sessions are compared with io worker
     pids taken out of ours, DB time as ours plus background minus io workers.
  D2 the seed counts a sample as one wait; we count samples apart: the seed's
     Waits = our exact waits + our samples (sampled time / sample period).
  D3 the seed's Top Queries leave query id 0 out; we list it.
  D4 the seed's time model splits CPU* by cpu_ns into CPU* and Off-CPU*;
     ours keeps one CPU* row: their sum equals it.
  D5 records the seed's dump loses: a block whose records are out of time
     order loses those past its first record's range in the seed's reader.
     When the directory's scenario (the generator's input) is present, our
     counts and per-event totals are held to it instead, and the seed's dump
     must be the one that is short.
"""
import json
import os
import re
import subprocess
import sys

name = None


def out(ok, what, detail=""):
    print("%s seed-%s-%s%s" % ("PASS" if ok else "FAIL", name, what,
                              (": " + detail) if (detail and not ok) else ""))
    return ok


def dump(pgwt, d, *args):
    p = subprocess.run([pgwt, d, "--format", "json"] + list(args),
                       capture_output=True, text=True)
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
    return p.returncode, lines, p.stderr


def seed_parse(path):
    s = {"events": {}, "sessions": {}, "queries": {}, "period_ns": 0}
    sec = None
    for line in open(path, encoding="utf-8"):
        m = re.search(r"Events: (\d+) \((\d+) transitions, (\d+) samples\)", line)
        if m:
            s["transitions"], s["samples"] = int(m.group(2)), int(m.group(3))
        m = re.search(r"Sample period: ([\d.]+) ms", line)
        if m:
            s["period_ns"] = round(float(m.group(1)) * 1e6)
        m = re.search(r"DB Time: ([\d.]+) ms", line)
        if m:
            s["db_ms"] = float(m.group(1))
        if "=== Time Model" in line:
            sec = "tm"
        elif "=== Top Events" in line:
            sec = "ev"
        elif "=== Top Sessions" in line:
            sec = "se"
        elif "=== Top Queries" in line:
            sec = "qu"
        f = line.split()
        if sec == "tm" and len(f) == 3 and f[0] in ("CPU*", "Off-CPU*"):
            s[f[0]] = float(f[1])
        elif sec == "ev" and len(f) == 5 and re.match(r"^\d+$", f[1]):
            s["events"][f[0]] = (int(f[1]), float(f[2]))
        elif sec == "se" and len(f) >= 4 and re.match(r"^\d+$", f[0]):
            s["sessions"][int(f[0])] = float(f[1])
        elif sec == "qu" and len(f) >= 4 and re.match(r"^\d+$", f[0]):
            s["queries"][int(f[0])] = (int(f[1]), float(f[2]))
    return s


def io_pids(d):
    pids = set()
    p = os.path.join(d, "backends.jsonl")
    if os.path.exists(p):
        for line in open(p, encoding="utf-8"):
            if line.strip():
                o = json.loads(line)
                if o.get("type") in ("io_worker", "io worker"):
                    pids.add(int(o["pid"]))
    return pids


def scenario_truth(d):
    p = os.path.join(d, "_scenario_1.json")
    if not os.path.exists(p):
        return None
    sc = json.load(open(p, encoding="utf-8"))
    ev = {}
    for e in sc.get("events", []):
        if e["old"] >= 0xFFFFFFF0 or e["new"] >= 0xFFFFFFF0 and e["new"] != 0xFFFFFFFF:
            continue
        t = ev.setdefault(e["old"], [0, 0])
        t[0] += 1
        t[1] += e["dur"]
    return {"transitions": len(sc.get("events", [])), "samples": len(sc.get("samples", [])),
            "events": ev}


def main():
    global name
    pgwt, d, seed_path = sys.argv[1:4]
    name = os.path.basename(d.rstrip("/"))
    seed = seed_parse(seed_path)
    period = seed["period_ns"]
    io = io_pids(d)
    truth = scenario_truth(d)

    rc, ev, err = dump(pgwt, d, "--view", "system_event")
    if not out(rc == 0 and len(ev) == 2, "read", "status %d: %s" % (rc, err.strip())):
        return
    tr, sv = ev
    out(tr["bad_blocks_skipped"] == 0 and tr["bytes_truncated"] == 0 and tr["files_bad"] == 0,
        "nothing-skipped", json.dumps(tr))

    # io workers' share, per event, from their own rows (D1)
    io_ev = {}
    for pid in io:
        _, rows, _ = dump(pgwt, d, "--view", "session_event", "--pid-filter", str(pid))
        for r in rows[-1]["rows"]:
            t = io_ev.setdefault(r["event"], [0, 0, 0])
            t[0] += r["exact_waits"]
            t[1] += r["total_ns"]
            t[2] += r["sampled_ns"]

    ours = {}
    for r in sv["rows"]:
        x = io_ev.get(r["event"], [0, 0, 0])
        samples = (r["sampled_ns"] - x[2]) // period if period else 0
        waits = r["exact_waits"] - x[0] + samples
        total = r["total_ns"] - x[1]
        if waits or total:
            ours[r["event"]] = (waits, total / 1e6)

    lost = False
    if truth is not None:
        out(tr["transitions"] == truth["transitions"] and tr["samples"] == truth["samples"],
            "records-as-generated", "ours %d/%d, scenario %d/%d" % (
                tr["transitions"], tr["samples"], truth["transitions"], truth["samples"]))
        lost = (seed["transitions"] < truth["transitions"] or
                seed["samples"] < truth["samples"] - tr["superseded_samples"])
    if lost:
        # D5: the seed's dump is short; ours is held to the scenario
        exact = {}
        for r in sv["rows"]:
            exact[r["event_id"]] = (r["exact_waits"], r["exact_ns"])
        want = {k: tuple(v) for k, v in truth["events"].items()}
        out(exact == want, "events-as-generated", "ours %s, scenario %s" % (exact, want))
        out(seed["transitions"] < tr["transitions"], "seed-dump-short",
            "seed %d, ours %d" % (seed["transitions"], tr["transitions"]))
        return

    out(seed["transitions"] == tr["transitions"] and
        seed["samples"] == tr["samples"] - tr["superseded_samples"],
        "records", "seed %d+%d, ours %d+%d-%d superseded" % (
            seed["transitions"], seed["samples"], tr["transitions"], tr["samples"],
            tr["superseded_samples"]))
    want = {k: (v[0], round(v[1], 1)) for k, v in seed["events"].items()}
    got = {k: (v[0], round(v[1], 1)) for k, v in ours.items()}
    out(want == got, "events", "seed %s, ours %s" % (want, got))

    db = (sv["db_time_ns"] + sv["background_ns"] - sum(x[1] for x in io_ev.values())) / 1e6
    out(abs(db - seed["db_ms"]) < 0.05, "db-time", "seed %.1f, ours %.1f" % (seed["db_ms"], db))
    if "Off-CPU*" in seed:
        cpu = ours.get("CPU*", (0, 0))[1]
        out(abs(seed.get("CPU*", 0) + seed["Off-CPU*"] - cpu) < 0.05, "cpu-split",
            "seed %.1f+%.1f, ours %.1f" % (seed.get("CPU*", 0), seed["Off-CPU*"], cpu))

    rc, se, err = dump(pgwt, d, "--view", "session_event")
    got = {r["pid"]: round(r["db_time_ns"] / 1e6, 1) for r in se[1]["rows"]
           if r["pid"] not in io and r["db_time_ns"] > 0}
    want = {k: round(v, 1) for k, v in seed["sessions"].items()}
    out(want == got, "sessions", "seed %s, ours %s" % (want, got))

    rc, qu, err = dump(pgwt, d, "--view", "query_event")
    q = {}
    for r in qu[1]["rows"]:
        if r["query_id"] == 0:
            continue            # D3
        t = q.setdefault(r["query_id"], [0, 0])
        t[0] += r["exact_waits"] + (r["sampled_ns"] // period if period else 0)
        t[1] += r["total_ns"]
    got = {k: (v[0], round(v[1] / 1e6, 1)) for k, v in q.items()}
    want = {k: (v[0], round(v[1], 1)) for k, v in seed["queries"].items()}
    out(want == got and 0 not in seed["queries"], "queries", "seed %s, ours %s" % (want, got))


if __name__ == "__main__":
    main()
