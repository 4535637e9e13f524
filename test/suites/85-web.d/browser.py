"""The web suite's browser checks (headless Chromium through chromedriver):
argv BASE TOP TRACE FIRST_S SHOTDIR. Prints SKIP only when the probe (a
Chromium session that cannot start) proves there is no browser to use."""
import sys
import time

from common import start_chrome, stop_chrome, report, get_json, dump_time_model, RESULTS

base, top, trace, first_s, shots = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
S = 10**9
frm, to = (first_s + 2) * S, (first_s + 17) * S
zfrm, zto = (first_s + 5) * S, (first_s + 8) * S

drv, profile = start_chrome('web-browser', 1500)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402


def open_page(frag):
    drv.get(base + '/#' + frag)
    wait_ready()


def wait_ready():
    time.sleep(0.2)
    for _ in range(300):
        if drv.execute_script('return document.body.dataset.ready') == 'yes':
            return
        time.sleep(0.1)
    raise RuntimeError('page never became ready')


def table(name):
    """Rows of a table as lists of cell texts."""
    return drv.execute_script(
        "return [...document.querySelectorAll('#t-' + arguments[0] + ' tbody tr')]"
        ".map(tr => [...tr.cells].map(td => td.textContent));", name)


def status():
    return drv.execute_script("return document.getElementById('status').textContent")


def shot(name):
    drv.save_screenshot(f'{shots}/{name}.png')


try:
    # 1. the chart's series, summed over the range, is the time model of it
    open_page(f'from={frm}&to={to}')
    shot('01-range')
    truth, _ = dump_time_model(top, trace, frm, to)
    series = drv.execute_script(
        "const o = echarts.getInstanceByDom(document.getElementById('aas-chart')).getOption();"
        "return o.series.filter(s => s.stack === 'aas').map(s => [s.name, s.data.map(p => p[1])]);")
    edges = drv.execute_script("return window.pgwtAAS.buckets.map(b => [b.from_ns, b.to_ns]);")
    widths = [int(b) - int(a) for a, b in edges]
    drawn = {name: sum(v * w for v, w in zip(vals, widths)) for name, vals in series}
    ok = set(drawn) == set(truth) and all(abs(drawn[c] - truth[c]) <= 1e-6 * truth[c] + 1e4 for c in truth)
    report(ok and not status(), 'web-aas-chart-sums-to-time-model', f'chart {drawn} dump {truth}')
    tm = {r[0]: r[1] for r in table('time_model')}
    report(tm == {c: f'{ns / 1e9:.3f}' for c, ns in truth.items()}, 'web-time-model-table', f'{tm}')

    # 2. zoom by URL: every table follows
    before = {n: table(n) for n in ('time_model', 'events', 'sessions', 'queries')}
    open_page(f'from={zfrm}&to={zto}')
    ztruth, _ = dump_time_model(top, trace, zfrm, zto)
    after = {n: table(n) for n in before}
    ztm = {r[0]: r[1] for r in after['time_model']}
    report(ztm == {c: f'{ns / 1e9:.3f}' for c, ns in ztruth.items()}
           and all(after[n] != before[n] for n in before), 'web-zoom-url-tables-follow',
           f'{ztm} vs {ztruth}')

    # 3. zoom by dragging across the chart: the URL gets the span, tables change
    open_page(f'from={frm}&to={to}')
    canvas = drv.find_element(By.CSS_SELECTOR, '#aas-chart canvas')
    w = canvas.size['width']
    ActionChains(drv).move_to_element_with_offset(canvas, int(-w * 0.2), 0).click_and_hold() \
        .move_by_offset(int(w * 0.3), 0).release().perform()
    wait_ready()
    st = drv.execute_script("return Object.fromEntries(new URLSearchParams(location.hash.slice(1)))")
    dragged = table('time_model')
    report('from' in st and frm < int(st['from']) < int(st['to']) < to
           and dragged != before['time_model'], 'web-zoom-drag', f'state {st}')
    shot('02-dragged')

    # 4. the drill path by clicks: class -> event -> session, and a query
    open_page(f'from={frm}&to={to}')
    drv.execute_script("[...document.querySelectorAll('#t-time_model tbody tr')]"
                       ".find(tr => tr.cells[0].textContent === 'IO').click()")
    wait_ready()
    ev = table('events')
    ok1 = ev and all(r[0].startswith('IO:') for r in ev)
    drv.execute_script("[...document.querySelectorAll('#t-events tbody tr')]"
                       ".find(tr => tr.cells[0].textContent === 'IO:DataFileRead').click()")
    wait_ready()
    api = get_json(base, f'/api/view?view=session_event&event=IO:DataFileRead&from={frm}&to={to}')
    want = sorted((str(r['pid']), f'{r["total_ns"] / 1e9:.3f}') for r in api['views'][0]['rows'])
    sess = table('sessions')
    got = sorted((r[0], r[1]) for r in sess)
    ok2 = got == want
    drv.execute_script("document.querySelector('#t-sessions tbody tr').click()")
    wait_ready()
    st = drv.execute_script("return Object.fromEntries(new URLSearchParams(location.hash.slice(1)))")
    crumbs = drv.execute_script("return [...document.querySelectorAll('#crumbs a')].map(a => a.textContent)")
    ok3 = st.get('class') == 'IO' and st.get('event') == 'IO:DataFileRead' and st.get('pid') == sess[0][0] \
        and crumbs == ['All', 'IO', 'IO:DataFileRead', 'pid ' + sess[0][0]]
    title = drv.execute_script("return document.querySelector('#box-sessions h2').textContent")
    shot('03-drill')
    report(ok1 and ok2 and ok3 and title == f'Session {sess[0][0]}: its events', 'web-drill-path',
           f'events {ev}, sessions {got} vs {want}, state {st}, crumbs {crumbs}, title {title}')

    # 5. the URL reopens the same state (a fresh load of the same address)
    url = drv.current_url
    state_tables = {n: table(n) for n in before}
    drv.get('about:blank')
    drv.get(url)
    wait_ready()
    report({n: table(n) for n in before} == state_tables, 'web-url-reopens-state', url)

    # breadcrumbs go back up the path
    drv.execute_script("[...document.querySelectorAll('#crumbs a')].find(a => a.textContent === 'IO').click()")
    wait_ready()
    st = drv.execute_script("return Object.fromEntries(new URLSearchParams(location.hash.slice(1)))")
    report(st.get('class') == 'IO' and 'event' not in st and 'pid' not in st, 'web-breadcrumbs', f'{st}')

    # sorting: a click on a header sorts, and the sort is in the URL
    drv.execute_script("[...document.querySelectorAll('#t-time_model th')]"
                       ".find(th => th.textContent === 'Class').click()")
    wait_ready()
    names = [r[0] for r in table('time_model')]
    st = drv.execute_script("return new URLSearchParams(location.hash.slice(1)).get('sort')")
    report(names == sorted(names, key=str.casefold, reverse=True) and st == 'time_model.class.desc', 'web-sort', f'{names} {st}')

    # 7. compare periods: the button compares the shown range (B) with the
    # period of the same length before it (A); the table's changes are the
    # difference of two pgwt-dump runs; the state is in the URL
    bfrm, bto = (first_s + 11) * S, (first_s + 17) * S
    open_page(f'from={bfrm}&to={bto}')
    drv.execute_script("document.getElementById('compare-prev').click()")
    wait_ready()
    st = drv.execute_script("return Object.fromEntries(new URLSearchParams(location.hash.slice(1)))")
    afrm, ato = bfrm - (bto - bfrm), bfrm
    ta, _ = dump_time_model(top, trace, afrm, ato)
    tb, _ = dump_time_model(top, trace, bfrm, bto)
    want = {c: f'{(tb.get(c, 0) - ta.get(c, 0)) / 1e9:.3f}' for c in set(ta) | set(tb)}
    rows = table('compare')
    got = {r[0]: r[5] for r in rows}
    shot('05-compare')
    report(st.get('a_from') == str(afrm) and st.get('a_to') == str(ato) and got == want and len(want) >= 3,
           'web-compare-deltas-equal-dumps', f'state {st}, table {got}, dumps {want}')
    url = drv.current_url
    drv.get('about:blank')
    drv.get(url)
    wait_ready()
    report(table('compare') == rows, 'web-compare-url-reopens', url)

    # 6. a hostile query text is inert and shown as text
    open_page(f'from={frm}&to={to}&query=1')
    pwned = drv.execute_script('return typeof window.PWNED')
    texts = [r[1] for r in table('queries')]
    inj = drv.execute_script("return document.querySelectorAll('main table script, main table img').length")
    shot('04-hostile-text')
    report(pwned == 'undefined' and inj == 0 and texts and all('<script>window.PWNED=1</script>' in t
                                                               and 'onerror=' in t for t in texts),
           'web-query-text-inert', f'PWNED {pwned}, injected elements {inj}, texts {texts[:1]}')
    logs = [e['message'] for e in drv.get_log('browser') if 'Content Security Policy' in e['message']]
    report(not logs, 'web-no-csp-violations', '; '.join(logs)[:300])
except Exception as e:
    report(False, 'web-browser', f'{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ""}')
    try:
        shot('99-error')
    except Exception:
        pass
finally:
    stop_chrome(drv, profile)
sys.exit(0)
