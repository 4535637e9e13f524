// state.js: the page's whole state lives in the URL fragment, so a URL
// reopens the same view (and the fragment never reaches the server's logs).
// Keys: from, to (ns since the epoch, decimal strings), class, event, pid,
// query (the drill path), sort (table.column.dir, comma separated), token,
// a_from, a_to (a period to compare the shown range with), live (live mode's
// span in seconds: the range then ends at the present, daemon.js).
const KEYS = ['from', 'to', 'class', 'event', 'pid', 'query', 'sort', 'token', 'a_from', 'a_to', 'live'];

export function readState() {
  const p = new URLSearchParams(location.hash.slice(1));
  const s = {};
  for (const k of KEYS) {
    const v = p.get(k);
    if (v !== null && v !== '') s[k] = v;
  }
  return s;
}

export function writeState(s, push) {
  const p = new URLSearchParams();
  for (const k of KEYS) {
    if (s[k] !== undefined && s[k] !== null && s[k] !== '') p.set(k, String(s[k]));
  }
  const h = '#' + p.toString();
  if (push) history.pushState(null, '', h);
  else history.replaceState(null, '', h);
}

// sort: "events.total_ns.desc,sessions.pid.asc" <-> {events: {key, dir}}
export function sortsOf(s) {
  const out = {};
  for (const part of (s.sort || '').split(',')) {
    const [t, key, dir] = part.split('.');
    if (t && key && (dir === 'asc' || dir === 'desc')) out[t] = { key, dir };
  }
  return out;
}

export function withSort(s, table, key, dir) {
  const all = sortsOf(s);
  all[table] = { key, dir };
  const sort = Object.entries(all).map(([t, v]) => `${t}.${v.key}.${v.dir}`).join(',');
  return { ...s, sort };
}

// ns (decimal string) <-> ms (number) for the chart; exact to the ms.
export function nsToMs(ns) {
  return Number(BigInt(ns) / 1000000n);
}

export function msToNs(ms) {
  return (BigInt(Math.floor(ms)) * 1000000n).toString();
}
