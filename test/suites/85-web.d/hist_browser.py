"""The histogram view's browser checks (headless Chromium through
chromedriver): argv BASE KNOWN_BASE FIRST_S SHOTDIR. BASE serves the web
suite's pgwt-synth trace, KNOWN_BASE pct_truth.py's known directory (see
hist_api.py). The page's cells and bars are held to the API's answers,
which hist_api.py holds to the truth. SKIP only when no browser starts."""
import sys
import time

from common import start_chrome, stop_chrome, report, get_json

base, kbase, first_s, shots = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
S = 10**9
EV = 'Timeout:PgSleep'

drv, profile = start_chrome('web-hist-browser', 1700)


def wait_ready():
    time.sleep(0.2)
    for _ in range(300):
        if drv.execute_script('return document.body.dataset.ready') == 'yes':
            return
        time.sleep(0.1)
    raise RuntimeError('page never became ready')


def open_page(b, frag):
    drv.get(b + '/#' + frag)
    wait_ready()


def column(name, label, key_label):
    """{first-column text: cell text of column label} of a table."""
    return drv.execute_script(
        "const t = document.getElementById('t-' + arguments[0]);"
        "const hs = [...t.querySelectorAll('th')].map(th => th.textContent);"
        "const i = hs.indexOf(arguments[1]), k = hs.indexOf(arguments[2]);"
        "return Object.fromEntries([...t.querySelectorAll('tbody tr')]"
        ".map(tr => [tr.cells[k].textContent, [tr.cells[i].textContent, tr.cells[i].title]]));",
        name, label, key_label)


def ms(ns):
    return '' if ns is None else f'{ns / 1e6:.3f}'


def bars():
    return drv.execute_script(
        "const el = document.querySelector('#box-hist .hist-chart');"
        "const c = echarts.getInstanceByDom(el); if (!c) return null;"
        "const o = c.getOption();"
        "return {labels: o.xAxis[0].data, waits: o.series[0].data, time: o.series[1].data};")


def hist_state():
    return drv.execute_script(
        "const b = document.getElementById('box-hist');"
        "return {hidden: b.classList.contains('hidden'), title: b.querySelector('h2').textContent,"
        "msg: b.querySelector('.hist-msg').textContent, summary: b.querySelector('.hist-summary').textContent,"
        "chartHidden: b.querySelector('.hist-chart').classList.contains('hidden')};")


def want_bars(h):
    used = [i for i, b in enumerate(h['buckets']) if b['waits']]
    shown = h['buckets'][used[0]:used[-1] + 1]
    return [b['waits'] for b in shown], [b['time_ns'] / 1e9 for b in shown]


try:
    # 1. clicking an event opens its histogram; the bars are the API's
    open_page(kbase, '')
    drv.execute_script("[...document.querySelectorAll('#t-events tbody tr')]"
                       ".find(tr => tr.cells[0].textContent === arguments[0]).click()", EV)
    wait_ready()
    st = drv.execute_script("return Object.fromEntries(new URLSearchParams(location.hash.slice(1)))")
    h = get_json(kbase, f'/api/histogram?event={EV}')
    w, t = want_bars(h)
    got = bars()
    hs = hist_state()
    report(st.get('event') == EV and not hs['hidden'] and hs['title'] == f'Histogram of {EV}' and got
           and got['waits'] == w and all(abs(a - b) < 1e-9 for a, b in zip(got['time'], t)) and len(got['time']) == len(t),
           'web-hist-click-event-bars-equal-api', f'state {st}, hist {hs}, bars {got}, want {w} {t}')
    ev_cells = column('events', 'p50 (ms)', 'Event')
    report(ev_cells.get(EV, [''])[0] == ms(h['p50_ns']) and 'bucket' in ev_cells[EV][1]
           and ms(h['p50_lo_ns']) in ev_cells[EV][1], 'web-hist-event-p50-cell', f'{ev_cells} vs {h["p50_ns"]}')

    # 2. the session's histogram: percentile cells of the sessions table
    # (one row per session in the event) and the session's bars
    sess = get_json(kbase, f'/api/view?view=session_event&event={EV}')['views'][0]['rows']
    ok = True
    for p in ('p50', 'p95', 'p99'):
        cells = column('sessions', f'{p} (ms)', 'PID')
        ok = ok and {k: v[0] for k, v in cells.items()} == {str(r['pid']): ms(r[p + '_ns']) for r in sess}
    report(ok and len(sess) == 2, 'web-hist-session-pct-cells-equal-api', f'{column("sessions", "p50 (ms)", "PID")} vs {sess}')
    drv.execute_script("[...document.querySelectorAll('#t-sessions tbody tr')]"
                       ".find(tr => tr.cells[0].textContent === '4242').click()")
    wait_ready()
    h = get_json(kbase, f'/api/histogram?event={EV}&pid=4242')
    w, t = want_bars(h)
    got = bars()
    hs = hist_state()
    report(hs['title'] == f'Histogram of {EV} in session 4242' and got and got['waits'] == w
           and got['waits'][0] == 10 and got['waits'][-1] == 1 and 'p50' in hs['summary'] and 'bucket' in hs['summary'],
           'web-hist-session-bars-equal-api', f'{hs} {got} want {w}')
    shot_url = drv.current_url
    drv.save_screenshot(f'{shots}/06-histogram.png')

    # 3. the URL reopens the histogram
    drv.get('about:blank')
    drv.get(shot_url)
    wait_ready()
    report(bars() == got and hist_state() == hs, 'web-hist-url-reopens', shot_url)

    # 4. a query's histogram, from the query's events table
    open_page(kbase, 'query=77')
    drv.execute_script("[...document.querySelectorAll('#t-queries tbody tr')]"
                       ".find(tr => tr.cells[0].textContent === arguments[0]).click()", EV)
    wait_ready()
    h = get_json(kbase, f'/api/histogram?event={EV}&query=77')
    st = drv.execute_script("return Object.fromEntries(new URLSearchParams(location.hash.slice(1)))")
    cells = column('queries', 'p99 (ms)', 'Event')
    report(st.get('query') == '77' and st.get('event') == EV and bars() and bars()['waits'] == want_bars(h)[0]
           and cells.get(EV, [''])[0] == ms(h['p99_ns']) == '1500.000',
           'web-hist-query', f'{st} {bars()} {cells}')

    # 5. sampled only: the view says it needs an exact window, no chart;
    # the percentile cells are blank where the time is not
    zfrm, zto = (first_s + 5) * S, (first_s + 8) * S
    open_page(base, f'from={zfrm}&to={zto}&class=IO&event=IO:DataFileRead')
    hs = hist_state()
    canvas = drv.execute_script("return document.querySelectorAll('#box-hist .hist-chart canvas').length")
    cells = column('events', 'p50 (ms)', 'Event')
    times = column('events', 'Time (s)', 'Event')
    drv.save_screenshot(f'{shots}/07-hist-needs-exact.png')
    report(not hs['hidden'] and hs['msg'].startswith('Needs an exact window') and hs['chartHidden'] and canvas == 0
           and cells and all(v[0] == '' for v in cells.values()) and all(v[0] != '' for v in times.values()),
           'web-hist-sampled-only-needs-exact', f'{hs} canvas {canvas} cells {cells} times {times}')
    logs = [e['message'] for e in drv.get_log('browser') if 'Content Security Policy' in e['message']]
    report(not logs, 'web-hist-no-csp-violations', '; '.join(logs)[:300])
except Exception as e:
    report(False, 'web-hist-browser', f'{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ""}')
    try:
        drv.save_screenshot(f'{shots}/99-hist-error.png')
    except Exception:
        pass
finally:
    stop_chrome(drv, profile)
sys.exit(0)
