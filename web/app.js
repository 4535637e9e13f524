// app.js: the page. Reads the state from the URL, asks the API for the AAS
// series and the four tables of the drill path (class -> event -> session
// -> query), the exact views (exact.js), and writes every click back into
// the URL.
import { getJSON, downloadCsv } from './api.js';
import { readState, writeState, sortsOf, withSort, nsToMs, msToNs } from './state.js';
import { drawAAS, echartsReady } from './chart.js';
import { renderTable } from './tables.js';
import { loadHistogram } from './hist.js';
import { loadExact } from './exact.js';
import { refreshStatus, drawWindows, startLive, pinLive } from './daemon.js';

const $ = (id) => document.getElementById(id);

function go(next, push = true) {
  writeState(next, push);
  refresh();
}

function rangeParams(s) {
  return { from: s.from, to: s.to };
}

function setStatus(text, error) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

function fmtTime(ns) {
  return new Date(nsToMs(ns)).toISOString().replace('T', ' ').replace('Z', ' UTC');
}

function crumbs(s) {
  const nav = $('crumbs');
  nav.replaceChildren();
  const steps = [['All', { from: s.from, to: s.to, sort: s.sort, token: s.token, a_from: s.a_from, a_to: s.a_to }]];
  if (s.class) steps.push([s.class, { ...steps[0][1], class: s.class }]);
  if (s.event) steps.push([s.event, { ...steps[steps.length - 1][1], event: s.event }]);
  if (s.pid) steps.push(['pid ' + s.pid, { ...steps[steps.length - 1][1], pid: s.pid }]);
  if (s.query) steps.push(['query ' + s.query, { ...steps[steps.length - 1][1], query: s.query }]);
  steps.forEach(([label, st], i) => {
    if (i) {
      const sep = document.createElement('span');
      sep.className = 'sep';
      sep.textContent = '\u203A';
      nav.appendChild(sep);
    }
    const a = document.createElement('a');
    a.textContent = label;
    a.addEventListener('click', () => go(st));
    nav.appendChild(a);
  });
}

function classOf(event) {
  return event === 'CPU*' ? 'CPU*' : event.split(':')[0];
}

// The four tables: what to ask for and how to show it.
function tableSpecs(s) {
  const r = rangeParams(s);
  const ev = { key: 'event', label: 'Event', kind: 'text' };
  const timeCols = [
    { key: 'total_ns', label: 'Time (s)', kind: 's' },
    { key: 'exact_waits', label: 'Exact waits', kind: 'num' },
    { key: 'max_ns', label: 'Max (ms)', kind: 'ms' },
    ...['p50', 'p95', 'p99'].map((p) => ({ key: p + '_ns', label: p + ' (ms)', kind: 'pctl',
      title: 'bucketed: within the log2 bucket of the true value (hover a cell for its bounds); blank: sampled only' })),
    { key: 'pct_db', label: '% DB time', kind: 'pct' },
    { key: 'fidelity', label: 'Fidelity', kind: 'fid' },
  ];
  const specs = {
    time_model: {
      title: 'Time model', params: { view: 'time_model', ...r },
      rows: (v) => v.classes || [],
      cols: [{ key: 'class', label: 'Class', kind: 'text' }, { key: 'total_ns', label: 'Time (s)', kind: 's' },
        { key: 'pct_db', label: '% DB time', kind: 'pct' }, { key: 'fidelity', label: 'Fidelity', kind: 'fid' }],
      onRow: (row) => go({ from: s.from, to: s.to, sort: s.sort, token: s.token, class: row.class }),
      selected: (row) => row.class === s.class,
    },
    events: {
      title: s.class ? `Events of ${s.class}` : 'Events', params: { view: 'system_event', class: s.class, ...r },
      rows: (v) => v.rows || [], cols: [ev, ...timeCols],
      onRow: (row) => !row.other && go({ from: s.from, to: s.to, sort: s.sort, token: s.token,
        class: classOf(row.event), event: row.event }),
      selected: (row) => row.event === s.event,
    },
    sessions: s.pid ? {
      title: `Session ${s.pid}: its events`, params: { view: 'session_event', pid: s.pid, ...r },
      rows: (v) => v.rows || [], cols: [ev, ...timeCols],
      onRow: (row) => !row.other && go({ ...s, class: classOf(row.event), event: row.event }),
      selected: (row) => row.event === s.event,
    } : s.event ? {
      title: `Sessions in ${s.event}`, params: { view: 'session_event', event: s.event, ...r },
      rows: (v) => v.rows || [], cols: [{ key: 'pid', label: 'PID', kind: 'num' }, ...timeCols],
      onRow: (row) => go({ ...s, pid: String(row.pid), query: undefined }),
    } : {
      title: 'Sessions', params: { view: 'session_event', ...r },
      rows: (v) => v.rows || [],
      cols: [{ key: 'pid', label: 'PID', kind: 'num' }, { key: 'user', label: 'User', kind: 'text' },
        { key: 'application', label: 'Application', kind: 'text' },
        { key: 'db_time_ns', label: 'DB time (s)', kind: 's' }, { key: 'cpu_pct', label: 'CPU', kind: 'pct' },
        { key: 'wait_pct', label: 'Wait', kind: 'pct' }, { key: 'top_wait', label: 'Top wait', kind: 'text' },
        { key: 'fidelity', label: 'Fidelity', kind: 'fid' }],
      onRow: (row) => !row.other && go({ ...s, pid: String(row.pid) }),
    },
    queries: s.query ? {
      title: `Query ${s.query}: its events`, params: { view: 'query_event', query: s.query, ...r },
      rows: (v) => v.rows || [], cols: [ev, { key: 'query', label: 'Query', kind: 'text' }, ...timeCols],
      onRow: (row) => !row.other && go({ ...s, class: classOf(row.event), event: row.event }),
      selected: (row) => row.event === s.event,
    } : {
      title: s.event ? `Queries in ${s.event}` : 'Queries', params: { view: 'query_event', event: s.event, ...r },
      rows: (v) => v.rows || [],
      cols: [{ key: 'query_id', label: 'Query id', kind: 'text' }, { key: 'query', label: 'Query', kind: 'text' },
        ev, ...timeCols],
      onRow: (row) => !row.other && go({ ...s, query: String(row.query_id) }),
    },
  };
  return specs;
}

function csvButton(box, spec, name) {
  const tools = box.querySelector('.tools');
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = 'CSV';
  b.addEventListener('click', () => downloadCsv(spec.params, name + '.csv').catch((e) => setStatus(e.message, true)));
  tools.replaceChildren(b);
}

async function loadTable(name, spec, s) {
  const box = $('box-' + name);
  box.querySelector('h2').textContent = spec.title;
  csvButton(box, spec, name);
  const res = await getJSON('/api/view', spec.params);
  const v = res.views[0] || {};
  const sort = sortsOf(s)[name] || { key: spec.cols.find((c) => c.kind === 's').key, dir: 'desc' };
  renderTable($('t-' + name), spec.cols, spec.rows(v), {
    sort,
    onSort: (key, dir) => go(withSort(readState(), name, key, dir), false),
    onRow: spec.onRow,
    selected: spec.selected,
  });
  return v;
}

async function loadChart(s) {
  const aas = await getJSON('/api/aas', { ...rangeParams(s), points: 300 });
  for (const b of aas.buckets) {
    b.from_ms = nsToMs(b.from_ns);
    b.to_ms = nsToMs(b.to_ns);
  }
  window.pgwtAAS = aas;	// read by the browser tests
  await echartsReady();
  const chart = drawAAS($('aas-chart'), aas,
    (a, b) => go({ ...readState(), from: msToNs(a), to: msToNs(b), live: undefined }));
  await drawWindows(chart, rangeParams(s), aas);
  $('range-text').textContent = `${fmtTime(aas.from_ns)} \u2013 ${fmtTime(aas.to_ns)}`;
}

// Compare periods: period A from the URL (a_from, a_to) against the shown
// range B, per class (/api/compare), the largest change first.
async function loadCompare(s) {
  const box = $('box-compare');
  if (!s.a_from || !s.a_to || !s.from || !s.to) {
    box.classList.add('hidden');
    return;
  }
  box.classList.remove('hidden');
  const params = { a_from: s.a_from, a_to: s.a_to, b_from: s.from, b_to: s.to, view: 'time_model' };
  box.querySelector('h2').textContent =
    `Compare: ${fmtTime(s.a_from)} \u2013 ${fmtTime(s.a_to)} (A) with the range shown (B)`;
  const tools = box.querySelector('.tools');
  const csv = document.createElement('button');
  csv.type = 'button';
  csv.textContent = 'CSV';
  csv.addEventListener('click', () => downloadCsv(params, 'compare.csv', '/api/compare')
    .catch((e) => setStatus(e.message, true)));
  const off = document.createElement('button');
  off.type = 'button';
  off.textContent = 'Stop comparing';
  off.addEventListener('click', () => go({ ...readState(), a_from: undefined, a_to: undefined }));
  tools.replaceChildren(csv, off);
  const res = await getJSON('/api/compare', params);
  const cols = [
    { key: 'class', label: 'Class', kind: 'text' },
    { key: 'a_ns', label: 'A (s)', kind: 's' }, { key: 'a_pct_db', label: 'A % DB time', kind: 'pct' },
    { key: 'b_ns', label: 'B (s)', kind: 's' }, { key: 'b_pct_db', label: 'B % DB time', kind: 'pct' },
    { key: 'delta_ns', label: 'Change (s)', kind: 's' },
    { key: 'delta_pct_db', label: 'Change (points)', kind: 'num' },
  ];
  renderTable($('t-compare'), cols, res.rows, {
    sort: sortsOf(s).compare,
    onSort: (key, dir) => go(withSort(readState(), 'compare', key, dir), false),
  });
}

let generation = 0;

async function refresh() {
  const s = pinLive(readState());
  const gen = ++generation;
  crumbs(s);
  setStatus('loading\u2026');
  document.body.dataset.ready = 'no';
  const specs = tableSpecs(s);
  try {
    const chart = loadChart(s);
    // the exact views read every record of the range: they fill in after
    // the rest (data-exact-ready), never holding the page up
    document.body.dataset.exactReady = 'no';
    chart.then(() => loadExact(s, window.pgwtAAS, go, setStatus))
      .then((current) => { if (current) document.body.dataset.exactReady = 'yes'; })
      .catch((e) => {
        if (gen !== generation) return;
        setStatus(e.message, true);
        document.body.dataset.exactReady = 'yes';
      });
    await Promise.all([chart, loadCompare(s), loadHistogram(s, $('box-hist'), setStatus),
      ...Object.entries(specs).map(([n, sp]) => loadTable(n, sp, s))]);
    if (gen === generation) setStatus('');
  } catch (e) {
    if (gen === generation) setStatus(e.message, true);
  }
  if (gen === generation) document.body.dataset.ready = 'yes';
}

$('reset-zoom').addEventListener('click', () => {
  const s = readState();
  go({ ...s, from: undefined, to: undefined });
});
// A = the period of the same length just before the shown range.
$('compare-prev').addEventListener('click', () => {
  const s = readState();
  const aas = window.pgwtAAS;
  const from = BigInt(s.from || (aas && aas.from_ns) || 0);
  const to = BigInt(s.to || (aas && aas.to_ns) || 0);
  if (to <= from || from < to - from) return;
  go({ ...s, from: from.toString(), to: to.toString(), a_from: (from - (to - from)).toString(), a_to: from.toString() });
});
window.addEventListener('popstate', refresh);
window.addEventListener('hashchange', refresh);
startLive(refresh, go);
refreshStatus();
refresh();
