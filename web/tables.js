// tables.js: sortable tables with percentage bars. Every value from the
// trace (query texts above all) goes in through textContent: data is
// never markup.

export function fmtSeconds(ns) {
  return ns === null || ns === undefined ? '' : (ns / 1e9).toFixed(3);
}

export function fmtMs(ns) {
  return ns === null || ns === undefined ? '' : (ns / 1e6).toFixed(3);
}

function cell(tr, text, cls) {
  const td = document.createElement('td');
  if (cls) td.className = cls;
  td.textContent = text;
  tr.appendChild(td);
  return td;
}

function barCell(tr, pct) {
  const td = document.createElement('td');
  td.className = 'bar num';
  if (pct !== null && pct !== undefined) {
    const fill = document.createElement('span');
    fill.className = 'fill';
    fill.style.width = Math.max(0, Math.min(100, pct)).toFixed(1) + '%';
    const val = document.createElement('span');
    val.className = 'val';
    val.textContent = pct.toFixed(1) + '%';
    td.append(fill, val);
  }
  tr.appendChild(td);
}

// A time in seconds with a bar of its share of the column's largest value:
// the bar is a picture of the figure beside it, not a figure of its own.
function scaledCell(tr, ns, max) {
  const td = document.createElement('td');
  td.className = 'bar num';
  if (ns !== null && ns !== undefined) {
    const fill = document.createElement('span');
    fill.className = 'fill';
    fill.style.width = (max > 0 ? Math.max(0, Math.min(100, (100 * ns) / max)) : 0).toFixed(1) + '%';
    const val = document.createElement('span');
    val.className = 'val';
    val.textContent = fmtSeconds(ns);
    td.append(fill, val);
  }
  tr.appendChild(td);
}

// A percentile (key p50, p95, p99) in ms, the log2 bucket that holds the
// true value as its tooltip; blank where the row has no histogram
// (sampled-only rows: samples have no durations).
function pctlCell(tr, row, key) {
  const v = row[key + '_ns'];
  const known = v !== null && v !== undefined;
  const td = cell(tr, known ? fmtMs(v) : '', 'num pctl');
  if (known) {
    td.title = `${key} within [${fmtMs(row[key + '_lo_ns'])}, ${fmtMs(row[key + '_hi_ns'])}) ms:`
      + ' bucketed, the log2 bucket of the true value';
  }
}

function compare(a, b) {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}

// cols: [{key, label, kind: 'text'|'num'|'s'|'sbar'|'ms'|'pct'|'fid'|'pctl', title}]
// opts: {sort: {key, dir}, onSort(key, dir), onRow(row), selected(row)}
export function renderTable(table, cols, rows, opts) {
  table.replaceChildren();
  const thead = document.createElement('thead');
  const hr = document.createElement('tr');
  const sort = opts.sort;
  for (const c of cols) {
    const th = document.createElement('th');
    th.textContent = c.label;
    if (c.title) th.title = c.title;
    th.dataset.key = c.key;
    if (sort && sort.key === c.key) th.className = 'sorted-' + sort.dir;
    th.addEventListener('click', () => {
      const dir = sort && sort.key === c.key && sort.dir === 'desc' ? 'asc' : 'desc';
      opts.onSort(c.key, dir);
    });
    hr.appendChild(th);
  }
  thead.appendChild(hr);
  const body = document.createElement('tbody');
  const sorted = rows.slice();
  if (sort && cols.some((c) => c.key === sort.key)) {
    sorted.sort((a, b) => {
      const r = compare(a[sort.key], b[sort.key]);
      return sort.dir === 'desc' ? -r : r;
    });
  }
  const maxOf = {};
  for (const c of cols) {
    if (c.kind === 'sbar') maxOf[c.key] = Math.max(0, ...rows.map((r) => Number(r[c.key]) || 0));
  }
  for (const row of sorted) {
    const tr = document.createElement('tr');
    if (opts.onRow) {
      tr.className = 'drill';
      tr.addEventListener('click', () => opts.onRow(row));
    }
    if (opts.selected && opts.selected(row)) tr.classList.add('selected');
    for (const c of cols) {
      const v = row[c.key];
      if (c.kind === 'pct') barCell(tr, v);
      else if (c.kind === 's') cell(tr, fmtSeconds(v), 'num');
      else if (c.kind === 'sbar') scaledCell(tr, v, maxOf[c.key]);
      else if (c.kind === 'ms') cell(tr, fmtMs(v), 'num');
      else if (c.kind === 'pctl') pctlCell(tr, row, c.key.replace(/_ns$/, ''));
      else if (c.kind === 'num') cell(tr, v === null || v === undefined ? '' : String(v), 'num');
      else if (c.kind === 'fid') cell(tr, v || '', 'fid-' + (v || 'none'));
      else cell(tr, v === null || v === undefined ? '' : String(v), 'text');
    }
    body.appendChild(tr);
  }
  table.append(thead, body);
  table.dataset.rows = String(sorted.length);
}
