"""The records schema: reading, writing and upgrading records files.

A records file is JSON lines, one record (a flat object) a line; every
record names its schema version and kind. Columns are only ever added: an
older record is upgraded in memory on read by the MIGRATIONS steps, and the
reader says so. Missing values are null, never invented.
"""

import json
import os

import history

VERSION = max(history.COLUMNS)
KINDS = ("cell", "micro", "run")

# Columns a record of each kind must carry with a value (not null).
_REQUIRED_META = ["schema", "kind", "run_id", "commit", "harness", "utc_time",
                  "build", "settings_hash"]
REQUIRED = {
    "cell": _REQUIRED_META + [
        "pg_version", "configure_hash", "workload", "workload_params", "arm",
        "rep", "position", "tx", "tps", "server_cpu_s", "server_cpu_us_per_tx",
        "psi_cpu_start", "psi_cpu_end", "noisy"],
    "micro": _REQUIRED_META + ["program", "bench", "arm", "rep", "metrics"],
    "run": _REQUIRED_META + ["plan"],
}



def _v1_to_v2(rec):
    # Schema 1 did not read the collector's memory: not recorded.
    if rec.get("kind") == "cell":
        rec["tracer_rss_kb"] = None
    return rec


# One step per version: MIGRATIONS[v] turns a record of schema v into one of
# schema v + 1.
MIGRATIONS = {1: _v1_to_v2}


class RecordsError(Exception):
    """A file that cannot be read as records at all."""


def columns(kind, version=VERSION):
    return history.COLUMNS[version][kind]


def upgrade(rec):
    """Bring one record to the current schema; returns (record, old_version)."""
    v = rec.get("schema")
    if not isinstance(v, int) or v < 1:
        raise RecordsError("record without a schema version")
    if v > VERSION:
        raise RecordsError(f"schema {v} is newer than this tool ({VERSION})")
    old = v
    while v < VERSION:
        rec = MIGRATIONS[v](dict(rec))
        v += 1
        rec["schema"] = v
    return rec, old


def normalise(rec):
    """Every column of the record's kind present (null when not recorded);
    unknown columns are kept as they are, so nothing is lost."""
    kind = rec.get("kind")
    if kind not in KINDS:
        raise RecordsError(f"unknown record kind {kind!r}")
    out = {c: rec.get(c) for c in columns(kind)}
    for k, val in rec.items():
        if k not in out:
            out[k] = val
    return out


def read_file(path, notes=None):
    """Records of one file, upgraded. notes (a list) receives one line per
    file that was read in an older schema."""
    recs = []
    oldest = VERSION
    try:
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                try:
                    raw = json.loads(line)
                except json.JSONDecodeError as e:
                    raise RecordsError(f"{path}:{lineno}: not JSON ({e.msg})")
                if not isinstance(raw, dict):
                    raise RecordsError(f"{path}:{lineno}: not an object")
                try:
                    rec, old = upgrade(raw)
                    rec = normalise(rec)
                except RecordsError as e:
                    raise RecordsError(f"{path}:{lineno}: {e}")
                oldest = min(oldest, old)
                rec["_source"] = f"{path}:{lineno}"
                recs.append(rec)
    except OSError as e:
        raise RecordsError(f"{path}: {e.strerror}")
    if notes is not None and oldest < VERSION:
        notes.append(f"note: {path} is schema {oldest}, read as schema {VERSION}")
    return recs


def read_files(paths, notes=None):
    recs = []
    for p in paths:
        recs.extend(read_file(p, notes))
    return recs


def dumps(rec):
    """One record as a line: current schema, known columns first."""
    rec = normalise(dict(rec, schema=rec.get("schema", VERSION)))
    rec = {k: v for k, v in rec.items() if not k.startswith("_")}
    return json.dumps(rec, sort_keys=False, separators=(",", ":"))


def append(path, rec):
    """Append one record and flush, so a run that stops keeps what it did."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(dumps(rec) + "\n")
        f.flush()
