#!/usr/bin/env python3
"""Percentiles against known truth, per event, per session and per query,
in every format of pgwt-dump and pg_wait_tracer --replay (32-seed-compat).

The traces are v3 files in the seed tool's layout, written by the
independent encoder test/golden/golden.py (no code shared with tracefmt/):

  known:     session 4242, query 77: ten 200 ms PgSleep waits and one of
             1.5 s; session 4243, query 88: twenty 10 ms PgSleep waits (so
             the event's own p50 is 10 ms's bucket: a session or query row
             that showed the event's percentiles would fail).
             Truth: p50 in 200 ms's log2 bucket [134.2 ms, 268.4 ms), and
             p99 = max = 1.5 s (the wait of rank 11 of 11 is the largest,
             known exactly).
  lognormal: 100,000 IO waits of one session and query, log-normal (median
             2 ms, sigma 1.5, fixed seed). Truth: the waits of rank
             ceil(q * n), q = 0.95, 0.99, sorted. Each estimate is within one
             log2 bucket of it and the bounds printed hold it.

  pct_truth.py write DIR known|lognormal   write the trace directory
  pct_truth.py check DIR known|lognormal DUMP TRACER
                                           print PASS/FAIL lines
  pct_truth.py sql known|lognormal FILE    the same checks of SQL rows
                                           (45-coop-truth: history SQL)
"""
import csv
import io
import json
import math
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "golden"))
import golden  # noqa: E402

RT = 1_700_000_000_000_000_000      # 2023-11-14 22:13:20 UTC
MONO = 1_000_000_000
PG = 150004
PGSLEEP = 0x09000002
IO_EV = 0x0A000001
MS = 1_000_000


def bucket(ns):
    """common/histogram.h's bucket, written again from its comment."""
    if ns < 1 << 10:
        return 0
    return min(ns.bit_length() - 10, 31)


def known_recs():
    recs = []
    t = MONO + 1_000 * MS

    def wait(pid, qid, ev, d):
        nonlocal t
        t += MS                                 # 1 ms on CPU first
        recs.append(golden.T(t, pid, 0, ev, MS, qid))
        t += d
        recs.append(golden.T(t, pid, ev, 0, d, qid))

    for d in [200 * MS] * 5 + [1500 * MS] + [200 * MS] * 5:
        wait(4242, 77, PGSLEEP, d)
    for _ in range(20):
        wait(4243, 88, PGSLEEP, 10 * MS)
    return recs


def lognormal_durations():
    rng = random.Random(20261202)
    return [max(1, int(rng.lognormvariate(math.log(2 * MS), 1.5))) for _ in range(100_000)]


def lognormal_recs():
    recs = []
    t = MONO + 1_000 * MS
    for d in lognormal_durations():
        t += 1000
        recs.append(golden.T(t, 5000, 0, IO_EV, 1000, 99))
        t += d
        recs.append(golden.T(t, 5000, IO_EV, 0, d, 99))
    return recs


def write(d, kind):
    recs = known_recs() if kind == "known" else lognormal_recs()
    flags = 1 if kind == "known" else 0         # LZ4 literals; raw for the big one
    blocks = [(golden.block(3, flags, 0, 0, recs[i:i + 4096]), recs[i]["ts"])
              for i in range(0, len(recs), 4096)]
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "2023-11-14_22.trace.lz4"), "wb") as f:
        f.write(golden.trace_file(3, flags, PG, RT, MONO, blocks))
    with open(os.path.join(d, "backends.jsonl"), "w") as f:
        for pid in (4242, 4243, 5000):
            f.write(json.dumps({"pid": pid, "type": "client", "user": "u", "db": "d"}) + "\n")


# ---- what the tools print ------------------------------------------------

def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def rows_json(out, view, event):
    for line in out.splitlines():
        if not line.startswith("{"):
            continue
        o = json.loads(line)
        if o.get("view") == view:
            for r in o.get("rows", []):
                if r["event"] == event:
                    return {"waits": r["waits"], "max": r["max_ns"],
                            "p": [(r[k + "_ns"], r.get(k + "_lo_ns"), r.get(k + "_hi_ns"))
                                  for k in ("p50", "p95", "p99")]}
    return None


def rows_csv(out, event):
    """The event table (its header has p50_ns), not the sessions' before it."""
    lines = out.splitlines()
    heads = [i for i, x in enumerate(lines) if x.startswith("window,") and ",p50_ns," in x]
    if not heads:
        return None
    lines = lines[heads[-1]:]
    for r in csv.DictReader(io.StringIO("\n".join(lines) + "\n")):
        if r["event"] == event:
            return {"waits": int(r["waits"]), "max": int(r["max_ns"]),
                    "p": [(int(r[k + "_ns"]), int(r[k + "_lo_ns"]), int(r[k + "_hi_ns"]))
                          for k in ("p50", "p95", "p99")]}
    return None


def rows_text(out, event):
    """Text tables: the event's row, microseconds; the bound's footnote."""
    if "p50/p95/p99: bucketed, not exact: each lies in the log2 bucket" not in out:
        return None
    in_table = False
    for line in out.splitlines():
        f = line.split()
        in_table = in_table or "p50 (us)" in line     # the event table, not the sessions'
        if in_table and event in f:
            i = f.index(event)
            us = [float(x) for x in f[i + 1:i + 8]]   # waits total avg max p50 p95 p99
            return {"waits": int(us[0]), "max": round(us[3] * 1000),
                    "p": [(round(x * 1000), None, None) for x in us[4:7]]}
    return None


def parse(fmt, out, view, event):
    """The row, or None when it is missing or its figures are not numbers
    ('?' in text, empty in CSV, null in JSON: the failure asserted)."""
    try:
        return parse_fmt(fmt, out, view, event)
    except (ValueError, KeyError, TypeError):
        return None


def parse_fmt(fmt, out, view, event):
    if fmt == "json":
        return rows_json(out, view, event)
    if fmt == "csv":
        return rows_csv(out, event)
    return rows_text(out, event)


def report(name, ok, why):
    print("PASS %s" % name if ok else "FAIL %s: %s" % (name, why))


def known_ok(r, want_waits, p50_bucket, maxv, slack_ns):
    """p50 in its bucket, p99 = max = the largest wait (text: 0.1 us)."""
    if r is None or r["waits"] != want_waits or abs(r["max"] - maxv) > slack_ns:
        return False
    p50, p99 = r["p"][0], r["p"][2]
    if p50[0] is None or p99[0] is None:
        return False                            # JSON null: not known
    if bucket(p50[0]) != p50_bucket or abs(p99[0] - maxv) > slack_ns:
        return False
    # json and csv: the stated bounds hold the truth (200 ms; 1.5 s)
    if p50[1] is not None and not (p50[1] <= 200 * MS < p50[2]):
        return False
    if p99[1] is not None and not (p99[1] <= maxv < p99[2]):
        return False
    return True


def check_known(d, dump, tracer):
    cases = []
    for fmt in ("text", "csv", "json"):
        cases += [
            ("dump-session", fmt, "session_detail",
             [dump, d, "--view", "session_event", "--pid-filter", "4242", "--format", fmt]),
            ("dump-query", fmt, "query_event",
             [dump, d, "--view", "query_event", "--query-id", "77", "--format", fmt]),
            ("replay-session", fmt, "session_detail",
             [tracer, "--replay", "-T", d, "--view", "session_event", "--pid-filter", "4242",
              "--format", fmt]),
            ("replay-query", fmt, "query_event",
             [tracer, "--replay", "-T", d, "--view", "query_event", "--query-id", "77",
              "--format", fmt]),
        ]
    for what, fmt, view, argv in cases:
        rc, out, err = run(argv)
        r = parse(fmt, out, view, "Timeout:PgSleep")
        slack = 100 if fmt == "text" else 0
        ok = rc == 0 and known_ok(r, 11, bucket(200 * MS), 1500 * MS, slack)
        report("pct-known-%s-%s" % (what, fmt), ok, "rc=%d row=%s err=%s" % (rc, r, err.strip()[:200]))
    # the event row mixes both sessions: its p50 is the 10 ms waits' bucket,
    # so a session or query row equal to it would have failed above
    rc, out, err = run([dump, d, "--view", "system_event", "--format", "json"])
    r = rows_json(out, "system_event", "Timeout:PgSleep")
    ok = rc == 0 and r is not None and r["waits"] == 31 and bucket(r["p"][0][0]) == bucket(10 * MS)
    report("pct-known-event-differs", ok, "rc=%d row=%s" % (rc, r))


def check_lognormal(d, dump, tracer):
    ds = sorted(lognormal_durations())
    n = len(ds)
    truth = {q: ds[math.ceil(q * n) - 1] for q in (0.95, 0.99)}
    cases = [
        ("dump-event", "system_event", [dump, d, "--view", "system_event", "--format", "json"]),
        ("dump-session", "session_detail",
         [dump, d, "--view", "session_event", "--pid-filter", "5000", "--format", "json"]),
        ("dump-query", "query_event",
         [dump, d, "--view", "query_event", "--query-id", "99", "--format", "json"]),
        ("replay-query", "query_event",
         [tracer, "--replay", "-T", d, "--view", "query_event", "--query-id", "99",
          "--format", "json"]),
    ]
    for what, view, argv in cases:
        rc, out, err = run(argv)
        r = None
        for line in out.splitlines():
            if line.startswith("{") and json.loads(line).get("view") == view:
                rows = json.loads(line)["rows"]
                io_rows = [x for x in rows if x["event_id"] == IO_EV]
                if io_rows and io_rows[0]["p95_ns"] is not None:
                    x = io_rows[0]
                    r = {k: (x[k + "_ns"], x[k + "_lo_ns"], x[k + "_hi_ns"]) for k in ("p95", "p99")}
                    r["waits"] = x["waits"]
        ok = rc == 0 and r is not None and r["waits"] == n
        why = "rc=%d row=%s truth=%s err=%s" % (rc, r, truth, err.strip()[:200])
        for q, k in ((0.95, "p95"), (0.99, "p99")):
            if ok:
                est, lo, hi = r[k]
                ok = abs(bucket(est) - bucket(truth[q])) <= 1 and lo <= truth[q] < hi
        report("pct-lognormal-%s" % what, ok, why)


def check_sql(kind, path):
    """Rows of the SQL views (psql -At: name|waits|p50_us|p95_us|p99_us|max_us
    per line, name = the check's) against the same truth."""
    ds = sorted(lognormal_durations()) if kind == "lognormal" else []
    for line in open(path):
        f = line.strip().split("|")
        if len(f) != 6:
            continue
        name = f[0]
        try:
            waits = int(f[1])
            p = [round(float(x) * 1000) for x in f[2:6]]     # us -> ns
        except ValueError:
            report("pct-sql-%s-%s" % (kind, name), False, "not numbers: %s" % line.strip())
            continue
        if kind == "known":
            if name.endswith("event"):      # the event's: both sessions, 31 waits
                ok = waits == 31 and bucket(p[0]) == bucket(10 * MS)
            else:
                ok = known_ok({"waits": waits, "max": p[3], "p": [(p[0], None, None), (p[1], None, None),
                                                                 (p[2], None, None)]},
                              11, bucket(200 * MS), 1500 * MS, 1000)
        else:
            t95, t99 = ds[math.ceil(0.95 * len(ds)) - 1], ds[math.ceil(0.99 * len(ds)) - 1]
            ok = waits == len(ds) and abs(bucket(p[1]) - bucket(t95)) <= 1 and \
                abs(bucket(p[2]) - bucket(t99)) <= 1
        report("pct-sql-%s-%s" % (kind, name), ok, line.strip())


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "sql":
        check_sql(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == "check":
        (check_known if sys.argv[3] == "known" else check_lognormal)(sys.argv[2], sys.argv[4], sys.argv[5])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
