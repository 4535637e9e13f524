// hist.js: the histogram of the chosen event (or of the event within the
// chosen session or query): /api/histogram's log2 buckets as a bar chart
// (waits, and the time they took), with p50/p95/p99 and the bucket bounds
// each lies in. Where the range holds only samples for the key, it says an
// exact window is needed instead of drawing an empty chart. Every value is
// put into the page as text.
/* global echarts */
import { getJSON, downloadCsv } from './api.js';
import { escalateButton } from './daemon.js';
import { echartsReady } from './chart.js';

// "134 ms", "1.07 s": a bucket bound for people (three digits).
export function fmtNs(ns) {
  const units = ['ns', 'us', 'ms', 's'];
  let v = Number(ns);
  let u = 0;
  while (u < 3 && v >= 1000) {
    v /= 1000;
    u++;
  }
  const digits = v >= 100 || u === 0 ? 0 : v >= 10 ? 1 : 2;
  return `${v.toFixed(digits)} ${units[u]}`;
}

export function bucketLabel(b) {
  if (Number(b.lo_ns) === 0) return `< ${fmtNs(b.hi_ns)}`;
  if (b.hi_ns === null) return `>= ${fmtNs(b.lo_ns)}`;
  return `${fmtNs(b.lo_ns)}\u2013${fmtNs(b.hi_ns)}`;
}

// The buckets from the first to the last that holds a wait: 32 bars of
// mostly zeros would hide the shape (the API and its CSV keep all 32).
export function shownBuckets(buckets) {
  const used = buckets.map((b, i) => (b.waits > 0 ? i : -1)).filter((i) => i >= 0);
  if (!used.length) return [];
  return buckets.slice(used[0], used[used.length - 1] + 1);
}

function key(s) {
  if (s.pid) return { pid: s.pid };
  if (s.query) return { query: s.query };
  return {};
}

function title(s) {
  if (s.pid) return `Histogram of ${s.event} in session ${s.pid}`;
  if (s.query) return `Histogram of ${s.event} in query ${s.query}`;
  return `Histogram of ${s.event}`;
}

function summaryText(h) {
  const parts = [`${h.waits} waits`, `total ${(h.total_ns / 1e9).toFixed(3)} s`, `max ${fmtNs(h.max_ns)}`];
  for (const p of ['p50', 'p95', 'p99']) {
    if (h[p + '_ns'] !== null && h[p + '_ns'] !== undefined) {
      parts.push(`${p} ${fmtNs(h[p + '_ns'])} (within ${fmtNs(h[p + '_lo_ns'])}\u2013${fmtNs(h[p + '_hi_ns'])})`);
    }
  }
  let text = parts.join(' \u00b7 ') + '. Percentiles are bucketed: each lies in the log2 bucket of the true value, cut at the shortest and longest wait.';
  if (h.sampled_ns_excluded > 0) {
    text += ` ${(h.sampled_ns_excluded / 1e9).toFixed(3)} s of sampled time have no durations and are not in the buckets.`;
  }
  return text;
}

function draw(el, shown) {
  let chart = echarts.getInstanceByDom(el);
  if (!chart) {
    chart = echarts.init(el, null, { renderer: 'canvas' });
    window.addEventListener('resize', () => chart.resize());
  }
  chart.setOption({
    animation: false,
    legend: { top: 0 },
    grid: { left: 60, right: 60, top: 30, bottom: 40 },
    tooltip: { trigger: 'axis', renderMode: 'richText' },
    xAxis: { type: 'category', data: shown.map(bucketLabel), axisLabel: { interval: 0, rotate: 20 } },
    yAxis: [{ type: 'value', name: 'waits', minInterval: 1 }, { type: 'value', name: 'time (s)' }],
    series: [
      { name: 'waits', type: 'bar', data: shown.map((b) => b.waits), color: '#2e6fd8' },
      { name: 'time (s)', type: 'bar', yAxisIndex: 1, data: shown.map((b) => b.time_ns / 1e9), color: '#e67e22' },
    ],
  }, { notMerge: true });
}

// Shows the histogram box for state s (hidden unless an event is chosen).
export async function loadHistogram(s, box, setStatus) {
  if (!s.event) {
    box.classList.add('hidden');
    window.pgwtHist = null;
    return;
  }
  box.classList.remove('hidden');
  const params = { event: s.event, ...key(s), from: s.from, to: s.to };
  box.querySelector('h2').textContent = title(s);
  const csv = document.createElement('button');
  csv.type = 'button';
  csv.textContent = 'CSV';
  csv.addEventListener('click', () => downloadCsv(params, 'histogram.csv', '/api/histogram')
    .catch((e) => setStatus(e.message, true)));
  box.querySelector('.tools').replaceChildren(csv);
  const chartEl = box.querySelector('.hist-chart');
  const msg = box.querySelector('.hist-msg');
  const sum = box.querySelector('.hist-summary');
  const h = await getJSON('/api/histogram', params);
  window.pgwtHist = h;	// read by the browser tests
  await echartsReady();
  if (h.status !== 'ok') {
    const old = echarts.getInstanceByDom(chartEl);
    if (old) old.dispose();
    chartEl.classList.add('hidden');
    sum.textContent = '';
    msg.textContent = h.status === 'requires_exact'
      ? 'Needs an exact window: this range holds only sampled data for this key, and samples have no wait durations. Escalate to capture every wait, or zoom onto a shaded (exact) span.'
      : 'No wait of this key ended in this range.';
    if (h.status === 'requires_exact') msg.append(' ', escalateButton());
    msg.dataset.status = h.status;
    return;
  }
  msg.textContent = '';
  msg.dataset.status = 'ok';
  chartEl.classList.remove('hidden');
  sum.textContent = summaryText(h);
  draw(chartEl, shownBuckets(h.buckets));
}
