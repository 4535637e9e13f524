"""The exact views' API (/api/exact, no browser): argv BASE TOP TRACE TRUTH.

TRACE is the web suite's pgwt-synth trace (web.scn: exact windows at 2-5 s
and 12-15 s after its start, sampled elsewhere), with a blockers.tsv the
suite wrote (1001 and 1002 blocked by 1000, 1003 by 1002, during the first
exact window). TRUTH is what pgwt-synth printed (the clocks of the trace).

Transitions, concurrency and lock chains are held to pgwt-dump's text
tables over the same ranges (parsed here from the text, not from any JSON);
sessions at a range's end to a truth computed here from the records as the
independent decoder test/golden/golden.py reads them; a range with samples
only must answer requires_exact, never empty rows."""
import json
import sys

from common import report, get, get_json
from exact_dump import setup, dump_text, dump_transitions, dump_concurrency, dump_lock_chains, clock, now_truth

base, top, trace, truth = sys.argv[1], sys.argv[2], sys.argv[3], json.load(open(sys.argv[4]))
S = 10**9
F = truth['start_realtime_ns']
setup(top, trace, truth)


def api(view, frm, to, fmt=None):
    q = f'/api/exact?view={view}'
    if frm is not None:
        q += f'&from={frm}&to={to}'
    if fmt:
        q += f'&format={fmt}'
    return get_json(base, q)['views'][0]


# the ranges: an exact window, the whole trace (mixed), one across both tiers
exact_r = (F + 2 * S, F + 5 * S)
mixed_r = (F + 1 * S, F + 14 * S)
sampled_r = (F + 6 * S, F + 11 * S)
for name, (frm, to) in [('exact', exact_r), ('mixed', mixed_r), ('whole', (None, None))]:
    st, rows, total = dump_transitions(frm, to)
    v = api('transitions', frm, to)
    got = {(r['from'], r['to']): (r['count'], f"{r['total_ns'] / 1e6:.3f}", f"{r['pct_of_from']:.1f}%")
           for r in v['rows'] or [] if not r['other']}
    report(st == 'ok' and v['status'] == 'ok' and got == rows and v['transitions'] == total and len(rows) > 2,
           f'api-exact-transitions-equal-dump {name}', f'dump {st} {rows} {total}; api {v["status"]} {got} {v.get("transitions")}')

    st, rows, bursts, btotal = dump_concurrency(frm, to)
    v = api('concurrency', frm, to)
    got = {r['event']: (r['peak'], clock(r['peak_ns']), r['intervals'], r['bursts'], r['max_burst_sessions'])
           for r in v['rows'] or []}
    gotb = sorted((clock(b['first_ns']), b['event'], b['sessions']) for b in v['bursts'] or [])
    report(st == 'ok' and got == rows and gotb == bursts and v['bursts_total'] == btotal and len(rows) > 2,
           f'api-exact-concurrency-equal-dump {name}', f'dump {rows} {btotal}; api {got} {v.get("bursts_total")}')

    st, chains, edges = dump_lock_chains(frm, to)
    v = api('lock_chains', frm, to)
    gotc = {r['head']: (f"{r['total_wait_ns'] / 1e6:.3f}", r['waiters'], r['depth'],
                        ' -> '.join(map(str, r['path'])) + ('  (cycle: deadlock)' if r['cycle'] else ''))
            for r in v['rows'] or []}
    gote = {(e['waiter'], e['blocker']): (f"{e['wait_ns'] / 1e6:.3f}", e['waits'], e['observations'])
            for e in v['edges'] or []}
    # the blockers the suite wrote: 1003 -> 1002 -> 1000 and 1001 -> 1000
    shape = set(gote) == {(1001, 1000), (1002, 1000), (1003, 1002)} and set(gotc) == {1000}
    report(st == 'ok' and v['status'] == 'ok' and gotc == chains and gote == edges and shape
           and gotc[1000][3] == '1003 -> 1002 -> 1000',
           f'api-exact-lock-chains-equal-dump {name}', f'dump {st} {chains} {edges}; api {v["status"]} {gotc} {gote}')

# samples only: every exact view says so (and pgwt-dump too), no rows
for view in ('transitions', 'concurrency', 'lock_chains'):
    v = api(view, *sampled_r)
    text = dump_text(view, *sampled_r)
    report(v['status'] == 'requires_exact' and v['rows'] is None and v['fidelity'] == 'sampled'
           and '(requires exact data' in text,
           f'api-exact-sampled-only-requires-exact {view}', json.dumps(v)[:300])


for name, (frm, to) in [('exact', (F + 2 * S, F + 4 * S + 500 * 10**6)), ('sampled', sampled_r),
                        ('after-exact', (F + 3 * S, F + 7 * S))]:
    want = now_truth(frm, to)
    v = api('sessions_now', frm, to)
    got = {r['pid']: (r['event_id'], int(r['since_ns']), r['fidelity'], r['query_id']) for r in v['rows']}
    fids = {w[2] for w in want.values()}
    report(v['status'] == 'ok' and got == want and len(want) == 4 and v['at_ns'] == to
           and all(r['for_ns'] == to - r['since_ns'] for r in v['rows']),
           f'api-exact-sessions-now-equal-records {name} ({"/".join(sorted(fids))})', f'want {want} got {got}')

# a query text is data: the hostile statement comes back as a JSON string
v = api('sessions_now', None, None)
hostile = [r for r in v['rows'] if r['query'] and '<script>' in r['query']]
report(all(r['query'].startswith("SELECT '<script>") for r in hostile), 'api-exact-query-text-as-data', str(hostile)[:200])

# the CSV a spreadsheet opens: the statement that begins like a formula
# ("--cmd|...", query 2) gets a leading ' in the sessions' CSV
end = next((F + k * S for k in range(3, 20) if any(w[3] == 2 for w in now_truth(F, F + k * S).values())), None)
st, _, body = get(base, f'/api/exact?view=sessions_now&from={F}&to={end}&format=csv') if end else (0, 0, b'')
report(end is not None and st == 200 and "\"'--cmd|' /C calc'!A0" in body.decode(),
       'api-exact-sessions-now-csv-formula-inert', body.decode()[:300])

# several views in one request (one read): each as it comes alone
allv = get_json(base, f'/api/exact?view=sessions_now,transitions,lock_chains,concurrency&from={exact_r[0]}&to={exact_r[1]}')
alone = [api(v, *exact_r) for v in ('sessions_now', 'transitions', 'lock_chains', 'concurrency')]
report(sorted(allv['views'], key=lambda v: v['view']) == sorted(alone, key=lambda v: v['view']) and len(alone) == 4, 'api-exact-several-views-one-read', str([v['view'] for v in allv['views']]))

# CSV of a view, and bad requests
st, hdr, body = get(base, f'/api/exact?view=transitions&from={exact_r[0]}&to={exact_r[1]}&format=csv')
lines = body.decode().splitlines()
report(st == 200 and hdr.get('Content-Type', '').startswith('text/csv') and lines[0].startswith('window,from,to,count')
       and len(lines) - 1 == len(dump_transitions(*exact_r)[1]), 'api-exact-csv', f'{st} {lines[:2]}')
for q, want in [('view=nope', 400), ('view=transitions&format=text', 400), ('view=transitions&limit=0', 400),
                ('view=transitions&from=5&to=4', 400), ('view=transitions&bogus=1', 400),
                ('view=transitions,concurrency&format=csv', 400), ('view=transitions,,concurrency', 400)]:
    st, _, body = get(base, '/api/exact?' + q)
    report(st == want and b'"error"' in body, f'api-exact-bad-request {q}', f'HTTP {st} {body[:100]!r}')

sys.exit(0)
