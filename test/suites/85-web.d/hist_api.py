"""The histogram API's checks (no browser): argv BASE KNOWN_BASE TOP TRACE
KNOWN FIRST_S SYN_BASE SYN_TRUTH.

KNOWN is pct_truth.py's 'known' directory (32-seed-compat.d; written by the
independent encoder test/golden/golden.py): session 4242 / query 77 waits
ten 200 ms PgSleeps and one of 1.5 s, session 4243 / query 88 twenty of
10 ms. The truth below is computed here from those durations, with the
bucket rule written again from common/histogram.h's comment. TRACE is the
web suite's pgwt-synth trace (exact windows at 2-5 s and 12-15 s, sampled
elsewhere). SYN_BASE serves hist.scn's pgwt-synth trace, SYN_TRUTH is the
truth pgwt-synth printed for it (each event's waits and their time)."""
import json
import subprocess
import sys

from common import report, get, get_json, iso

base, kbase, top, trace, known, first_s = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6])
sbase, syn_truth = sys.argv[7], json.load(open(sys.argv[8]))
S, MS = 10**9, 10**6
EV = 'Timeout:PgSleep'


def bucket(ns):
    return 0 if ns < 1 << 10 else min(ns.bit_length() - 10, 31)


def truth(durations):
    """{bucket: (waits, time_ns)} of the durations."""
    out = {}
    for d in durations:
        w, t = out.get(bucket(d), (0, 0))
        out[bucket(d)] = (w + 1, t + d)
    return out


def used(h):
    """{bucket index: (waits, time_ns)} of the API's non-empty buckets, each
    bucket's bounds checked against the layout."""
    out = {}
    for i, b in enumerate(h['buckets']):
        lo = 0 if i == 0 else 1 << (9 + i)
        hi = None if i == 31 else 1 << (10 + i)
        if b['lo_ns'] != lo or b['hi_ns'] != hi:
            return {'bad bounds': i}
        if b['waits']:
            out[i] = (b['waits'], b['time_ns'])
    return out


def in_bucket_of(p, h, value):
    """The estimate and its bounds lie in value's bucket, and hold value."""
    b = bucket(value)
    lo, hi = 1 << (9 + b), 1 << (10 + b)
    return (lo <= h[p + '_lo_ns'] <= value < h[p + '_hi_ns'] <= hi
            and h[p + '_lo_ns'] <= h[p + '_ns'] < h[p + '_hi_ns'])


long_one = [200 * MS] * 10 + [1500 * MS]
short = [10 * MS] * 20
for key, durs in [('pid=4242', long_one), ('query=77', long_one), ('pid=4243', short), ('query=88', short), ('', long_one + short)]:
    h = get_json(kbase, f'/api/histogram?event={EV}' + (f'&{key}' if key else ''))
    want = truth(durs)
    ok = h['status'] == 'ok' and used(h) == want and h['waits'] == len(durs) \
        and h['total_ns'] == sum(durs) and h['max_ns'] == max(durs) and h['min_ns'] == min(durs)
    report(ok, f'api-hist-buckets-known {key or "event"}', f'got {used(h)} want {want}, {json.dumps(h)[:300]}')
    srt = sorted(durs)
    # truth: the wait of rank ceil(q n); the rank n one is the max, known exactly
    ranks = {p: srt[-(-int(q * 100) * len(srt) // 100) - 1] for p, q in (('p50', .5), ('p95', .95), ('p99', .99))}
    ok = all(in_bucket_of(p, h, v) for p, v in ranks.items())
    if key in ('pid=4242', 'query=77'):
        ok = ok and h['p99_ns'] == 1500 * MS and h['p50_lo_ns'] >= 1 << 27 and h['p50_hi_ns'] <= 1 << 28
    report(ok, f'api-hist-percentiles-known {key or "event"}', f'truth {ranks}, got {json.dumps({k: v for k, v in h.items() if k.startswith("p")})}')

# pgwt-synth's truth: each event's waits and time are the buckets' sums; a
# fixed-length event fills the one bucket of its length, and every
# percentile is that length (the bucket is cut at min = max)
fixed = {'Timeout:PgSleep': 200 * MS, 'Lock:transactionid': 1500 * MS}
for t in syn_truth['events']:
    h = get_json(sbase, f'/api/histogram?event={t["name"]}')
    u = used(h)
    ok = h['status'] == 'ok' and t['waits'] > 10 and sum(w for w, _ in u.values()) == t['waits'] \
        and sum(x for _, x in u.values()) == t['wait_ns'] == h['total_ns']
    if t['name'] in fixed:
        d = fixed[t['name']]
        ok = ok and u == {bucket(d): (t['waits'], t['waits'] * d)} \
            and all(h[p + '_ns'] == d for p in ('p50', 'p95', 'p99')) and h['max_ns'] == d
    else:
        ok = ok and len(u) >= 3 and max(u) <= bucket(4 * MS)
    report(ok, f'api-hist-synth-truth {t["name"]}', f'truth {t}, buckets {u}')

# the tables' percentile cells are the histogram's (one quantile function)
for view, key, field in [('session_event', 'pid', 'pid'), ('query_event', 'query', 'query_id')]:
    rows = get_json(kbase, f'/api/view?view={view}&event={EV}')['views'][0]['rows']
    ok = len(rows) == 2
    for r in rows:
        h = get_json(kbase, f'/api/histogram?event={EV}&{key}={r[field]}')
        ok = ok and all(r[f'{p}{s}'] == h[f'{p}{s}'] for p in ('p50', 'p95', 'p99') for s in ('_ns', '_lo_ns', '_hi_ns'))
    report(ok, f'api-hist-table-percentiles-{view}', json.dumps(rows)[:300])
row = [r for r in get_json(kbase, '/api/view?view=system_event')['views'][0]['rows'] if r['event'] == EV][0]
h = get_json(kbase, f'/api/histogram?event={EV}')
report(all(row[f'{p}_ns'] == h[f'{p}_ns'] and row[f'{p}_hi_ns'] == h[f'{p}_hi_ns'] for p in ('p50', 'p95', 'p99')),
       'api-hist-table-percentiles-system_event', f'{row} {h}')


def dump_hist(tr, ev, frm=None, to=None):
    argv = [f'{top}/bin/pgwt-dump', tr, '--view', 'histogram', '--event', ev, '--format', 'json']
    if frm:
        argv += ['--from', iso(frm), '--to', iso(to)]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    return [json.loads(x) for x in out.splitlines() if '"histogram"' in x][0]


# against pgwt-dump's histogram view of the same range: bucket counts and
# percentiles equal (the API adds each bucket's time)
for tr, b, ev, frm, to in [(known, kbase, EV, None, None),
                           (trace, base, 'IO:DataFileRead', (first_s + 2) * S, (first_s + 17) * S),
                           (trace, base, 'Lock:transactionid', (first_s + 2) * S, (first_s + 17) * S)]:
    d = dump_hist(tr, ev, frm, to)
    h = get_json(b, f'/api/histogram?event={ev}' + (f'&from={frm}&to={to}' if frm else ''))
    ok = h['status'] == 'ok' and [x['waits'] for x in h['buckets']] == [x['waits'] for x in d['buckets']] \
        and all(h[k] == d[k] for k in ('waits', 'total_ns', 'max_ns', 'p50_ns', 'p95_ns', 'p99_ns', 'p99_hi_ns')) \
        and sum(x['time_ns'] for x in h['buckets']) == h['total_ns']
    report(ok, f'api-hist-as-dump {ev}', f'api {json.dumps(h)[:200]} dump {json.dumps(d)[:200]}')

# a range with only samples: no buckets, "requires_exact" (the page says it
# needs an exact window); the tables' percentile cells are null there, not 0
zfrm, zto = (first_s + 5) * S, (first_s + 8) * S
h = get_json(base, f'/api/histogram?event=IO:DataFileRead&from={zfrm}&to={zto}')
report(h['status'] == 'requires_exact' and h['buckets'] is None and h['waits'] == 0
       and h['sampled_ns_excluded'] > 0, 'api-hist-sampled-only-requires-exact', json.dumps(h)[:300])
pid = get_json(base, f'/api/view?view=session_event&event=IO:DataFileRead&from={zfrm}&to={zto}')['views'][0]['rows'][0]['pid']
h = get_json(base, f'/api/histogram?event=IO:DataFileRead&pid={pid}&from={zfrm}&to={zto}')
report(h['status'] == 'requires_exact' and h['buckets'] is None, 'api-hist-sampled-only-session', json.dumps(h)[:300])
rows = get_json(base, f'/api/view?view=system_event&from={zfrm}&to={zto}')['views'][0]['rows']
report(rows and all(r['p50_ns'] is None and r['max_ns'] is None and r['total_ns'] > 0 for r in rows),
       'api-sampled-rows-no-percentiles', json.dumps(rows)[:300])
rows = get_json(base, f'/api/view?view=session_event&event=IO:DataFileRead&from={(first_s + 2) * S}&to={(first_s + 17) * S}')['views'][0]['rows']
report(rows and all(r['p50_ns'] is not None and r['p50_lo_ns'] <= r['p50_ns'] < r['p50_hi_ns'] for r in rows),
       'api-session-rows-percentiles', json.dumps(rows)[:300])
h = get_json(base, f'/api/histogram?event=IO:DataFileRead&from={first_s * S}&to={(first_s + 1) * S}')
report(h['status'] in ('requires_exact', 'no_data') and h['buckets'] is None, 'api-hist-no-waits-no-buckets', json.dumps(h)[:200])

st, h, body = get(kbase, f'/api/histogram?event={EV}&pid=4242&format=csv')
lines = body.decode().splitlines()
report(st == 200 and 'attachment' in h.get('Content-Disposition', '') and len(lines) == 33
       and lines[0] == 'window,event,pid,query_id,lo_ns,hi_ns,waits,time_ns,status'
       and sum(int(x.split(',')[6]) for x in lines[1:]) == 11, 'api-hist-csv', f'HTTP {st}, {lines[:2]}')

for path in ['/api/histogram', f'/api/histogram?event={EV}&pid=4242&query=77', '/api/histogram?event=No:Such',
             f'/api/histogram?event={EV}&pid=0', f'/api/histogram?event={EV}&format=text',
             f'/api/histogram?event={EV}&from=5&to=3', f'/api/histogram?event={EV}&bogus=1',
             f'/api/histogram?event={EV}&query=x1']:
    st, h, body = get(kbase, path)
    try:
        err = json.loads(body).get('error')
    except ValueError:
        err = None
    report(st == 400 and isinstance(err, str) and err, 'api-hist-bad ' + (path.split('?') + [''])[1][:50], f'HTTP {st} {body[:100]!r}')
sys.exit(0)
