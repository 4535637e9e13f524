"""The web suite's API checks (no browser): argv BASE TOP TRACE FIRST_S."""
import csv
import io as iomod
import json
import sys

from common import report, get, get_json, dump_time_model, dump_events

base, top, trace, first_s = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
S = 10**9
frm, to = (first_s + 2) * S, (first_s + 17) * S      # crosses two exact windows
zfrm, zto = (first_s + 5) * S, (first_s + 8) * S

rng = get_json(base, '/api/range')
report(rng['records'] > 0 and int(rng['first_ns']) < int(rng['last_ns']), 'api-range',
       json.dumps(rng))

# AAS buckets add up to the time model of the same range, class by class,
# to the nanosecond: 37 buckets, so the chunks of 8 windows do not divide it.
truth, tm = dump_time_model(top, trace, frm, to)
aas = get_json(base, f'/api/aas?from={frm}&to={to}&points=37')
sums = {c: sum(b['ns'][i] for b in aas['buckets']) for i, c in enumerate(aas['classes'])}
report(sums == truth and len(truth) >= 3, 'api-aas-sums-to-time-model', f'aas {sums} dump {truth}')
fids = {b['fidelity'] for b in aas['buckets']}
report({'exact', 'sampled'} <= fids, 'api-aas-fidelity-per-bucket', f'fidelities {sorted(fids)}')
widths = {int(b['to_ns']) - int(b['from_ns']) for b in aas['buckets'][:-1]}
report(len(aas['buckets']) == 37 and widths == {int(aas['width_ns'])}, 'api-aas-buckets',
       f'{len(aas["buckets"])} buckets, widths {widths}')
avg = [b['aas'][0] for b in aas['buckets']]
exp = [b['ns'][0] / (int(b['to_ns']) - int(b['from_ns'])) for b in aas['buckets']]
report(all(abs(a - e) < 1e-5 for a, e in zip(avg, exp)), 'api-aas-is-time-over-width')

# /api/view's time model is pgwt-dump's; a zoomed range is another one
view = get_json(base, f'/api/view?view=time_model&from={frm}&to={to}')['views'][0]
got = {c['class']: c['total_ns'] for c in view['classes']}
report(got == truth and view['db_time_ns'] == tm['db_time_ns'], 'api-view-time-model-as-dump',
       f'{got} vs {truth}')
ztruth, _ = dump_time_model(top, trace, zfrm, zto)
zview = get_json(base, f'/api/view?view=time_model&from={zfrm}&to={zto}')['views'][0]
zgot = {c['class']: c['total_ns'] for c in zview['classes']}
report(zgot == ztruth and zgot != got, 'api-zoom-changes-view', f'{zgot} vs {ztruth}')

# the drill path: class -> event -> sessions -> queries
ev = get_json(base, f'/api/view?view=system_event&class=IO&from={frm}&to={to}')['views'][0]['rows']
report(len(ev) >= 1 and all(r['event'].startswith('IO:') for r in ev), 'api-drill-class',
       str([r['event'] for r in ev]))
io = [r for r in ev if r['event'] == 'IO:DataFileRead'][0]
ss = get_json(base, f'/api/view?view=session_event&event=IO:DataFileRead&from={frm}&to={to}')['views'][0]['rows']
report(len(ss) == 4 and all(r['event'] == 'IO:DataFileRead' for r in ss)
       and sum(r['total_ns'] for r in ss) == io['total_ns'], 'api-drill-event-sessions',
       f'{len(ss)} rows, sum {sum(r["total_ns"] for r in ss)} vs {io["total_ns"]}')
pid = ss[0]['pid']
det = get_json(base, f'/api/view?view=session_event&pid={pid}&from={frm}&to={to}')['views'][0]['rows']
report(det and all(r['pid'] == pid for r in det)
       and [r['total_ns'] for r in det if r['event'] == 'IO:DataFileRead'] == [ss[0]['total_ns']],
       'api-drill-session-detail')
qs = get_json(base, f'/api/view?view=query_event&event=IO:DataFileRead&from={frm}&to={to}')['views'][0]['rows']
report(len(qs) == 5 and sum(r['total_ns'] for r in qs) == io['total_ns']
       and all(r['query'] for r in qs), 'api-drill-event-queries', f'{len(qs)} rows')
q1 = get_json(base, f'/api/view?view=query_event&query=1&from={frm}&to={to}')['views'][0]['rows']
report(q1 and all(r['query_id'] == 1 for r in q1), 'api-drill-query-profile')

# bad parameters: 400 with a JSON error, nothing else
bad = ['/api/view?view=time_model&from=abc', '/api/view?view=time_model&from=5&to=3',
       '/api/view?view=time_model&from=-1', '/api/view?view=time_model&to=99999999999999999999999',
       '/api/view?view=bogus', '/api/view', '/api/view?view=time_model&nope=1',
       '/api/view?view=system_event&class=Nope', '/api/view?view=query_event&event=No:Such',
       '/api/view?view=session_event&pid=0', '/api/view?view=system_event&limit=0',
       '/api/view?view=time_model&format=text', '/api/aas?points=0', '/api/aas?points=2001',
       f'/api/aas?from={to}&to={frm}', '/api/aas?from=1%202']
for path in bad:
    st, h, body = get(base, path)
    try:
        err = json.loads(body).get('error')
    except ValueError:
        err = None
    report(st == 400 and h.get('Content-Type') == 'application/json' and isinstance(err, str) and err,
           'api-bad-request ' + path.split('?')[1] if '?' in path else 'api-bad-request ' + path,
           f'HTTP {st} {body[:120]!r}')

# CSV of a table: the engine's CSV renderer, as a download
st, h, body = get(base, f'/api/view?view=system_event&class=IO&from={frm}&to={to}&format=csv')
lines = body.decode().splitlines()
report(st == 200 and h.get('Content-Type', '').startswith('text/csv')
       and 'attachment' in h.get('Content-Disposition', '') and len(lines) == 1 + len(ev)
       and 'IO:DataFileRead' in body.decode(), 'api-csv', f'HTTP {st}, {len(lines)} lines')

# a query text is data in a CSV download too: one that begins like a
# formula gets a leading ' (the spreadsheet shows text), JSON keeps it as is
st, h, body = get(base, f'/api/view?view=query_event&from={frm}&to={to}&format=csv')
rows = list(csv.DictReader(iomod.StringIO(body.decode())))
q2 = [r['query'] for r in rows if r.get('query_id') == '2']
qj = [r.get('query') for v in get_json(base, f'/api/view?view=query_event&from={frm}&to={to}')['views']
      for r in v.get('rows', []) if r.get('query_id') == 2]
report(st == 200 and q2 and all(t.startswith("'--cmd|") for t in q2)
       and qj and all(t == "--cmd|' /C calc'!A0\nSELECT 2" for t in qj), 'api-csv-formula-inert',
       f'HTTP {st}, CSV texts {q2[:2]}, JSON texts {qj[:2]}')

# Compare two periods: the deltas are the difference of two pgwt-dump runs
# over the two ranges, class by class and event by event, to the ns; the
# (query, event) rows' deltas add up to the change of DB time.
afrm, ato, bfrm, bto = (first_s + 2) * S, (first_s + 7) * S, (first_s + 11) * S, (first_s + 17) * S
cq = f'a_from={afrm}&a_to={ato}&b_from={bfrm}&b_to={bto}'
ta, tma = dump_time_model(top, trace, afrm, ato)
tb, tmb = dump_time_model(top, trace, bfrm, bto)
cmp = get_json(base, f'/api/compare?view=time_model&{cq}')
got = {r['class']: (r['a_ns'], r['b_ns'], r['delta_ns']) for r in cmp['rows']}
want = {c: (ta.get(c, 0), tb.get(c, 0), tb.get(c, 0) - ta.get(c, 0)) for c in set(ta) | set(tb)}
report(got == want and len(want) >= 3 and any(d != 0 for _, _, d in want.values()),
       'api-compare-classes-equal-dumps', f'compare {got} dumps {want}')
ea, eb = dump_events(top, trace, afrm, ato), dump_events(top, trace, bfrm, bto)
cmp = get_json(base, f'/api/compare?view=system_event&{cq}')
got = {r['event']: r['delta_ns'] for r in cmp['rows']}
want = {e: eb.get(e, 0) - ea.get(e, 0) for e in set(ea) | set(eb)}
report(got == want and len(want) >= 3, 'api-compare-events-equal-dumps', f'compare {got} dumps {want}')
shares = all(abs(r['b_pct_db'] - r['a_pct_db'] - r['delta_pct_db']) < 1e-3 for r in cmp['rows'])
deltas = [abs(r['delta_ns']) for r in cmp['rows']]
report(shares and deltas == sorted(deltas, reverse=True), 'api-compare-shares-and-order',
       json.dumps(cmp['rows'][:3]))
st, h, body = get(base, f'/api/compare?view=query_event&format=csv&{cq}')
rows = list(csv.DictReader(iomod.StringIO(body.decode())))
total = sum(int(r['delta_ns']) for r in rows)
report(st == 200 and 'attachment' in h.get('Content-Disposition', '') and len(rows) >= 5
       and total == tmb['db_time_ns'] - tma['db_time_ns'], 'api-compare-queries-csv',
       f'HTTP {st}, {len(rows)} rows, delta sum {total}, dumps {tmb["db_time_ns"] - tma["db_time_ns"]}')
for path in [f'/api/compare?view=time_model&a_from={afrm}&a_to={ato}&b_from={bfrm}',
             f'/api/compare?view=bogus&{cq}', f'/api/compare?a_from={ato}&a_to={afrm}&b_from={bfrm}&b_to={bto}',
             f'/api/compare?{cq}&format=text']:
    st, _, body = get(base, path)
    report(st == 400 and b'"error"' in body, 'api-compare-bad ' + path.split('?')[1][:40], f'HTTP {st}')

# security headers on the page and the API
for path in ['/', '/api/range']:
    st, h, _ = get(base, path)
    csp = h.get('Content-Security-Policy', '')
    report(st == 200 and "script-src 'self'" in csp and 'unsafe-inline' not in csp
           and h.get('X-Content-Type-Options') == 'nosniff', 'headers-csp ' + path, csp)
sys.exit(0)
