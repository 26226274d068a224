// The console: signs in with an API key and draws the market from the public endpoints and push
// streams only. No framework and no build step; charts are plain SVG.

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';
const TAPE_MAX = 300;
const REFRESH_MS = 4000;
const FLUSH_MS = 200;
const SEEN_MAX = 10_000;

let key = sessionStorage.getItem('mdq-key') || '';
let stream = null;
let tapeFlush = null;
let lastSession = null;
const seen = new Set();

// --- API -----------------------------------------------------------------------------------------

async function post(path, body) {
  const res = await fetch(`/v1${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(json.detail || `${res.status}`);
  return json;
}

/**
 * Follows a push stream with fetch (EventSource cannot send the key): parses the event-stream
 * text and reconnects with Last-Event-ID when the connection ends, so no row is missed or repeated.
 */
function follow(path, body, onRow, onStatus) {
  const ctl = new AbortController();
  let lastId = null;
  const run = async () => {
    while (!ctl.signal.aborted) {
      try {
        const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' };
        if (lastId) headers['Last-Event-ID'] = lastId;
        const res = await fetch(`/v1/stream${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal: ctl.signal });
        if (!res.ok) {
          const problem = await res.json().catch(() => ({}));
          onStatus(`stream refused: ${problem.detail || res.status}`);
          await sleep(5000);
          continue;
        }
        onStatus('live');
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          // One pass over what arrived, one slice at the end: a busy stream delivers many events
          // per read, and slicing the buffer per event would be quadratic.
          let at = 0;
          let cut;
          while ((cut = buf.indexOf('\n\n', at)) >= 0) {
            const ev = parseEvent(buf.slice(at, cut));
            at = cut + 2;
            if (ev.id !== null) lastId = ev.id;
            if (ev.event === 'row') onRow(JSON.parse(ev.data));
            else if (ev.event === 'end') onStatus(`stream ended: ${JSON.parse(ev.data).reason}; resuming`);
          }
          buf = buf.slice(at);
        }
      } catch (err) {
        if (ctl.signal.aborted) return;
        onStatus(`reconnecting (${err.message})`);
      }
      await sleep(1000);
    }
  };
  run();
  return { close: () => ctl.abort() };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One event-stream block's fields (event, data, id). */
function parseEvent(block) {
  const ev = { event: 'message', data: '', id: null };
  for (const line of block.split('\n')) {
    const at = line.indexOf(':');
    if (at <= 0) continue;
    const field = line.slice(0, at);
    const val = line.slice(at + 1).replace(/^ /, '');
    if (field === 'event') ev.event = val;
    else if (field === 'data') ev.data += val;
    else if (field === 'id') ev.id = val;
  }
  return ev;
}

// --- filters -------------------------------------------------------------------------------------

function settings() {
  const tickers = $('tickers')
    .value.split(/[\s,]+/)
    .map((t) => t.trim().toUpperCase())
    .filter(Boolean);
  const tape = $('tape').value;
  const min = Number($('minValue').value);
  const filter = {};
  if (tickers.length) filter.tickers = tickers;
  if (min > 0) filter[tape.includes('equity') ? 'notionalValueRange' : 'premiumRange'] = { min };
  const chartTicker = ($('chartTicker').value.trim() || tickers[0] || 'AAPL').toUpperCase();
  return { tape, filter, chartTicker };
}

// --- tape ----------------------------------------------------------------------------------------

const COLUMNS = {
  options: [
    ['time', (r) => time(r.tradeTime)],
    ['contract', (r) => `${r.ticker} ${r.expirationDate} ${r.strikePrice} ${r.contractType === 'CALL' ? 'C' : 'P'}`],
    ['side', (r) => r.tradeSideCode],
    ['size', (r) => r.size],
    ['price', (r) => r.optionPrice?.toFixed(2)],
    ['premium', (r) => money(r.premium)],
    ['type', (r) => r.tradeConsolidationType || r.tradeType || ''],
  ],
  equities: [
    ['time', (r) => time(r.tradeTime)],
    ['ticker', (r) => r.ticker],
    ['venue', (r) => (r.printType === 'DARK_POOL' ? 'dark' : 'lit')],
    ['side', (r) => r.tradeSide],
    ['size', (r) => r.size],
    ['price', (r) => r.price],
    ['notional', (r) => money(r.notionalValue)],
  ],
};

// Formatters made once: toLocale*String builds a new one per call, too slow for a busy tape.
const TIME = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour12: false, hour: '2-digit', minute: '2-digit', second: '2-digit' });
const DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' });

function time(ms) {
  return TIME.format(ms);
}

function money(v) {
  const a = Math.abs(v);
  const s = a >= 1e9 ? `${(a / 1e9).toFixed(2)}B` : a >= 1e6 ? `${(a / 1e6).toFixed(2)}M` : a >= 1e3 ? `${(a / 1e3).toFixed(1)}K` : a.toFixed(0);
  return `${v < 0 ? '-' : ''}$${s}`;
}

function startTape() {
  stream?.close();
  clearTimeout(tapeFlush);
  tapeFlush = null;
  seen.clear();
  const { tape, filter } = settings();
  const cols = tape.includes('equity') ? COLUMNS.equities : COLUMNS.options;
  $('tapeTable').tHead.innerHTML = `<tr>${cols.map(([h]) => `<th>${h}</th>`).join('')}</tr>`;
  const body = $('tapeTable').tBodies[0];
  body.innerHTML = '';
  let count = 0;
  let pending = [];
  const row = (r, fresh) => {
    const tr = document.createElement('tr');
    if (fresh) tr.className = 'fresh';
    for (const [, f] of cols) {
      const td = document.createElement('td');
      td.textContent = String(f(r) ?? '');
      tr.appendChild(td);
    }
    const side = r.tradeSideCode || r.tradeSide || '';
    if (/^(A|AA|ASK|ABOVE_ASK)$/.test(side)) tr.classList.add('up');
    if (/^(B|BB|BID|BELOW_BID)$/.test(side)) tr.classList.add('down');
    return tr;
  };
  // Rows are drawn in batches, at most every FLUSH_MS and only the newest TAPE_MAX of them, so a
  // busy unfiltered tape costs the page a few redraws a second, not one per row.
  const flush = () => {
    tapeFlush = null;
    const fragment = document.createDocumentFragment();
    for (const [r, fresh] of pending.slice(-TAPE_MAX).reverse()) fragment.appendChild(row(r, fresh));
    pending = [];
    body.insertBefore(fragment, body.firstChild);
    while (body.rows.length > TAPE_MAX) body.deleteRow(body.rows.length - 1);
    body.dataset.rows = String(count);
    $('tapeCount').textContent = `${count} rows`;
  };
  const add = (r, fresh) => {
    const id = r.id ?? r.rowKey;
    if (seen.has(id)) return;
    seen.add(id);
    // The page and the stream can overlap only near the start: recent ids are enough to dedupe.
    if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value);
    count++;
    pending.push([r, fresh]);
    if (r.tradeTime) lastSession = DAY.format(r.tradeTime);
    tapeFlush ??= setTimeout(flush, FLUSH_MS);
  };
  // The newest page first, then the stream from the feed's end.
  post(tape, { size: 50, filter })
    .then((page) => page.data.reverse().forEach((r) => add(r, false)))
    .catch((err) => setStatus(err.message));
  stream = follow(tape, { filter }, (r) => add(r, true), setStatus);
}

function setStatus(s) {
  $('status').textContent = s;
}

// --- charts --------------------------------------------------------------------------------------

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  parent?.appendChild(e);
  return e;
}

function clear(svg, points, note) {
  svg.replaceChildren();
  svg.dataset.points = String(points);
  if (!points) el('text', { x: 20, y: 30, class: 'empty' }, svg).textContent = note || 'no data yet';
}

function scale(d0, d1, r0, r1) {
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

function lineChart(svg, series, fmtY) {
  const pts = series.flatMap((s) => s.points);
  clear(svg, pts.length);
  if (!pts.length) return;
  const [W, H, L, B] = [480, 220, 52, 20];
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]).concat(0);
  const x = scale(Math.min(...xs), Math.max(...xs), L, W - 8);
  const y = scale(Math.min(...ys), Math.max(...ys), H - B, 8);
  el('line', { x1: L, x2: W - 8, y1: y(0), y2: y(0), stroke: '#2a3441' }, svg);
  for (const v of [Math.min(...ys), Math.max(...ys)]) el('text', { x: 2, y: y(v) + 3 }, svg).textContent = fmtY(v);
  el('text', { x: L, y: H - 4 }, svg).textContent = time(Math.min(...xs));
  el('text', { x: W - 60, y: H - 4 }, svg).textContent = time(Math.max(...xs));
  series.forEach((s, i) => {
    if (!s.points.length) return;
    el(
      'polyline',
      { points: s.points.map(([a, b]) => `${x(a).toFixed(1)},${y(b).toFixed(1)}`).join(' '), fill: 'none', stroke: s.color, 'stroke-width': 2 },
      svg,
    );
    el('text', { x: L + 8 + i * 70, y: 14, fill: s.color, style: `fill:${s.color}` }, svg).textContent = s.name;
  });
}

function barChart(svg, bars, fmt) {
  clear(svg, bars.length);
  if (!bars.length) return;
  const [W, H, L, B] = [480, 220, 52, 20];
  const vals = bars.flatMap((b) => [b.up, b.down]).concat(0);
  const y = scale(Math.min(...vals), Math.max(...vals), H - B, 8);
  const w = (W - L - 8) / bars.length;
  el('line', { x1: L, x2: W - 8, y1: y(0), y2: y(0), stroke: '#2a3441' }, svg);
  for (const v of [Math.min(...vals), Math.max(...vals)]) el('text', { x: 2, y: y(v) + 3 }, svg).textContent = fmt(v);
  bars.forEach((b, i) => {
    const x0 = L + i * w;
    if (b.up) el('rect', { x: x0, width: Math.max(1, w - 1), y: y(Math.max(0, b.up)), height: Math.abs(y(b.up) - y(0)), fill: '#2ebd85' }, svg);
    if (b.down) el('rect', { x: x0, width: Math.max(1, w - 1), y: y(Math.max(0, b.down)), height: Math.abs(y(b.down) - y(0)), fill: '#f0616d' }, svg);
    if (i % Math.ceil(bars.length / 8) === 0) el('text', { x: x0, y: H - 4 }, svg).textContent = b.label;
  });
}

function hbarChart(svg, bars, marker) {
  clear(svg, bars.length);
  if (!bars.length) return;
  const [W, H, L] = [480, 220, 60];
  const max = Math.max(...bars.map((b) => b.value));
  const h = (H - 8) / bars.length;
  bars.forEach((b, i) => {
    const yy = 4 + i * h;
    el('rect', { x: L, y: yy, height: Math.max(1, h - 1), width: ((W - L - 8) * b.value) / max, fill: b.label === marker ? '#4c9ffe' : '#7b61ff' }, svg);
    if (bars.length <= 24 || i % Math.ceil(bars.length / 20) === 0) el('text', { x: 2, y: yy + h / 2 + 3 }, svg).textContent = b.label;
  });
}

/** Squarified treemap (Bruls et al.) of items {label, size, change} in the rectangle. */
function treemap(svg, items) {
  clear(svg, items.length);
  if (!items.length) return;
  const total = items.reduce((a, b) => a + b.size, 0);
  const sorted = [...items].sort((a, b) => b.size - a.size);
  let rect = { x: 0, y: 0, w: 980, h: 300 };
  const area = (s) => (s / total) * 980 * 300;
  const worst = (row, side) => {
    const sum = row.reduce((a, r) => a + area(r.size), 0);
    return Math.max(...row.map((r) => Math.max((side * side * area(r.size)) / (sum * sum), (sum * sum) / (side * side * area(r.size)))));
  };
  const place = (row) => {
    const sum = row.reduce((a, r) => a + area(r.size), 0);
    const horizontal = rect.w >= rect.h;
    const thick = sum / (horizontal ? rect.h : rect.w);
    let off = 0;
    for (const r of row) {
      const len = area(r.size) / thick;
      const box = horizontal ? { x: rect.x, y: rect.y + off, w: thick, h: len } : { x: rect.x + off, y: rect.y, w: len, h: thick };
      off += len;
      const c = Math.max(-1, Math.min(1, r.change / 3));
      const fill =
        c >= 0
          ? `rgb(${Math.round(40 - 20 * c)},${Math.round(60 + 120 * c)},${Math.round(70 + 40 * c)})`
          : `rgb(${Math.round(60 - 150 * c)},${Math.round(50 + 20 * c)},${Math.round(60 + 20 * c)})`;
      el('rect', { x: box.x, y: box.y, width: Math.max(0, box.w - 1), height: Math.max(0, box.h - 1), fill }, svg);
      if (box.w > 36 && box.h > 22) {
        el('text', { x: box.x + 4, y: box.y + 13, style: 'fill:#fff;font-size:11px' }, svg).textContent = r.label;
        el('text', { x: box.x + 4, y: box.y + 25, style: 'fill:#ddd' }, svg).textContent = `${r.change >= 0 ? '+' : ''}${r.change.toFixed(2)}%`;
      }
    }
    rect = horizontal ? { x: rect.x + thick, y: rect.y, w: rect.w - thick, h: rect.h } : { x: rect.x, y: rect.y + thick, w: rect.w, h: rect.h - thick };
  };
  let row = [];
  for (const item of sorted) {
    const side = Math.min(rect.w, rect.h);
    if (!row.length || worst([...row, item], side) <= worst(row, side)) row.push(item);
    else {
      place(row);
      row = [item];
    }
  }
  if (row.length) place(row);
}

let refreshing = false;

/** Redraws every chart; a refresh still waiting for answers makes the next tick skip, not pile up. */
async function refreshCharts() {
  if (refreshing) return;
  refreshing = true;
  try {
    await drawCharts();
  } finally {
    refreshing = false;
  }
}

async function drawCharts() {
  const { chartTicker } = settings();
  const filter = { tickers: [chartTicker] };
  const jobs = [
    post('/options/tool/net-flow', { dataMode: 'NET_PREMIUM', aggregationPeriod: '5m', filter }).then((r) => {
      const rows = Object.entries(r.data).map(([t, v]) => [Number(t), v]);
      lineChart(
        $('netFlow'),
        [
          { name: 'calls', color: '#2ebd85', points: rows.map(([t, v]) => [t, v.callSum / 100]) },
          { name: 'puts', color: '#f0616d', points: rows.map(([t, v]) => [t, v.putSum / 100]) },
        ],
        money,
      );
    }),
    post('/options/tool/net-drift', { aggregationPeriod: '5m', filter }).then((r) => {
      let call = 0;
      let put = 0;
      const pts = Object.entries(r.data).map(([t, v]) => [Number(t), (call += v.netCallPremium), (put += v.netPutPremium)]);
      lineChart(
        $('netDrift'),
        [
          { name: 'calls', color: '#2ebd85', points: pts.map((p) => [p[0], p[1]]) },
          { name: 'puts', color: '#f0616d', points: pts.map((p) => [p[0], p[2]]) },
        ],
        money,
      );
    }),
    post('/options/tool/exposure-by-strike', { filter: { ticker: chartTicker }, greekMode: 'GAMMA', representationMode: 'PER_ONE_PERCENT_MOVE' }).then((r) => {
      const byStrike = new Map();
      for (const strikes of Object.values(r.data[chartTicker]?.exposureMap ?? {}))
        for (const [k, v] of Object.entries(strikes)) {
          const b = byStrike.get(k) ?? { label: k, up: 0, down: 0 };
          b.up += v.callExposure ?? 0;
          b.down += v.putExposure ?? 0;
          byStrike.set(k, b);
        }
      barChart(
        $('gamma'),
        [...byStrike.values()].sort((a, b) => Number(a.label) - Number(b.label)),
        money,
      );
    }),
    post('/equities/tool/market-map', {}).then((r) => {
      treemap(
        $('marketMap'),
        Object.entries(r.data).map(([t, v]) => ({ label: t, size: v.size, change: (v.currentValue / v.previousValue - 1) * 100 })),
      );
    }),
  ];
  const end = lastSession ?? DAY.format(Date.now());
  const start = new Date(Date.parse(end) - 30 * 86400000).toISOString().slice(0, 10);
  jobs.push(
    post('/equities/tool/dark-pool-levels', { filter: { ticker: chartTicker }, sessionDateRange: { startDate: start, endDate: end } }).then((r) => {
      const levels = Object.entries(r.data).map(([p, v]) => ({ label: p, value: v.notionalValue }));
      const top = levels.sort((a, b) => b.value - a.value).slice(0, 24);
      top.sort((a, b) => Number(b.label) - Number(a.label));
      hbarChart($('darkPool'), top, null);
    }),
  );
  const results = await Promise.allSettled(jobs);
  const ids = ['netFlow', 'netDrift', 'gamma', 'marketMap', 'darkPool'];
  results.forEach((r, i) => {
    if (r.status === 'rejected') clear($(ids[i]), 0, r.reason.message);
  });
}

// --- start ---------------------------------------------------------------------------------------

let chartTimer = null;

async function signIn(k) {
  key = k;
  try {
    await post('/news/tool/news-articles', { size: 1 });
  } catch (err) {
    $('who').textContent = `key refused: ${err.message}`;
    return;
  }
  sessionStorage.setItem('mdq-key', key);
  $('who').textContent = 'signed in';
  $('app').hidden = false;
  startTape();
  refreshCharts();
  clearInterval(chartTimer);
  chartTimer = setInterval(refreshCharts, REFRESH_MS);
}

$('signin').addEventListener('submit', (e) => {
  e.preventDefault();
  signIn($('key').value.trim());
});
$('filters').addEventListener('submit', (e) => {
  e.preventDefault();
  startTape();
  refreshCharts();
});
if (key) signIn(key);
