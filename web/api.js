// api.js: requests to pgwt-server's JSON API (docs/WEB.md), with the token
// from the URL fragment when the server asks for one.
import { readState } from './state.js';

function headers() {
  const t = readState().token;
  return t ? { Authorization: 'Bearer ' + t } : {};
}

export function apiUrl(path, params) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  }
  const q = p.toString();
  return path + (q ? '?' + q : '');
}

// Timestamps and query ids are 64-bit: kept as their decimal text, since a
// JS number would round them.
const EXACT_KEYS = new Set(['from_ns', 'to_ns', 'first_ns', 'last_ns', 'query_id', 'peak_ns', 'since_ns', 'at_ns']);

function revive(key, value, ctx) {
  return EXACT_KEYS.has(key) && typeof value === 'number' && ctx && ctx.source ? ctx.source : value;
}

export async function getJSON(path, params) {
  const r = await fetch(apiUrl(path, params), { headers: headers() });
  let body;
  try {
    body = JSON.parse(await r.text(), revive);
  } catch (e) {
    throw new Error(`${path}: HTTP ${r.status}`);
  }
  if (!r.ok) throw new Error(`${path}: ${body.error || 'HTTP ' + r.status}`);
  return body;
}

// The same view as CSV, saved as a file (a link cannot carry the token).
export async function downloadCsv(params, filename, path = '/api/view') {
  const r = await fetch(apiUrl(path, { ...params, format: 'csv' }), { headers: headers() });
  if (!r.ok) throw new Error(`CSV: HTTP ${r.status}`);
  const blob = await r.blob();
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}
