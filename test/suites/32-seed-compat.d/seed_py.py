#!/usr/bin/env python3
"""The independent seed-layout reader (test/golden/seed_reader.py) against
the seed tool's own dump of a fixture directory, and against our C reader.

usage: seed_py.py fixture DIR SEED_DUMP    counts and the Top Events table
       seed_py.py records DIR TFDUMP       identical records (sorted lines)

Prints PASS/FAIL lines. A fixture whose scenario (its generator's input)
is beside it and whose seed dump is short of it (the seed's reader loses
out-of-order records, TRACE_FORMAT 7.1) is held to the scenario instead.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
READER = os.path.join(HERE, "..", "..", "golden", "seed_reader.py")
# Names the fixtures' events have in PostgreSQL 18 (the seed names them
# from its compiled tables; these directories carry no names file).
PG18 = {0x0A000015: "IO:DataFileRead", 0x0A000018: "IO:DataFileWrite",
        0x03000008: "Lock:object", 0x03000000: "Lock:relation"}


def out(ok, what, detail=""):
    print("%s %s%s" % ("PASS" if ok else "FAIL", what, (": " + detail) if detail and not ok else ""))
    return ok


def reader(mode, d):
    p = subprocess.run([sys.executable, READER, mode, d], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(out(False, "seedpy-reader", p.stderr.strip()[-300:]))
    return p.stdout


def seed_dump(path):
    s = {"events": {}, "queries": 0, "backends": 0}
    sec = None
    for line in open(path, encoding="utf-8"):
        m = re.search(r"Events: (\d+) \((\d+) transitions, (\d+) samples\)", line)
        if m:
            s["transitions"], s["samples"] = int(m.group(2)), int(m.group(3))
        m = re.search(r"loaded (\d+) query texts", line)
        if m:
            s["queries"] = int(m.group(1))
        m = re.search(r"loaded (\d+) backend metadata", line)
        if m:
            s["backends"] = int(m.group(1))
        if "===" in line:
            sec = "ev" if "Top Events" in line else None
        f = line.split()
        if sec == "ev" and len(f) == 5 and re.match(r"^\d+$", f[1]):
            s["events"][f[0]] = [int(f[1]), float(f[2])]
    return s


def fixture(d, dump):
    n = os.path.basename(os.path.normpath(d))
    got = json.loads(reader("table", d))
    ev = {}
    for k, v in got["events"].items():
        ev[PG18.get(int(k, 16), k) if k.startswith("0x") else k] = v
    want = seed_dump(dump)
    scn = os.path.join(d, "_scenario_1.json")
    ok = out(got["pg"] and all(v < 1000 for v in got["pg"]), "seedpy-%s-pg-major" % n)
    ok &= out(got["queries"] == want["queries"] and got["backends"] == want["backends"],
              "seedpy-%s-sidefiles" % n, "%s vs %s" % ((got["queries"], got["backends"]),
                                                     (want["queries"], want["backends"])))
    if os.path.exists(scn) and got["transitions"] + got["samples"] > \
            want["transitions"] + want["samples"]:
        sc = json.load(open(scn))
        ok &= out(got["transitions"] == len(sc["events"]) and
                  got["samples"] == len(sc.get("samples", [])),
                  "seedpy-%s-scenario" % n, "read %d+%d, scenario %d" %
                  (got["transitions"], got["samples"], len(sc["events"])))
        return ok
    ok &= out(got["transitions"] == want["transitions"] and got["samples"] == want["samples"],
              "seedpy-%s-counts" % n, "%d+%d vs %d+%d" % (got["transitions"], got["samples"],
                                                          want["transitions"], want["samples"]))
    ok &= out(ev == want["events"], "seedpy-%s-events" % n, "%s vs %s" % (ev, want["events"]))
    return ok


def records(d, tfdump, name):
    mine = reader("records", d).splitlines()
    p = subprocess.run([tfdump, d], capture_output=True, text=True)
    theirs = sorted(x for x in p.stdout.splitlines() if x[:2] in ("T ", "S "))
    detail = ""
    if mine != theirs:
        a, b = set(mine), set(theirs)
        detail = "%d vs %d records; only ours: %s; only python: %s" % (
            len(theirs), len(mine), sorted(b - a)[:2], sorted(a - b)[:2])
    return out(p.returncode == 0 and mine == theirs and len(mine) > 0,
               "seedpy-%s-records" % name, detail or p.stderr.strip()[-200:])


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "fixture":
        sys.exit(0 if fixture(sys.argv[2], sys.argv[3]) else 1)
    if len(sys.argv) == 5 and sys.argv[1] == "records":
        sys.exit(0 if records(sys.argv[2], sys.argv[3], sys.argv[4]) else 1)
    sys.stderr.write(__doc__)
    sys.exit(2)
