#!/usr/bin/env python3
"""One known workload, every path that can answer for it, one answer.

Run by test/suites/80-cross-path against a hook-patched PostgreSQL 18 with
the extension tracing every session (pg_wait_tracer.capture = trace) and the
external tracer recording beside it. The workload: a 1 s pg_sleep, an
advisory lock held 1.2 s while another session waits for it, and a short
pgbench. Between two instants T0 and T1 (both taken while no workload
session exists) the paths are:

  live      the extension's SQL views, read at T0 and at T1 (the difference)
  history   pgwt_history_* over [T0, T1) of the extension's trace files
  replay    pg_wait_tracer --replay --from T0 --to T1 of the same files
  dump      pgwt-dump --from T0 --to T1 of the same files
  tracer    pg_wait_tracer --replay of the external tracer's own recording
            (sampled here: its figures carry a sampling error)

Compared for every exact path (live, history, replay, dump): DB time, the
time of each class (CPU* included), the total of each event the sessions
waited for and the PgSleep histogram; for the file paths also which pids
count as sessions. Exact within 0.5% (plus 5 ms on DB time and CPU*, which
move with the reading sessions' own statements between a view's read and
the instant, and 0.001 ms for SQL's rounding). The session that reads the
live views at an instant is an observer, not part of the workload: it runs
with pg_wait_tracer.capture = off, so none of its own waits (a reader's
LWLock wait between the instant and its read would be in the files' range
but on the other side of the instant in the views) is counted by any path.
Other sessions' figures stand as of their last flush, which no workload
session is between at T0 and T1 (they have all exited), and autovacuum is
off in this cluster so that no worker is halfway through a batch of
unflushed waits at an instant. The sampled path agrees
within two sample periods per wait plus 5% (a sample stands for a whole
period; a wait's edges fall anywhere inside one), on DB time within 40
periods.

Output: one PASS/FAIL/SKIP line per check (test/run's protocol).
"""
import json
import os
import subprocess
import sys
import time

TOP = os.environ["PGWT_TOP"]
HOST = os.environ["XP_HOST"]
PORT = os.environ["XP_PORT"]
BINDIR = os.environ["XP_BINDIR"]
EXT_DIR = os.environ["XP_EXT_TRACE"]
TR_DIR = os.environ.get("XP_TRACER_TRACE", "")
TR_PERIOD_MS = float(os.environ.get("XP_TRACER_PERIOD_MS", "10"))
TR_MODE = os.environ.get("XP_TRACER_MODE", "")
TRACER = os.path.join(TOP, "bin", "pg_wait_tracer")
DUMP = os.path.join(TOP, "bin", "pgwt-dump")

EXACT_REL = 0.005
EXACT_SLACK_MS = 5.0
ROUND_MS = 0.001                # SQL shows ms with 3 decimals
# The watchpoint tier (tracer full): every trap stalls the traced thread
# after the write that starts a wait. The program moves each wait's start
# past the stall the tracer's self-test measured (XP_TRAP_US, from
# --check-exact), but under load a trap stalls longer than in the test, so
# each wait keeps a residue that the process itself (the coop tier) counts
# as CPU. That path is held within 0.5% plus TRAP_SLACK_MS per wait of the
# key (per interval of CPU* for DB time and CPU*), and its sessions are
# compared among those with >= 100 ms of DB time (the workload's): the
# readers at the instants run with capture = off, which the extension
# honours and a tracer outside the process cannot see. A trap can also be
# preempted on a busy host (the stall then lasts up to a scheduler slice),
# so each key gets TRAP_PREEMPT_MS more, and the PgSleep histogram is
# compared with every bucket under TRAP_MERGE_US merged into one.
TRAP_US = float(os.environ.get("XP_TRAP_US", "0") or 0)
TRAP_SLACK_MS = (1.5 * TRAP_US + 5.0) / 1000.0
BIG_SESSION_MS = 100.0
TRAP_PREEMPT_MS = 4.0
TRAP_MERGE_US = 64
EVENTS = ["Timeout:PgSleep", "Lock:advisory"]


def out(kind, name, why=""):
    print(f"{kind} xp-{name}" + (f": {why}" if why else ""), flush=True)


def psql(sql, role="postgres"):
    r = subprocess.run(
        ["runuser", "-u", "postgres", "--", os.path.join(BINDIR, "psql"), "-X", "-q",
         "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-h", HOST, "-p", PORT, "-U", role,
         "-d", "postgres", "-c", sql],
        capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"psql: {sql[:80]}: {r.stderr.strip()}")
    return [line.split("\t") for line in r.stdout.splitlines() if line]


def psql_many(queries):
    """Several statements in one session; rows of all of them, in order."""
    args = []
    for q in queries:
        args += ["-c", q]
    # an observer: its own waits are neither in the views nor in the files
    env = dict(os.environ, PGOPTIONS="-c pg_wait_tracer.capture=off")
    r = subprocess.run(
        ["runuser", "-u", "postgres", "--", os.path.join(BINDIR, "psql"), "-X", "-q",
         "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-h", HOST, "-p", PORT,
         "-d", "postgres"] + args, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"psql: {r.stderr.strip()}")
    return [line.split("\t") for line in r.stdout.splitlines() if line]


def bg(sql):
    return subprocess.Popen(
        ["runuser", "-u", "postgres", "--", os.path.join(BINDIR, "psql"), "-X", "-q",
         "-At", "-h", HOST, "-p", PORT, "-d", "postgres", "-c", sql],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def fnum(s):
    return float(s) if s not in ("", None) else None


def bkey(lo_us, hi_us):
    """A histogram bucket by its bounds in whole us; None = no upper bound."""
    lo, hi = fnum(lo_us) if isinstance(lo_us, str) else lo_us, \
        fnum(hi_us) if isinstance(hi_us, str) else hi_us
    return (round(lo or 0), None if hi is None or hi >= 1e12 else round(hi))


# ---- live: a snapshot of the SQL views ----------------------------------

def live_snapshot():
    """DB time, classes, events, PgSleep histogram, session pids: the live
    views, read in ONE session just after the instant (UTC) they stand for,
    so the reading session's own start-up falls on the same side of the
    instant for the views and for the trace files."""
    now = ("SELECT 't', to_char(clock_timestamp() AT TIME ZONE 'UTC', "
           "'YYYY-MM-DD HH24:MI:SS.US')")
    queries = [
        "SELECT 'tm', stat_name, coalesce(wait_event_type, ''), time_ms, "
        "coalesce(pct_db_time::text, '') FROM pgwt_time_model()",
        "SELECT 'ev', wait_event_type, wait_event, total_ms FROM pgwt_system_event() "
        "WHERE pct_db_time IS NOT NULL",
        "SELECT 'ss', pid, sum(total_ms) FROM pgwt_session_event() "
        "WHERE pct_db_time IS NOT NULL GROUP BY pid",
        "SELECT 'hi', lower_us, coalesce(upper_us::text, ''), waits FROM pgwt_event_histogram() "
        "WHERE wait_event_type = 'Timeout' AND wait_event = 'PgSleep'",
    ]
    # The views are read once to warm the session (catalog loads, planning),
    # then the instant is taken, then the views are read for real, so the
    # instant and the figures are as close together as one session allows.
    # The reader runs with capture off (psql_many): its own waits are in no
    # path, whichever side of the instant they fall on.
    # A second instant after the read: a wait that ends between the two
    # is in the views but only its part before the first instant is in the
    # files over a range ending there (compare_live brackets it).
    queries = queries + [now] + queries + [now.replace("'t'", "'t2'")]
    snap = {"classes": {}, "events": {}, "hist": {}, "sess": {}}
    rows = psql_many(queries)
    rows = rows[next(i for i, r in enumerate(rows) if r[0] == "t"):]
    for row in rows:
        tag = row[0]
        if tag == "t":
            snap["t"] = row[1]
        elif tag == "t2":
            snap["t_after"] = row[1]
        elif tag == "tm":
            name, cls, ms, pct = row[1:5]
            if name == "DB Time":
                snap["db"] = float(ms)
            elif name == "CPU*":
                snap["classes"]["CPU*"] = float(ms)
            elif cls and pct:
                snap["classes"][cls] = float(ms)
        elif tag == "ev":
            snap["events"][f"{row[1]}:{row[2]}"] = float(row[3])
        elif tag == "ss":
            snap["sess"][int(row[1])] = float(row[2])
        elif tag == "hi":
            snap["hist"][bkey(row[1], row[2])] = int(row[3])
    return snap


def bracketed(lo, hi, got):
    """The reference for the live views: each figure of got clamped into
    the range the files give between a range that starts after the first
    snapshot's read and ends at the second's instant (lo) and one that
    starts at the first's instant and ends after the second's read (hi).
    Waits that end while a snapshot is being read are in the views whole
    but in the files only in part; anything outside [lo, hi] still fails."""
    def clamp(v, a, b):
        return min(max(v, min(a, b)), max(a, b))
    ref = dict(lo)
    ref["db"] = clamp(got["db"], lo["db"], hi["db"])
    for k in ("classes", "events"):
        ref[k] = {key: clamp(got[k].get(key, 0.0), lo[k].get(key, 0.0), hi[k].get(key, 0.0))
                  for key in set(lo[k]) | set(hi[k]) | set(got[k])}
    return ref


def live_delta(a, b):
    d = {"db": b["db"] - a["db"], "classes": {}, "events": {}, "hist": {}, "sess": {}}
    for k in ("classes", "events", "hist", "sess"):
        for key, v in b[k].items():
            dv = v - a[k].get(key, 0)
            if abs(dv) > 1e-9:
                d[k][key] = dv
    d["pid_ms"] = d.pop("sess")
    d["pids"] = set(d["pid_ms"])
    return d


# ---- history: the extension's SQL over its trace files ---------------------

def history(t0, t1):
    r = f"'{t0}'::timestamptz, '{t1}'::timestamptz"
    h = {"classes": {}, "events": {}, "hist": {}, "pids": set()}
    for cls, ms, pct in psql("SELECT stat_name, time_ms, pct_db_time "
                             f"FROM pgwt_history_time_model({r})"):
        if cls == "DB Time":
            h["db"] = float(ms)
        elif pct:
            h["classes"][cls] = float(ms)
    for row in psql("SELECT wait_event_type, wait_event, total_ms, pct_db_time "
                    f"FROM pgwt_history_system_event({r})"):
        if row[3] and row[1]:
            h["events"][f"{row[0]}:{row[1]}"] = float(row[2])
    for lo, hi, waits in psql("SELECT lower_us, upper_us, waits FROM "
                              f"pgwt_history_histogram('Timeout', 'PgSleep', {r})"):
        h["hist"][bkey(lo, hi)] = int(waits)
    # sessions with DB time: a non-idle event with a share of the session's
    # DB time (NULL for background processes and idle events), as the live
    # pgwt_session_event; or CPU* in the per-session summary (SQL shows
    # ms with 3 decimals: less is none)
    h["pid_ms"] = {}
    for pid, ms in psql("SELECT pid, db_time_ms FROM pgwt_history_session_time"
                        f"({r}) WHERE pid IS NOT NULL AND db_time_ms IS NOT NULL"):
        h["pid_ms"][int(pid)] = float(ms)
    for (pid,) in psql("SELECT DISTINCT pid FROM pgwt_history_session_event"
                       f"({r}) WHERE pct_db_time IS NOT NULL AND total_ms >= 0.001 "
                       "UNION SELECT pid FROM pgwt_history_session_time"
                       f"({r}) WHERE db_time_ms >= 0.001 AND pid IS NOT NULL"):
        h["pids"].add(int(pid))
    return h


# ---- replay and dump: JSON views of trace files -----------------------------

def json_views(cmd):
    views = {}
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])}: {r.stderr.strip()[:300]}")
    for line in r.stdout.splitlines():
        o = json.loads(line)
        if o.get("view") not in (None, "trace"):
            views.setdefault(o["view"], o)
    return views


def from_json(run):
    """run(view, extra_args) -> views dict; the comparable figures."""
    j = {"classes": {}, "events": {}, "hist": {}, "pids": set()}
    tm = run("time_model", [])["time_model"]
    j["db"] = tm["db_time_ns"] / 1e6
    for c in tm["classes"]:
        j["classes"][c["class"]] = c["total_ns"] / 1e6
    se = run("system_event", [])["system_event"]
    j["waits"] = {}
    for row in se["rows"]:
        j["waits"][row["event"]] = row.get("waits", 0)
        if not row.get("idle") and row["event"] != "CPU*" and row.get("pct_db") is not None:
            j["events"][row["event"]] = row["total_ns"] / 1e6
    hi = run("histogram", ["Timeout:PgSleep"])["histogram"]
    if hi.get("status") != "ok":       # e.g. samples only: no histogram
        j["hist"] = None
    for b in hi.get("buckets") or []:
        lo = b["lo_us"] if "lo_us" in b else (b.get("lo_ns") or 0) / 1e3
        up = b["hi_us"] if "hi_us" in b else (None if b.get("hi_ns") is None else b["hi_ns"] / 1e3)
        j["hist"][bkey(lo, up)] = b["waits"]
    ss = run("session_event", [])["session_event"]
    for row in ss["rows"]:
        # SQL shows ms with 3 decimals: a session with less is none there
        if not row.get("background") and row.get("db_time_ns", 0) >= 1000:
            j["pids"].add(int(row["pid"]))
            j.setdefault("pid_ms", {})[int(row["pid"])] = row["db_time_ns"] / 1e6
    return j


def replay_of(d, t0, t1):
    def run(view, extra):
        cmd = [TRACER, "--replay", "-T", d, "--from", t0, "--to", t1, "-V", view, "-f", "json"]
        if extra:
            cmd += ["-e", extra[0], "--fine"]
        return json_views(cmd)
    return from_json(run)


def dump_of(d, t0, t1):
    def run(view, extra):
        cmd = [DUMP, d, "--from", t0, "--to", t1, "--view", view, "--format", "json", "--fine"]
        if extra:
            cmd += ["--event", extra[0]]
        return json_views(cmd)
    return from_json(run)


# ---- comparison ---------------------------------------------------------------

def close(a, b, rel, slack):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + slack


def compare(name, ref, got, sampled=False, waits=None, trap_ms=0.0):
    """Check got against ref; one PASS/FAIL per quantity group. trap_ms:
    the slack per wait of a path whose waits carry a trap's residue."""
    bad = []
    counts = got.get("waits", {})

    def trap_slack(key):
        if not trap_ms:
            return 0.0
        if key in ("DB time", "CPU*"):
            return TRAP_PREEMPT_MS + trap_ms * counts.get("CPU*", 0)
        if ":" in key:
            return TRAP_PREEMPT_MS + trap_ms * counts.get(key, 0)
        return TRAP_PREEMPT_MS + trap_ms * sum(n for ev, n in counts.items() if ev.split(":")[0] == key)

    def tol(key):
        if sampled:
            n = (waits or {}).get(key, 1)
            return 0.05, 2 * TR_PERIOD_MS * max(n, 1)
        return EXACT_REL, (EXACT_SLACK_MS if key in ("DB time", "CPU*") else ROUND_MS) + trap_slack(key)

    print(f"# {name}: DB time {ref['db']:.3f} vs {got['db']:.3f} ms, CPU* "
          f"{ref['classes'].get('CPU*', 0):.3f} vs {got['classes'].get('CPU*', 0):.3f} ms", flush=True)
    r, s = tol("DB time")
    if sampled:
        s = 2 * TR_PERIOD_MS * 20
    if not close(ref["db"], got["db"], r, s):
        bad.append(f"DB time {ref['db']:.3f} vs {got['db']:.3f} ms")
    (out("PASS", f"{name}-db-time") if not bad else out("FAIL", f"{name}-db-time", "; ".join(bad)))

    bad = []
    for cls in sorted(set(ref["classes"]) | set(got["classes"])):
        a, b = ref["classes"].get(cls, 0.0), got["classes"].get(cls, 0.0)
        if sampled and cls == "CPU*":
            continue            # the sampler sees CPU as no-event samples
        r, s = tol(cls)
        if sampled:
            s = max(s, 2 * TR_PERIOD_MS * 20)
        if not close(a, b, r, s):
            bad.append(f"{cls} {a:.3f} vs {b:.3f}")
    (out("PASS", f"{name}-classes") if not bad else out("FAIL", f"{name}-classes", "; ".join(bad)))

    bad = []
    keys = EVENTS if sampled else sorted(set(ref["events"]) | set(got["events"]))
    for ev in keys:
        a, b = ref["events"].get(ev, 0.0), got["events"].get(ev, 0.0)
        r, s = tol(ev)
        if not close(a, b, r, s):
            bad.append(f"{ev} {a:.3f} vs {b:.3f}")
    (out("PASS", f"{name}-events") if not bad else out("FAIL", f"{name}-events", "; ".join(bad)))

    if sampled or got["hist"] is None:
        return
    bad = []
    rh, gh = ref["hist"], got["hist"]
    if trap_ms:
        def merged(h):
            m = {}
            for (lo, hi), n in h.items():
                k = (0, TRAP_MERGE_US) if hi is not None and hi <= TRAP_MERGE_US else (lo, hi)
                m[k] = m.get(k, 0) + n
            return m
        rh, gh = merged(rh), merged(gh)
    for key in sorted(set(rh) | set(gh), key=lambda k: (k[0], k[1] is None, k[1] or 0)):
        a, b = rh.get(key, 0), gh.get(key, 0)
        if a != b:
            bad.append(f"[{key[0]},{key[1] or 'inf'}) us: {a} vs {b}")
    (out("PASS", f"{name}-pgsleep-histogram") if not bad
     else out("FAIL", f"{name}-pgsleep-histogram", "; ".join(bad[:6])))
    if trap_ms and "pid_ms" in ref:
        a = {p for p, ms in ref["pid_ms"].items() if ms >= BIG_SESSION_MS}
        b = {p for p, ms in got.get("pid_ms", {}).items() if ms >= BIG_SESSION_MS}
        (out("PASS", f"{name}-sessions") if a == b and len(a) >= 5 else
         out("FAIL", f"{name}-sessions", f"sessions with >= {BIG_SESSION_MS:.0f} ms: "
             f"{sorted(a)} in the reference, {sorted(b)} here (want the same, >= 5)"))
    elif "pids" in ref and ref["pids"] and "pids" in got:
        if ref["pids"] == got["pids"]:
            out("PASS", f"{name}-sessions")
        else:
            extra = {p: round(got.get("pid_ms", {}).get(p, 0), 3) for p in got["pids"] - ref["pids"]}
            out("FAIL", f"{name}-sessions",
                f"only in reference {sorted(ref['pids'] - got['pids'])}, "
                f"only here {sorted(got['pids'] - ref['pids'])} (ms: {extra})")


def workload():
    """The known truth: 1 s sleep, ~1 s advisory wait, 3 s of pgbench."""
    a = bg("SELECT pg_sleep(1.0)")
    holder = bg("SELECT pg_advisory_lock(4711); SELECT pg_sleep(1.2); SELECT pg_advisory_unlock(4711)")
    time.sleep(0.2)
    waiter = bg("SELECT pg_advisory_lock(4711); SELECT pg_advisory_unlock(4711)")
    pgb = subprocess.run(
        ["runuser", "-u", "postgres", "--", os.path.join(BINDIR, "pgbench"), "-n", "-c", "2",
         "-T", "3", "-h", HOST, "-p", PORT, "postgres"], capture_output=True, text=True)
    for p in (a, holder, waiter):
        p.wait()
    if pgb.returncode != 0:
        raise RuntimeError("pgbench: " + pgb.stderr.strip()[-300:])


def main():
    s0 = live_snapshot()
    t0 = s0["t"]
    time.sleep(0.3)
    workload()
    time.sleep(0.3)
    s1 = live_snapshot()
    t1 = s1["t"]
    # pgbench fills a session's ring faster than the writer's regular
    # drain; the writer is woken at half a ring, so nothing is overwritten
    lost = psql("SELECT records_lost FROM pgwt_escalation_status()")[0][0]
    (out("PASS", "trace-writer-lost-nothing") if lost == "0"
     else out("FAIL", "trace-writer-lost-nothing", f"{lost} records overwritten before the writer read them"))
    time.sleep(2.5)             # the trace writer flushes every second
    print(f"# range [{t0}, {t1}) UTC", flush=True)
    live = live_delta(s0, s1)
    ref = history(t0 + "+00", t1 + "+00")
    print(f"# history: DB time {ref['db']:.3f} ms, classes {json.dumps(ref['classes'])}", flush=True)
    # known truth first: the workload's own waits are there
    sleep_ms = ref["events"].get("Timeout:PgSleep", 0.0)
    adv_ms = ref["events"].get("Lock:advisory", 0.0)
    if 2150 <= sleep_ms <= 2400 and 800 <= adv_ms <= 1200:
        out("PASS", "history-known-truth")
    else:
        out("FAIL", "history-known-truth",
            f"PgSleep {sleep_ms:.1f} ms (want 2200..2400: 1.0 s + 1.2 s), advisory {adv_ms:.1f} ms (want ~1000)")
    # every session that did anything is a session in both; the live views
    # name a session only through its waits (pgwt_session_event), so one
    # that only ran (a reader's CPU*) has no row there: pids are compared
    # for the file paths, where every session has its own figures
    del live["pids"]
    lo = history(s0["t_after"] + "+00", t1 + "+00")
    hi = history(t0 + "+00", s1["t_after"] + "+00")
    lo["hist"] = ref["hist"]
    compare("live-vs-history", bracketed(lo, hi, live), live)
    try:
        compare("replay-vs-history", ref, replay_of(EXT_DIR, t0, t1))
    except Exception as e:      # noqa: BLE001 - reported, not raised
        out("FAIL", "replay-vs-history", str(e))
    try:
        compare("dump-vs-history", ref, dump_of(EXT_DIR, t0, t1))
    except Exception as e:      # noqa: BLE001
        out("FAIL", "dump-vs-history", str(e))
    if TR_DIR:
        try:
            tr = replay_of(TR_DIR, t0, t1)
            waits = {"Timeout:PgSleep": 2, "Lock:advisory": 1}
            compare(f"tracer-{TR_MODE}-vs-history", ref, tr,
                    sampled=(TR_MODE == "sampled"), waits=waits,
                    trap_ms=TRAP_SLACK_MS if TR_MODE == "full" else 0.0)
        except Exception as e:  # noqa: BLE001
            out("FAIL", f"tracer-{TR_MODE}-vs-history", str(e))


if __name__ == "__main__":
    try:
        main()
    except Exception as e:      # noqa: BLE001
        import traceback
        for line in traceback.format_exc().splitlines():
            print("# " + line)
        out("FAIL", "run", str(e))
        sys.exit(0)
