// daemon.js: the daemon in the page (docs/WEB.md "The daemon"): a status
// strip with the daemon's tier, window and budget left, its self-metrics,
// an Escalate button (POST /api/escalate, which needs the server's token),
// the escalation windows of the shown range on the AAS chart with their
// reasons, and live mode, which redraws every second with the chart's
// right edge at the present. Every value from the daemon or the trace goes
// into the page as text (textContent), never as markup.
import { getJSON } from './api.js';
import { readState } from './state.js';

const $ = (id) => document.getElementById(id);
export const LIVE_DEFAULT_S = 300;
const LIVE_MIN_S = 10;
const LIVE_MAX_S = 86400;
const DURATIONS_S = [10, 30, 60, 300];
const MAX_METRICS = 80;		// the daemon reports about 50

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

// POST without a body; the token (from the URL fragment) in the header.
async function post(path, params) {
  const t = readState().token;
  const q = new URLSearchParams(params || {}).toString();
  const r = await fetch(path + (q ? '?' + q : ''), {
    method: 'POST', headers: t ? { Authorization: 'Bearer ' + t } : {},
  });
  let body = {};
  try { body = JSON.parse(await r.text()); } catch (e) { /* shown by status */ }
  return { status: r.status, body };
}

// The range live mode shows: [now - span, now), ns as decimal strings.
export function liveRange(s) {
  let span = Number(s.live) || LIVE_DEFAULT_S;
  span = Math.min(LIVE_MAX_S, Math.max(LIVE_MIN_S, Math.floor(span)));
  const now = BigInt(Date.now()) * 1000000n;
  return { from: (now - BigInt(span) * 1000000000n).toString(), to: now.toString() };
}

// The span live mode keeps when switched on: the shown range's length.
export function liveSpanOf(s) {
  if (s.from && s.to) {
    const span = Number((BigInt(s.to) - BigInt(s.from)) / 1000000000n);
    return Math.min(LIVE_MAX_S, Math.max(LIVE_MIN_S, span));
  }
  return LIVE_DEFAULT_S;
}

let strip = null;
let lastStatus = null;

function stripParts() {
  if (strip) return strip;
  const box = $('daemon-strip');
  const text = el('span', '', 'daemon-text');
  const sel = el('select');
  sel.id = 'esc-duration';
  sel.title = 'Length of the exact window';
  for (const d of DURATIONS_S) {
    const o = el('option', d + ' s');
    o.value = String(d);
    if (d === 60) o.selected = true;
    sel.appendChild(o);
  }
  const esc = el('button', 'Escalate');
  esc.id = 'escalate';
  esc.type = 'button';
  const de = el('button', 'End window');
  de.id = 'deescalate';
  de.type = 'button';
  const msg = el('span', '', 'daemon-msg');
  msg.id = 'daemon-msg';
  const det = el('details');
  det.appendChild(el('summary', 'Self-metrics'));
  const tbl = el('table');
  tbl.id = 't-metrics';
  det.appendChild(tbl);
  box.replaceChildren(text, sel, esc, de, msg, det);
  esc.addEventListener('click', () => change('/api/escalate', { duration_s: sel.value }));
  de.addEventListener('click', () => change('/api/deescalate'));
  strip = { box, text, sel, esc, de, msg, tbl, det };
  return strip;
}

function say(text, error) {
  const p = stripParts();
  p.msg.textContent = text;
  p.msg.className = 'daemon-msg' + (error ? ' error' : '');
}

async function change(path, params) {
  const p = stripParts();
  p.esc.disabled = p.de.disabled = true;
  const { status, body } = await post(path, params);
  if (status === 200) {
    say(path === '/api/escalate'
      ? `window open: ${body.granted_s} s granted${body.clamped ? ' (clamped to the budget)' : ''}`
      : 'window closed');
  } else {
    say(`refused (${status}): ${body.error || 'no reason given'}`, true);
  }
  document.body.dataset.escalation = String(status);
  await refreshStatus();
  return { status, body };
}

// An Escalate button beside a view that needs an exact window (exact.js,
// hist.js): the strip's request with the strip's window length; the answer
// is said beside it (and in the strip). Refused without a token or daemon.
export function escalateButton() {
  const wrap = el('span', '', 'escalate-here');
  const b = el('button', 'Escalate');
  b.type = 'button';
  b.className = 'escalate-now';
  const said = el('span', '', 'escalate-said');
  b.addEventListener('click', async () => {
    const { status, body } = await change('/api/escalate', { duration_s: stripParts().sel.value });
    said.textContent = status === 200 ? ` window open: ${body.granted_s} s`
      : ` refused (${status}): ${body.error || 'no reason given'}`;
    said.className = 'escalate-said' + (status === 200 ? '' : ' error');
  });
  wrap.append(b, said);
  return wrap;
}

function metricRows(m) {
  const rows = [];
  for (const [k, v] of Object.entries(m || {})) {
    if (k === 'ok' || rows.length >= MAX_METRICS) continue;
    const tr = el('tr');
    tr.append(el('td', k, 'text'), el('td', typeof v === 'number' ? +v.toFixed(3) : v, 'num'));
    rows.push(tr);
  }
  return rows;
}

// The strip from /api/status; hidden parts where there is no daemon.
export async function refreshStatus() {
  const p = stripParts();
  p.box.classList.remove('hidden');
  let st;
  try {
    st = await getJSON('/api/status');
  } catch (e) {
    lastStatus = null;
    p.box.dataset.daemon = 'absent';
    p.text.textContent = 'No daemon: ' + e.message.replace(/^\/api\/status: (no daemon: )?/, '');
    p.sel.hidden = p.esc.hidden = p.de.hidden = p.det.hidden = true;
    p.tbl.replaceChildren();
    return null;
  }
  lastStatus = st;
  const d = st.daemon || {};
  p.box.dataset.daemon = 'present';
  p.box.dataset.tier = String(d.tier || '');
  const parts = [`Daemon ${d.mode || '?'}`, `tier ${d.tier || '?'}`];
  if (d.exact_source) parts.push(`exact source ${d.exact_source}`);
  if (d.tier === 'escalated') {
    parts.push(`window: ${d.escalation_seconds_remaining} s left (${d.escalation_reason || 'manual'})`);
  }
  parts.push(d.escalation_budget_unlimited ? 'budget unlimited'
    : `budget left ${d.escalation_budget_remaining_s} s`);
  parts.push(`backends ${d.backends}`);
  if (d.sampled_only) parts.push('sampled only: ' + (d.escalation_unavailable || 'no exact tier'));
  p.text.textContent = parts.join(' \u00b7 ');
  p.sel.hidden = p.esc.hidden = p.de.hidden = p.det.hidden = false;
  const can = st.token_configured && !d.sampled_only;
  p.esc.disabled = !can;
  p.esc.title = st.token_configured ? '' : 'Escalation needs a token: start pgwt-server with --token-file';
  p.de.disabled = !can || d.tier !== 'escalated';
  p.tbl.replaceChildren(...metricRows(st.metrics));
  return st;
}

// Escalation windows drawn over the AAS chart, each labelled with its
// reason; an open window ends at the chart's right edge.
export async function drawWindows(chart, params, aas) {
  let res;
  try {
    res = await getJSON('/api/windows', params);
  } catch (e) {
    res = { windows: [] };
  }
  window.pgwtWindows = res.windows;	// read by the browser tests
  const last = aas.buckets.length ? aas.buckets[aas.buckets.length - 1].to_ms : null;
  const first = aas.buckets.length ? aas.buckets[0].from_ms : null;
  // none: no series (drawAAS replaced the chart's option, so none is left)
  if (last === null || !res.windows.length) return;
  const areas = res.windows.map((w) => {
    const a = Math.max(first, Number(BigInt(w.start_ns) / 1000000n));
    const b = w.end_ns === null ? last : Math.min(last, Number(BigInt(w.end_ns) / 1000000n));
    return [{ xAxis: a, name: w.end_ns === null ? w.reason + ' (open)' : w.reason }, { xAxis: b }];
  });
  chart.setOption({
    series: [{
      id: 'pgwt-escalations', name: 'Escalation windows', type: 'line', data: [], symbol: 'none',
      color: '#b04fc4',
      markArea: {
        silent: true,
        itemStyle: { color: 'rgba(176,79,196,0.10)', borderColor: '#b04fc4', borderWidth: 1, borderType: 'dashed' },
        label: { show: true, position: 'insideTopRight', color: '#6d2a7a', fontSize: 11 },
        data: areas,
      },
    }],
  });
}

// Live mode: a tick a second while the page is idle (no refresh running).
// Switching it on keeps the shown range's length; off keeps the last range.
// Without live mode the strip still follows the daemon every 5 s.
export function startLive(refresh, go) {
  const box = $('live');
  let ticks = 0;
  box.checked = !!readState().live;
  box.addEventListener('change', () => {
    const s = readState();
    if (box.checked) go({ ...s, live: String(liveSpanOf(s)), from: undefined, to: undefined });
    else go({ ...s, ...liveRange(s), live: undefined });
  });
  setInterval(() => {
    const live = !!readState().live;
    box.checked = live;
    ticks++;
    if (live || ticks % 5 === 0) refreshStatus();
    if (live && document.body.dataset.ready === 'yes') refresh();
  }, 1000);
}

// The state with live mode's range pinned for one refresh, so the chart
// and every table show the same span.
export function pinLive(s) {
  return s.live ? { ...s, ...liveRange(s) } : s;
}

export function statusNow() {
  return lastStatus;
}
