"""The web suite's summary-backed answers: argv BASE TOP TRACE START_NS.

A long range (ends inside seconds, "to" inside an escalation window) read
by pgwt-server from the per-second summaries must equal pgwt-dump over the
raw records of the same range, to the ns: every view's rows (the session
and query rows with their percentiles, which the server reads from
records), and each AAS bucket
against pgwt-dump's time model of that bucket's own range.
"""
import json
import subprocess
import sys
from datetime import datetime, timezone

from common import report, get_json

base, top, trace, start = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
S = 10**9
# from inside a second; to 30.5 s into the 7th escalation window (they
# open 2 min after the start, every 10 min, for 1 min)
frm = start + 123 * S + 456789012
to = start + (6 * 600 + 120 + 30) * S + 5 * 10**8


def iso_ns(ns):
    s = datetime.fromtimestamp(ns // S, timezone.utc).strftime('%Y-%m-%dT%H:%M:%S')
    return f'{s}.{ns % S:09d}Z'


def dump(view, a, b):
    """pgwt-dump's view of [a, b) from the records (no --summaries)."""
    out = subprocess.run([f'{top}/bin/pgwt-dump', trace, '--view', view, '--format', 'json',
                          '--limit', '5000', '--from', iso_ns(a), '--to', iso_ns(b)],
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines() if f'"view":"{view}"' in line][0]


def rows_of(v):
    """Every column of every row, order-free."""
    return sorted(json.dumps(r, sort_keys=True) for r in v['rows'])


def classes(tm):
    return {c['class']: c['total_ns'] for c in tm['classes'] if c['total_ns']}


# AAS: buckets of whole minutes from the summaries
aas = get_json(base, f'/api/aas?from={frm}&to={to}&points=50')
w = int(aas['width_ns'])
report(aas['source'] == 'summaries' and w % (60 * S) == 0 and aas['points'] <= 50
       and int(aas['buckets'][0]['from_ns']) == frm and int(aas['buckets'][-1]['to_ns']) == to,
       'api-summ-aas-from-summaries', f"source {aas['source']}, width {w}, points {aas['points']}")
sums = {c: sum(b['ns'][i] for b in aas['buckets']) for i, c in enumerate(aas['classes'])}
tm = dump('time_model', frm, to)
report(sums == classes(tm) and len(sums) >= 3, 'api-summ-aas-sums-to-dump',
       f'aas {sums} dump {classes(tm)}')
# the first (partial), one inside and the last (inside an exact window)
bad = []
for i in (0, len(aas['buckets']) // 2, len(aas['buckets']) - 1):
    b = aas['buckets'][i]
    got = {c: b['ns'][k] for k, c in enumerate(aas['classes']) if b['ns'][k]}
    want = classes(dump('time_model', int(b['from_ns']), int(b['to_ns'])))
    if got != want:
        bad.append(f'bucket {i}: aas {got} dump {want}')
report(not bad, 'api-summ-aas-buckets-as-dump', '; '.join(bad))

# every table view of the range, and one drill step
for view, extra in (('time_model', ''), ('system_event', ''), ('session_event', ''),
                    ('query_event', ''), ('session_event', '&pid=1001')):
    v = get_json(base, f'/api/view?view={view}&from={frm}&to={to}&limit=5000{extra}')['views'][0]
    if view == 'time_model':
        keys = ('db_time_ns', 'cpu_ns', 'wait_ns', 'idle_ns', 'exact_records', 'sample_records', 'fidelity')
        d = dump(view, frm, to)
        ok = all(v[k] == d[k] for k in keys) and classes(v) == classes(d)
        why = f"server {[v[k] for k in keys]} dump {[d[k] for k in keys]}"
    else:
        d = dump(view, frm, to) if not extra else None
        if extra:
            # pgwt-dump's one-session view: --pid-filter
            out = subprocess.run([f'{top}/bin/pgwt-dump', trace, '--view', view, '--format', 'json',
                                  '--limit', '5000', '--pid-filter', '1001', '--from', iso_ns(frm),
                                  '--to', iso_ns(to)], capture_output=True, text=True, check=True).stdout
            # the session's events: its session_detail line
            d = [json.loads(line) for line in out.splitlines() if '"view":"session_detail"' in line][0]
        ok = rows_of(v) == rows_of(d) and len(v['rows']) >= 2
        why = f"{len(v['rows'])} rows vs {len(d['rows'])}: {set(rows_of(v)) ^ set(rows_of(d))}"[:600]
    report(ok, f'api-summ-view-{view}{extra.replace("&", "-").replace("=", "")}-as-dump', why)

# The page's chart (300 points) comes from the read its tables share (from
# records here: 300 buckets of this hour are under a minute): the same
# sums, and a directory that changed is read afresh (a new text for query
# 3 shows at once).
aas = get_json(base, f'/api/aas?from={frm}&to={to}&points=300')
sums = {c: sum(b['ns'][i] for b in aas['buckets']) for i, c in enumerate(aas['classes'])}
report(aas['source'] == 'records' and sums == classes(tm), 'api-summ-aas-300-shared-read',
       f"source {aas['source']}: aas {sums} dump {classes(tm)}")


def query3_texts():
    v = get_json(base, f'/api/view?view=query_event&from={frm}&to={to}&limit=5000')['views'][0]
    return {r.get('query') for r in v['rows'] if r.get('query_id') == 3}


before = query3_texts()
with open(f'{trace}/queries.tsv', 'a') as f:
    f.write('%016x\tF\t0\t%s\n' % (3, 'SELECT pgwt_cache_was_refreshed'))
after = query3_texts()
report('SELECT pgwt_cache_was_refreshed' not in before and after == {'SELECT pgwt_cache_was_refreshed'},
       'api-summ-cache-follows-directory', f'before {before} after {after}')
