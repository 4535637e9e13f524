// chart.js: the AAS chart (ECharts, stacked by wait class). A drag across
// it (a horizontal brush) reports the chosen span; buckets with exact data
// are shaded (green: exact only, blue: exact and sampled), sampled-only
// buckets are not.
/* global echarts */

const CLASS_COLORS = {
  'CPU*': '#3aa655', LWLock: '#c0392b', Lock: '#e67e22', BufferPin: '#8e44ad', Activity: '#95a5a6',
  Client: '#7f8c8d', Extension: '#16a085', IPC: '#d35400', Timeout: '#bdc3c7', IO: '#2e6fd8',
  InjectionPoint: '#34495e',
};

function shading(buckets) {
  const areas = [];
  let run = null;
  for (const b of buckets) {
    const fid = b.fidelity === 'exact' || b.fidelity === 'mixed' ? b.fidelity : null;
    if (run && run.fid === fid) {
      run.to = b.to_ms;
      continue;
    }
    if (run && run.fid) areas.push(run);
    run = { fid, from: b.from_ms, to: b.to_ms };
  }
  if (run && run.fid) areas.push(run);
  return areas.map((a) => [
    { xAxis: a.from, itemStyle: { color: a.fid === 'exact' ? 'rgba(58,166,85,0.12)' : 'rgba(46,111,216,0.08)' } },
    { xAxis: a.to },
  ]);
}

// ECharts is a deferred script that runs after the page's module, so the
// first view's requests go out while it is parsed: resolves once it ran
// (or the document finished parsing without it: drawing then fails as
// it would have).
let parsed = false;
document.addEventListener('DOMContentLoaded', () => { parsed = true; }, { once: true });
export function echartsReady() {
  if (window.echarts || parsed) return Promise.resolve();
  return new Promise((resolve) => document.addEventListener('DOMContentLoaded', () => resolve(), { once: true }));
}

// data: /api/aas with each bucket's from_ms/to_ms added.
export function drawAAS(el, data, onZoom) {
  let chart = echarts.getInstanceByDom(el);
  if (!chart) {
    chart = echarts.init(el, null, { renderer: 'canvas' });
    chart.on('brushEnd', (p) => {
      const r = p.areas && p.areas[0] && p.areas[0].coordRange;
      chart.dispatchAction({ type: 'brush', areas: [] });
      if (r && r[1] > r[0]) chart.pgwtOnZoom(r[0], r[1]);
    });
    window.addEventListener('resize', () => chart.resize());
  }
  chart.pgwtOnZoom = onZoom;
  const series = data.classes.map((c, i) => ({
    name: c,
    type: 'line',
    stack: 'aas',
    step: 'start',
    symbol: 'none',
    areaStyle: {},
    lineStyle: { width: 0.5 },
    color: CLASS_COLORS[c] || undefined,
    data: data.buckets.map((b) => [b.from_ms, b.aas[i]]),
    markArea: i === 0 ? { silent: true, data: shading(data.buckets) } : undefined,
  }));
  chart.setOption({
    animation: false,
    legend: { top: 0 },
    grid: { left: 50, right: 20, top: 30, bottom: 30 },
    tooltip: { trigger: 'axis', renderMode: 'richText' },
    toolbox: { show: false },
    brush: { xAxisIndex: 0, brushType: 'lineX', brushMode: 'single', throttleType: 'debounce' },
    xAxis: { type: 'time', min: data.buckets.length ? data.buckets[0].from_ms : null,
      max: data.buckets.length ? data.buckets[data.buckets.length - 1].to_ms : null },
    yAxis: { type: 'value', name: 'AAS' },
    series,
  }, { notMerge: true });
  chart.dispatchAction({ type: 'takeGlobalCursor', key: 'brush',
    brushOption: { brushType: 'lineX', brushMode: 'single' } });
  return chart;
}
