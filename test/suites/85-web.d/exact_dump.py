"""The exact views' known truth for the web suite (exact_api.py,
exact_browser.py): pgwt-dump's text tables of transitions, concurrency and
lock chains parsed from the text (not from any JSON), and each session's
state at a range's end computed from the records as the independent
decoder test/golden/golden.py reads them. ctx: {'top', 'trace', 'F' (the
trace's start, wall clock ns), 'MONO0' (its monotonic start)}."""
import glob
import os
import subprocess
import sys
from datetime import datetime, timezone

from common import iso

S = 10**9
EXIT = 0xFFFFFFFF
CTX = {}


def setup(top, trace, truth):
    CTX.update(top=top, trace=trace, F=truth['start_realtime_ns'], MONO0=truth['start_monotonic_ns'])


def dump_text(view, frm, to):
    env = dict(os.environ, TZ='UTC')
    args = [f"{CTX['top']}/bin/pgwt-dump", CTX['trace'], '--view', view, '--format', 'text']
    if frm is not None:
        args += ['--from', iso(frm), '--to', iso(to)]
    return subprocess.run(args, capture_output=True, text=True, check=True, env=env).stdout


def section(text, title):
    """The lines of one '== Title [...]' table, up to the next blank line."""
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith('== ' + title + ' ['):
            out = []
            for x in lines[i + 1:]:
                if not x.strip():
                    break
                out.append(x)
            return out
    return None


def dump_transitions(frm, to):
    sec = section(dump_text('transitions', frm, to), 'Transitions')
    if sec[0].strip().startswith('(requires exact'):
        return 'requires_exact', None, None
    rows = {}
    for ln in sec[1:-1]:
        f, t, count, ms, pct = ln.split()
        rows[(f, t)] = (int(count), ms, pct)
    return 'ok', rows, int(sec[-1].split()[0])


def clock(ns):
    return datetime.fromtimestamp(ns // S, timezone.utc).strftime('%H:%M:%S') + f'.{ns // 10**6 % 1000:03d}'


def dump_concurrency(frm, to):
    sec = section(dump_text('concurrency', frm, to), 'Concurrency')
    if sec[0].strip().startswith('(requires exact'):
        return 'requires_exact', None, None, None
    rows, bursts, total = {}, [], None
    for ln in sec[1:]:
        p = ln.split()
        if ln.startswith('  bursts ('):
            total = int(ln.split('): ')[1].split(',')[0])
        elif ln.startswith('    '):
            bursts.append((p[0], p[1], int(p[2])))
        elif not ln.startswith('  note'):
            rows[p[0]] = (int(p[1]), p[2], int(p[3]), int(p[4]), int(p[5]))
    return 'ok', rows, sorted(bursts), total


def dump_lock_chains(frm, to):
    sec = section(dump_text('lock_chains', frm, to), 'Lock chains (blockers from pg_blocking_pids)')
    if sec[0].strip().startswith('('):
        return sec[0].strip(), None, None
    chains, edges, in_edges = {}, {}, False
    for ln in sec[1:]:
        p = ln.split()
        if p[0] == 'waiter':
            in_edges = True
        elif in_edges:
            edges[(int(p[0]), int(p[1]))] = (p[2], int(p[3]), int(p[4]))
        elif not ln.startswith('  note'):
            chains[int(p[0])] = (p[1], int(p[2]), int(p[3]), ' '.join(p[4:]))
    return 'ok', chains, edges


def records():
    """(rt, kind, pid, old, new, dur, qid) of every record, by golden.py."""
    out = []
    for path in sorted(glob.glob(f"{CTX['trace']}/*.trace.lz4")):
        text = subprocess.run([sys.executable, f"{CTX['top']}/test/golden/golden.py", 'dump', path],
                              capture_output=True, text=True, check=True).stdout
        for ln in text.splitlines():
            if ln[:2] not in ('T ', 'S '):
                continue
            f = dict(kv.split('=') for kv in ln[2:].split())
            rt = CTX['F'] + int(f['ts']) - CTX['MONO0']
            if ln[0] == 'T':
                out.append((rt, 'T', int(f['pid']), int(f['old'], 16), int(f['new'], 16), int(f['dur']), int(f['qid'])))
            else:
                out.append((rt, 'S', int(f['pid']), 0, int(f['ev'], 16), 0, int(f['qid'])))
    out.sort(key=lambda r: r[0])
    return out


RECS = []


def now_truth(frm, to):
    """{pid: (event, since, fidelity, query)} at the end of [frm, to): the
    last record of each pid in the range (a transition: in its new event
    since then; a sample: in its event since the first of a run of samples
    of the same event and query), or a wait that began in the range and
    ends after it (in its old event since the wait began, or frm)."""
    if not RECS:
        RECS.extend(records())
    st = {}
    for rt, kind, pid, old, new, dur, qid in RECS:
        if pid == 0 or (kind == 'T' and 0xFFFFFFF0 <= new <= 0xFFFFFFFC) or rt < frm:
            continue
        if rt >= to:
            start = max(rt - dur, frm)
            if kind == 'T' and start < to and (pid not in st or st[pid]['last'] <= start):
                st[pid] = dict(ev=old, since=start, exact=True, q=qid, last=start, gone=False)
            continue
        cur = st.get(pid)
        if kind == 'T':
            if new == EXIT:
                st[pid] = dict(cur or {}, gone=True, last=rt)
            else:
                st[pid] = dict(ev=new, since=rt, exact=True, q=qid, last=rt, gone=False)
        elif cur is None or cur['gone'] or cur['ev'] != new or cur['q'] != qid:
            st[pid] = dict(ev=new, since=rt, exact=False, q=qid, last=rt, gone=False)
        else:
            cur['last'] = rt
    return {p: (s['ev'], s['since'], 'exact' if s['exact'] else 'sampled', s['q'])
            for p, s in st.items() if not s['gone']}
