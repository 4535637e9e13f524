"""bench/check: refuse a record set that cannot be compared.

A comparison is the cell records of one workload on one server build (or
the micro records of one program's bench). Within it the arms must have
been measured together (one run, one build, one set of settings, one
workload definition), interleaved, each at least MIN_REPS times with every
repetition block complete, and each arm must show evidence that it ran what
its name claims. One line per problem; an empty list means the set passes.
Host pressure never refuses: it is a fact about the run (the report marks it).
"""

import hashlib
import re
from collections import defaultdict

import arms as arms_mod
import schema

MIN_REPS = 3
_COMMIT = re.compile(r"^[0-9a-f]{12,40}(-dirty)?$")
_UNIT_WORDS = {"ns", "us", "ms", "s", "kb", "mb", "bytes", "instr", "events",
               "pct", "cycles", "count", "waits", "ops", "tps", "qps", "ratio",
               "seconds", "minflt", "faults"}


def _where(rec):
    return rec.get("_source", "?")


def _cmp_key(rec):
    if rec["kind"] == "cell":
        return f"{rec.get('build')}/{rec.get('workload')}"
    return f"{rec.get('program')}/{rec.get('bench')}"


def metric_has_unit(name):
    return any(w in _UNIT_WORDS for w in name.lower().split("_"))


def _record_problems(rec):
    out = []
    missing = [c for c in schema.REQUIRED[rec["kind"]] if rec.get(c) is None]
    if missing:
        out.append(f"MISSING VALUE: {_where(rec)}: {', '.join(missing)}")
    commit = rec.get("commit")
    if commit is not None and not _COMMIT.match(str(commit)):
        out.append(f"TIP UNKNOWN: {_where(rec)}: commit '{commit}' is not a commit id")
    if rec.get("settings") is not None and rec.get("settings_hash") is not None:
        want = hashlib.sha256(str(rec["settings"]).encode()).hexdigest()[:10]
        if rec["settings_hash"] != want:
            out.append(f"SETTINGS HASH WRONG: {_where(rec)}: settings_hash does not match settings")
    if rec["kind"] == "cell":
        out.extend(_cell_problems(rec))
    elif rec["kind"] == "micro":
        metrics = rec.get("metrics")
        if isinstance(metrics, dict):
            if not metrics:
                out.append(f"NO METRICS: {_where(rec)}: the program line measured nothing")
            for k, v in metrics.items():
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    if metric_has_unit(k):
                        out.append(f"METRIC NOT A NUMBER: {_where(rec)}: {k}={v!r}")
                elif isinstance(v, float) and not metric_has_unit(k):
                    # An integer is a count (iterations, events): its own unit.
                    out.append(f"METRIC WITHOUT UNIT: {_where(rec)}: '{k}' names no unit")
            # A watchpoint arm with a program counts its traps: fewer than the
            # writes means the hardware did not fire, and the cell measured nothing.
            if (rec.get("bench") == "watchpoint_cost" and rec.get("arm") in ("bpf", "bpf-light")
                    and isinstance(metrics.get("hits"), int) and isinstance(metrics.get("writes"), int)
                    and metrics["hits"] < metrics["writes"]):
                out.append(f"TRAPS MISSING: {_where(rec)}: {metrics['hits']} of {metrics['writes']} "
                           "writes trapped (watchpoints that do not fire measure nothing)")
    return out


def _cell_problems(rec):
    out = []
    w = _where(rec)
    tx, tps = rec.get("tx"), rec.get("tps")
    if tx is not None and tps is not None and (tx <= 0 or tps <= 0):
        out.append(f"NO TRANSACTIONS: {w}: arm {rec['arm']} rep {rec.get('rep')} ran none")
    if rec.get("failed_tx"):
        out.append(f"FAILED TRANSACTIONS: {w}: {rec['failed_tx']} failed")
    arm = arms_mod.BY_NAME.get(rec.get("arm"))
    if arm is None:
        out.append(f"UNKNOWN ARM: {w}: '{rec.get('arm')}' is not in the arms table")
        return out
    preload = [x.strip() for x in str(rec.get("evidence_preload") or "").split(",") if x.strip()]
    btypes = str(rec.get("evidence_backend_types") or "").split(",")
    who = f"{w}: arm {arm.name} rep {rec.get('rep')}"
    if rec.get("evidence_preload") is None:
        out.append(f"ARM WITHOUT EVIDENCE: {who}: no shared_preload_libraries recorded")
        return out
    if arm.kind == "none":
        traced = [lib for lib in preload if lib in arms_mod.TRACING_LIBRARIES]
        if traced or rec.get("arm_side"):
            out.append(f"ARM NOT AS CLAIMED: {who}: baseline ran with {', '.join(traced) or rec.get('arm_side')}")
    elif arm.kind == "pg_wait_sampling":
        if "pg_wait_sampling" not in preload:
            out.append(f"ARM NOT AS CLAIMED: {who}: pg_wait_sampling was not loaded")
        elif arm.collector not in btypes:
            out.append(f"ARM NOT AS CLAIMED: {who}: no '{arm.collector}' process was running")
    elif arm.kind == "coop":
        if "pg_wait_tracer" not in preload:
            out.append(f"ARM NOT AS CLAIMED: {who}: pg_wait_tracer was not loaded")
        elif rec.get("evidence_tier") != arm.expect_tier:
            out.append(f"ARM NOT AS CLAIMED: {who}: pgwt_status tier was "
                       f"'{rec.get('evidence_tier')}', not '{arm.expect_tier}'")
    elif arm.kind in ("sampled", "full", "sched"):
        if rec.get("evidence_side_alive") != 1:
            out.append(f"ARM NOT AS CLAIMED: {who}: the tracer was not running at the end")
        elif not rec.get("evidence_attached"):
            out.append(f"ARM NOT AS CLAIMED: {who}: the tracer attached to no backend")
    return out


def _one(recs, col):
    return sorted({str(r.get(col)) for r in recs})


def _comparison_problems(key, recs):
    out = []
    kind = recs[0]["kind"]
    label = ("comparison " if kind == "cell" else "micro ") + key
    for col, name in (("run_id", "MIXED RUNS"), ("harness", "MIXED HARNESS")):
        vals = _one(recs, col)
        if len(vals) > 1:
            out.append(f"{name}: {label}: {len(vals)} values of {col}: {', '.join(vals)}")
    if kind == "cell":
        for col in ("pg_version", "configure_hash", "build_patch_hash"):
            vals = _one(recs, col)
            if len(vals) > 1:
                out.append(f"MIXED BUILDS: {label}: {col} differs: {', '.join(vals)}")
        vals = _one(recs, "settings_hash")
        if len(vals) > 1:
            out.append(f"MIXED SETTINGS: {label}: settings_hash differs: {', '.join(vals)}")
        by_arm_settings = defaultdict(set)
        for r in recs:
            by_arm_settings[r.get("arm")].add(str(r.get("arm_settings")))
        for a, s in sorted(by_arm_settings.items()):
            if len(s) > 1:
                out.append(f"MIXED SETTINGS: {label}: arm {a} ran with {len(s)} different arm settings")
        vals = _one(recs, "workload_params")
        if len(vals) > 1:
            out.append(f"MIXED WORKLOAD: {label}: workload parameters differ: {' | '.join(vals)}")
    reps = defaultdict(list)
    for r in recs:
        reps[str(r.get("arm"))].append(r.get("rep"))
    for a, rs in sorted(reps.items()):
        dup = sorted({x for x in rs if rs.count(x) > 1}, key=str)
        if dup:
            out.append(f"DUPLICATE REPETITIONS: {label}: arm {a} has rep {', '.join(map(str, dup))} twice")
        if len(set(rs)) < MIN_REPS:
            out.append(f"TOO FEW REPETITIONS: {label}: arm {a} has {len(set(rs))} (at least {MIN_REPS})")
    if "none" not in reps and kind == "cell":
        out.append(f"NO BASELINE: {label}: no 'none' arm to compare with")
    if len(reps) < 2:
        out.append(f"NOTHING TO COMPARE: {label}: only arm {', '.join(reps)}")
        return out
    all_reps = set(x for rs in reps.values() for x in rs)
    for a, rs in sorted(reps.items()):
        lacking = sorted(all_reps - set(rs), key=str)
        if lacking:
            out.append(f"INCOMPLETE BLOCK: {label}: arm {a} lacks rep {', '.join(map(str, lacking))}")
    if kind == "cell":
        pos = defaultdict(list)
        for r in recs:
            if isinstance(r.get("position"), int):
                pos[r["arm"]].append(r["position"])
        names = sorted(pos)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                if max(pos[a]) < min(pos[b]) or max(pos[b]) < min(pos[a]):
                    out.append(f"NOT INTERLEAVED: {label}: every {a} cell ran on one side of every {b} cell")
    return out


def check(recs):
    """Problems of a record set (list of lines); [] when it passes."""
    measured = [r for r in recs if r.get("kind") in ("cell", "micro")]
    if not measured:
        return ["NO RECORDS: the set holds no measured record"]
    out = []
    groups = defaultdict(list)
    for r in measured:
        out.extend(_record_problems(r))
        groups[(r["kind"], _cmp_key(r))].append(r)
    for (_, key), rs in sorted(groups.items()):
        out.extend(_comparison_problems(key, rs))
    return out
