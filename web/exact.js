// exact.js: the views that need exact transitions (transitions with a
// Sankey, lock chains and their waiter -> blocker edges, concurrency peaks
// and bursts) and "active sessions now", from /api/exact over the shown
// range. Where the range holds only samples an exact view says so, with
// the Escalate button, instead of showing empty tables. Every value from
// the trace (query texts above all) goes into the page through
// textContent; the Sankey is drawn on a canvas.
/* global echarts */
import { getJSON, downloadCsv } from './api.js';
import { readState, sortsOf, withSort, nsToMs } from './state.js';
import { renderTable } from './tables.js';
import { escalateButton } from './daemon.js';
import { echartsReady } from './chart.js';

const $ = (id) => document.getElementById(id);
const SANKEY_PAIRS = 30;	// the largest pairs drawn; the table has them all

function clockText(ns) {
  if (ns === null || ns === undefined) return '';
  return new Date(nsToMs(ns)).toISOString().replace('T', ' ').replace('Z', '');
}

const MESSAGES = {
  requires_exact: 'Needs an exact window: this range holds only sampled data, and samples do not show'
    + ' the order of waits or who waited at the same instant. Escalate to capture every transition,'
    + ' or zoom onto a shaded (exact) span.',
  no_data: 'Nothing in this range.',
};

// The box's message for a view that did not answer ok (with the Escalate
// button where an exact window would answer); true when there is one.
function message(box, v, noData) {
  const msg = box.querySelector('.x-msg');
  box.dataset.status = v.status;
  msg.replaceChildren();
  box.classList.toggle('x-none', v.status !== 'ok');
  if (v.status === 'ok') return false;
  msg.textContent = v.status === 'no_data' && noData ? noData : (MESSAGES[v.status] || v.message || v.status);
  if (v.status === 'requires_exact') msg.append(' ', escalateButton());
  return true;
}

function tools(box, params, name, setStatus) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = 'CSV';
  b.addEventListener('click', () => downloadCsv(params, name + '.csv', '/api/exact')
    .catch((e) => setStatus(e.message, true)));
  box.querySelector('.tools').replaceChildren(b);
}

function table(id, name, cols, rows, s, go, defaultSort, onRow) {
  renderTable($(id), cols, rows, {
    sort: sortsOf(s)[name] || defaultSort,
    onSort: (key, dir) => go(withSort(readState(), name, key, dir), false),
    onRow,
  });
}

// The views of one range come in one request (one read of its records);
// each box keeps its own parameters for its CSV.
// A later refresh supersedes an answer still on its way (gen): a stale
// one is dropped, not drawn over the newer range.
let answer = null;
let gen = 0;

function askAll(views, s) {
  answer = getJSON('/api/exact', { view: views.join(','), from: s.from, to: s.to });
}

async function fetchView(view, s) {
  const mine = gen;
  const res = await answer;
  if (mine !== gen) return [null, null];
  return [{ view, from: s.from, to: s.to }, res.views.find((v) => v.view === view) || {}];
}

// Left nodes are "from" events, right nodes "to" events, so the diagram
// has no cycle (CPU* -> IO -> CPU* would be one) and reads left to right.
function drawSankey(el, rows) {
  const old = echarts.getInstanceByDom(el);
  const top = rows.filter((r) => !r.other).slice(0, SANKEY_PAIRS);
  if (!top.length) {
    if (old) old.dispose();
    el.classList.add('hidden');
    return;
  }
  el.classList.remove('hidden');
  const chart = old || echarts.init(el, null, { renderer: 'canvas' });
  const names = new Set();
  const links = top.map((r) => {
    names.add('\u2192 ' + r.to).add(r.from + ' \u2192');
    return { source: r.from + ' \u2192', target: '\u2192 ' + r.to, value: r.count };
  });
  chart.setOption({
    animation: false,
    tooltip: { trigger: 'item', renderMode: 'richText' },
    series: [{ type: 'sankey', left: 10, right: 160, top: 10, bottom: 10, nodeGap: 6,
      data: [...names].map((name) => ({ name })), links, emphasis: { focus: 'adjacency' },
      lineStyle: { color: 'gradient', curveness: 0.5 }, label: { fontSize: 11 } }],
  }, { notMerge: true });
}

async function loadTransitions(s, go, setStatus) {
  const box = $('box-transitions');
  const [params, v] = await fetchView('transitions', s);
  if (!v) return;
  tools(box, params, 'transitions', setStatus);
  window.pgwtExact.transitions = v;
  const rows = message(box, v) ? [] : v.rows.map((r) => ({ ...r,
    from: r.other ? '(other)' : r.from, to: r.other ? '(other)' : r.to }));
  await echartsReady();         // deferred: the page's first view does not wait for it
  drawSankey(box.querySelector('.sankey'), rows);
  table('t-transitions', 'transitions', [
    { key: 'from', label: 'From', kind: 'text' }, { key: 'to', label: 'To', kind: 'text' },
    { key: 'count', label: 'Count', kind: 'num' }, { key: 'total_ns', label: 'Time in From (s)', kind: 's' },
    { key: 'pct_of_from', label: '% of moves out of From', kind: 'pct' },
  ], rows, s, go, { key: 'count', dir: 'desc' });
}

async function loadLocks(s, go, setStatus) {
  const box = $('box-locks');
  const [params, v] = await fetchView('lock_chains', s);
  if (!v) return;
  tools(box, params, 'lock_chains', setStatus);
  window.pgwtExact.lock_chains = v;
  const none = message(box, v, 'No waiter \u2192 blocker observation in this range: the tracer records'
    + ' pg_blocking_pids() answers (blockers.tsv) while a backend waits on a Lock.');
  const chains = none ? [] : v.rows.map((r) => ({ ...r,
    chain: r.path.join(' \u2192 ') + (r.cycle ? ' (cycle: deadlock)' : '') }));
  table('t-locks', 'locks', [
    { key: 'head', label: 'Head blocker', kind: 'num' }, { key: 'total_wait_ns', label: 'Lock wait behind it (s)', kind: 'sbar' },
    { key: 'waiters', label: 'Waiters', kind: 'num' }, { key: 'depth', label: 'Depth', kind: 'num' },
    { key: 'chain', label: 'Longest chain (waiter first)', kind: 'text' },
  ], chains, s, go, { key: 'total_wait_ns', dir: 'desc' });
  table('t-lock_edges', 'lock_edges', [
    { key: 'waiter', label: 'Waiter', kind: 'num' }, { key: 'blocker', label: 'Blocker', kind: 'num' },
    { key: 'wait_ns', label: 'Lock wait (s)', kind: 'sbar' }, { key: 'waits', label: 'Waits', kind: 'num' },
    { key: 'observations', label: 'Observations', kind: 'num' },
  ], none ? [] : v.edges, s, go, { key: 'wait_ns', dir: 'desc' });
}

async function loadConcurrency(s, go, setStatus) {
  const box = $('box-concurrency');
  const [params, v] = await fetchView('concurrency', s);
  if (!v) return;
  tools(box, params, 'concurrency', setStatus);
  window.pgwtExact.concurrency = v;
  const none = message(box, v);
  const note = box.querySelector('.x-note');
  note.textContent = none ? '' : `Bursts: ${v.burst_sessions} or more sessions entering one event within`
    + ` ${(v.burst_window_ns / 1e6).toFixed(1)} ms; ${v.bursts_total} in this range`
    + (v.bursts.length < v.bursts_total ? `, the first ${v.bursts.length} listed` : '') + '.'
    + (v.late_intervals || v.forced_intervals || v.concurrent_overflow || v.events_overflow
      ? ' Peaks are lower bounds: some waits were past the analysis caps.' : '');
  const open = (row) => go({ ...readState(), class: row.event === 'CPU*' ? 'CPU*' : row.event.split(':')[0],
    event: row.event, pid: undefined, query: undefined });
  table('t-concurrency', 'concurrency', [
    { key: 'event', label: 'Event', kind: 'text' }, { key: 'peak', label: 'Peak sessions', kind: 'num' },
    { key: 'peak_at', label: 'First at peak (UTC)', kind: 'text' }, { key: 'intervals', label: 'Waits begun', kind: 'num' },
    { key: 'bursts', label: 'Bursts', kind: 'num' }, { key: 'max_burst_sessions', label: 'Largest burst', kind: 'num' },
  ], none ? [] : v.rows.map((r) => ({ ...r, peak_at: clockText(r.peak_ns) })), s, go,
  { key: 'peak', dir: 'desc' }, open);
  table('t-bursts', 'bursts', [
    { key: 'at', label: 'Burst at (UTC)', kind: 'text' }, { key: 'event', label: 'Event', kind: 'text' },
    { key: 'sessions', label: 'Sessions', kind: 'num' },
  ], none ? [] : v.bursts.map((b) => ({ ...b, at: clockText(b.first_ns) })), s, go, { key: 'at', dir: 'asc' }, open);
}

async function loadNow(s, go, setStatus, lastHour) {
  const box = $('box-now');
  const [params, v] = await fetchView('sessions_now', s);
  if (!v) return;
  tools(box, params, 'sessions_now', setStatus);
  window.pgwtExact.sessions_now = v;
  message(box, v);
  box.querySelector('h2').textContent = (v.at_ns ? `Sessions at ${clockText(v.at_ns)} UTC (the range's end)`
    : 'Sessions at the range\u2019s end') + (lastHour ? ', as its last hour shows them' : '');
  const rows = (v.rows || []).map((r) => ({ ...r, since: clockText(r.since_ns),
    state: r.idle ? 'idle' : 'active', query_id: r.query_id === 0 ? '' : String(r.query_id) }));
  table('t-now', 'now', [
    { key: 'pid', label: 'PID', kind: 'num' }, { key: 'state', label: 'State', kind: 'text' },
    { key: 'event', label: 'Event', kind: 'text' }, { key: 'for_ns', label: 'For (s)', kind: 'sbar' },
    { key: 'since', label: 'Since (UTC)', kind: 'text' }, { key: 'fidelity', label: 'Fidelity', kind: 'fid' },
    { key: 'query_id', label: 'Query id', kind: 'text' }, { key: 'query', label: 'Query', kind: 'text' },
  ], rows, s, go, { key: 'for_ns', dir: 'desc' }, (row) => go({ ...readState(), pid: String(row.pid),
    query: undefined }));
}

// The longest range the exact views are asked for: they read every record
// of it (no summaries), which over a day would hold the page up.
export const EXACT_MAX_NS = 3600n * 1000000000n;

function tooLong(box) {
  box.dataset.status = 'too_long';
  box.classList.add('x-none');
  box.querySelector('.x-msg').textContent = 'Zoom to an hour or less: this view reads every record of the range.';
  box.querySelectorAll('table').forEach((t) => t.replaceChildren());
  const sk = box.querySelector('.sankey');
  if (sk && window.echarts) {
    const old = echarts.getInstanceByDom(sk);
    if (old) old.dispose();
    sk.classList.add('hidden');
  }
}

// All four over state s's range (they follow zoom and live mode as the
// other tables do); aas: the chart's answer, which says the range's
// extent when the state leaves it open. Resolves false when a later call
// superseded this one.
export async function loadExact(s, aas, go, setStatus) {
  gen++;
  window.pgwtExact = {};	// read by the browser tests
  const from = BigInt(s.from || (aas && aas.from_ns) || 0);
  const to = BigInt(s.to || (aas && aas.to_ns) || 0);
  if (to - from > EXACT_MAX_NS) {
    ['box-transitions', 'box-locks', 'box-concurrency'].forEach((id) => tooLong($(id)));
    // the sessions at the end, from the range's last hour
    const last = { ...s, from: (to - EXACT_MAX_NS).toString(), to: to.toString() };
    askAll(['sessions_now'], last);
    const mine = gen;
    await loadNow(last, go, setStatus, true);
    return mine === gen;
  }
  askAll(['sessions_now', 'transitions', 'lock_chains', 'concurrency'], s);
  const mine = gen;
  await Promise.all([loadNow(s, go, setStatus), loadTransitions(s, go, setStatus),
    loadLocks(s, go, setStatus), loadConcurrency(s, go, setStatus)]);
  return mine === gen;
}
