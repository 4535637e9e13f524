"""The exact views in the page (headless Chromium through chromedriver):
argv BASE TOP TRACE TRUTH SHOTDIR, the same trace as exact_api.py (with
its blockers.tsv). Each table's cells are held to pgwt-dump's text tables
and to the sessions' truth of exact_dump.py, not to the API; a range with
samples only shows "needs an exact window" with the Escalate button; the
hostile statement stays text. Screenshots: SHOTDIR/exact-*.png. SKIP only
when no browser starts."""
import json
import sys
import time

from common import start_chrome, stop_chrome, report
from exact_dump import setup, dump_transitions, dump_concurrency, dump_lock_chains, clock, now_truth

base, top, trace, truth, shots = sys.argv[1], sys.argv[2], sys.argv[3], json.load(open(sys.argv[4])), sys.argv[5]
setup(top, trace, truth)
S = 10**9
F = truth['start_realtime_ns']
exact_r = (F + 2 * S, F + 5 * S)
exact2_r = (F + 12 * S, F + 15 * S)
sampled_r = (F + 6 * S, F + 11 * S)

drv, profile = start_chrome('web-exact-browser', 1700)
from selenium.webdriver.common.by import By  # noqa: E402


def wait_ready():
    time.sleep(0.2)
    for _ in range(300):
        # the exact views fill in after the rest of the page
        if drv.execute_script("return document.body.dataset.ready === 'yes'"
                              " && document.body.dataset.exactReady === 'yes'"):
            return
        time.sleep(0.1)
    raise RuntimeError('page never became ready')


def open_page(frag):
    drv.get(base + '/#' + frag)
    wait_ready()


def rows(tid):
    """The body cells' text of a table, row by row, in the page's order."""
    return drv.execute_script(
        "return [...document.querySelectorAll('#' + arguments[0] + ' tbody tr')]"
        ".map(tr => [...tr.cells].map(td => td.textContent));", tid)


def box(bid):
    return drv.execute_script(
        "const b = document.getElementById(arguments[0]);"
        "const m = b.querySelector('.x-msg');"
        "return {status: b.dataset.status, msg: m.textContent,"
        " buttons: [...m.querySelectorAll('button')].map(x => x.textContent),"
        " csv: [...b.querySelectorAll('.tools button')].map(x => x.textContent)};", bid)


def shot_box(bid, name):
    drv.find_element(By.ID, bid).screenshot(f'{shots}/{name}.png')


def state():
    return drv.execute_script("return Object.fromEntries(new URLSearchParams(location.hash.slice(1)))")


def check_range(name, frm, to):
    """The four tables of [frm, to) against pgwt-dump and the records."""
    open_page(f'from={frm}&to={to}')
    _, want, _ = dump_transitions(frm, to)
    got = {(r[0], r[1]): (int(r[2]), f'{float(r[3]) * 1000:.3f}', r[4]) for r in rows('t-transitions')}
    # the table shows seconds to the ms: compare at that precision
    want_s = {k: (c, f'{float(ms) / 1000:.3f}', pct) for k, (c, ms, pct) in want.items()}
    got_s = {k: (c, f'{float(ms) / 1000:.3f}', pct) for k, (c, ms, pct) in got.items()}
    sankey = drv.execute_script(
        "const c = echarts.getInstanceByDom(document.querySelector('#box-transitions .sankey'));"
        "return c ? c.getOption().series[0].links.length : -1;")
    report(got_s == want_s and len(want) > 2 and sankey == min(30, len(want)),
           f'web-exact-transitions-table {name}', f'page {got_s} dump {want_s} sankey links {sankey}')

    _, want, bursts, _ = dump_concurrency(frm, to)
    got = {r[0]: (int(r[1]), r[2][11:], int(r[3]), int(r[4]), int(r[5])) for r in rows('t-concurrency')}
    gotb = sorted((r[0][11:], r[1], int(r[2])) for r in rows('t-bursts'))
    report(got == want and gotb == bursts and len(want) > 2, f'web-exact-concurrency-table {name}',
           f'page {got} dump {want}; bursts {len(gotb)} vs {len(bursts)}')

    st, chains, edges = dump_lock_chains(frm, to)
    if st != 'ok':
        x = box('box-locks')
        report(st == '(no data in the window)' and x['status'] == 'no_data' and x['msg'].startswith('No waiter')
               and rows('t-locks') == [] and x['buttons'] == [], f'web-exact-lock-none {name}', f'dump {st}, page {x}')
        chains = edges = None
    gotc = chains and {int(r[0]): (f'{float(r[1]) * 1000:.0f}', int(r[2]), int(r[3]), r[4].replace('\u2192', '->'))
            for r in rows('t-locks')}
    wantc = chains and {h: (f'{float(ms):.0f}', w, d, p) for h, (ms, w, d, p) in chains.items()}
    gote = chains and {(int(r[0]), int(r[1])): (f'{float(r[2]) * 1000:.0f}', int(r[3]), int(r[4])) for r in rows('t-lock_edges')}
    wante = chains and {k: (f'{float(ms):.0f}', w, o) for k, (ms, w, o) in edges.items()}
    if chains:
        report(gotc == wantc and gote == wante and len(wante) == 3, f'web-exact-lock-tables {name}',
               f'page {gotc} {gote} dump {wantc} {wante}')

    want = now_truth(frm, to)
    got = {int(r[0]): (r[2], r[4], r[5], r[6]) for r in rows('t-now')}
    # the names: the trace's events.tsv (id, class, name), CPU* for 0
    names = {0: 'CPU*'}
    for ln in open(f'{trace}/events.tsv'):
        f = ln.rstrip('\n').split('\t')
        if not ln.startswith('#') and len(f) == 3:
            names[int(f[0], 16)] = f'{f[1]}:{f[2]}'
    wantp = {p: (names.get(ev, '?'), clock(since), fid, str(q) if q else '') for p, (ev, since, fid, q) in want.items()}
    got = {p: (e, s[11:], f, q) for p, (e, s, f, q) in got.items()}
    report(got == wantp and len(want) == 4, f'web-exact-sessions-now-table {name}', f'page {got} truth {wantp}')


try:
    check_range('exact window 1', *exact_r)
    shot_box('box-transitions', 'exact-transitions')
    shot_box('box-locks', 'exact-locks')
    shot_box('box-concurrency', 'exact-concurrency')
    shot_box('box-now', 'exact-sessions-now')
    csv = {b: box(b)['csv'] for b in ('box-now', 'box-transitions', 'box-locks', 'box-concurrency')}
    report(all(v == ['CSV'] for v in csv.values()), 'web-exact-csv-buttons', str(csv))

    # sorting: a click on a header sorts, and the sort is in the URL
    drv.execute_script("[...document.querySelectorAll('#t-transitions th')].find(th => th.textContent === 'Count').click()")
    wait_ready()
    counts = [int(r[2]) for r in rows('t-transitions')]
    st = state()
    d = st.get('sort', '').split('transitions.count.')[-1][:4].rstrip(',')
    report(d in ('asc', 'desc') and counts == sorted(counts, reverse=d == 'desc') and len(set(counts)) > 1,
           'web-exact-sort-in-url', f'{st} {counts}')
    url = drv.current_url
    before = rows('t-transitions')
    drv.get('about:blank')
    drv.get(url)
    wait_ready()
    report(rows('t-transitions') == before, 'web-exact-url-reopens-sort', url)

    # zoom: the same tables follow another range
    check_range('exact window 2 (zoom)', *exact2_r)

    # samples only: the message and the Escalate button, no empty tables
    open_page(f'from={sampled_r[0]}&to={sampled_r[1]}')
    drv.save_screenshot(f'{shots}/exact-sampled-only.png')
    for b, t in (('box-transitions', 't-transitions'), ('box-locks', 't-locks'), ('box-concurrency', 't-concurrency')):
        x = box(b)
        report(x['status'] == 'requires_exact' and x['msg'].startswith('Needs an exact window')
               and x['buttons'] == ['Escalate'] and rows(t) == [], f'web-exact-needs-exact-window {b}', str(x))
    shot_box('box-transitions', 'exact-needs-window')
    # no daemon behind this server: the button's request is refused, and said so
    drv.execute_script("document.querySelector('#box-transitions .x-msg button').click()")
    time.sleep(1)
    said = drv.execute_script("return document.querySelector('#box-transitions .escalate-said').textContent")
    report(said.strip().startswith('refused'), 'web-exact-escalate-without-daemon-refused', said)
    # the sessions still show (samples say what each backend was doing)
    want = now_truth(*sampled_r)
    report(len(rows('t-now')) == len(want) == 4 and box('box-now')['status'] == 'ok',
           'web-exact-sessions-now-from-samples', str(rows('t-now')))

    # the hostile statement (query 1) is text in the sessions' table
    hostile = [r for r in rows('t-now') if '<script>' in r[7]]
    inert = drv.execute_script(
        "return window.PWNED === undefined && !document.querySelector('#box-now script, #box-now img');")
    report(hostile and hostile[0][7].startswith("SELECT '<script>window.PWNED=1</script>'") and inert,
           'web-exact-script-inert', str(hostile)[:200])

    # a range over an hour: the exact views ask to zoom in (no read of
    # every record), the sessions come from the range's last hour
    lf, lt = F - 3600 * S, F + 3600 * S
    open_page(f'from={lf}&to={lt}')
    xs = {b: box(b) for b in ('box-transitions', 'box-locks', 'box-concurrency')}
    want = now_truth(lt - 3600 * S, lt)
    got = {int(r[0]) for r in rows('t-now')}
    report(all(x['status'] == 'too_long' and x['msg'].startswith('Zoom to an hour or less') for x in xs.values())
           and got == set(want) and len(want) == 4 and 'last hour' in drv.execute_script(
               "return document.querySelector('#box-now h2').textContent"),
           'web-exact-long-range-zoom-in', f'{xs} sessions {got} vs {set(want)}')

    # the histogram's "needs an exact window" has the button too
    open_page(f'from={sampled_r[0]}&to={sampled_r[1]}&class=Lock&event=Lock:transactionid')
    h = drv.execute_script(
        "const m = document.querySelector('#box-hist .hist-msg');"
        "return [m.dataset.status, m.textContent, [...m.querySelectorAll('button')].map(b => b.textContent)];")
    report(h[0] == 'requires_exact' and h[1].startswith('Needs an exact window') and h[2] == ['Escalate'],
           'web-hist-needs-exact-has-escalate', str(h))
    shot_box('box-hist', 'exact-hist-needs-window')
finally:
    stop_chrome(drv, profile)
sys.exit(0)
