// vs-duckdb.mjs: the issue's query shapes in DuckDB (2 threads, the schema
// given, so nothing is sniffed), each run RUNS times in one process after a
// warmup; prints the median per shape in seconds. Given PARLAB (a parlab
// binary), each DuckDB run alternates with a whole `parlab query` process on
// the same question (DuckDB, parlab, DuckDB, …), every answer parlab gives is
// checked against DuckDB's (below), and the line adds parlab's median and the
// median of the runs' paired ratios (DuckDB over parlab). Needs
// @duckdb/node-api (npm install @duckdb/node-api in a directory on NODE_PATH,
// or here).
//
// The check: before a question is timed, DuckDB answers it once more, untimed,
// with every value as text (a sum of DECIMAL(18,2) is a DECIMAL(38,2), so
// exact), and every parlab run must give the same count and the same sums,
// minimums and maximums, group for group, with no group more or less. An
// average must be DuckDB's exact sum over its count, rounded half to even at
// parlab's 6 places (in BigInt here, not DuckDB's floating-point avg). The top
// 3 by revenue are checked in order; every group written as CSV, byte for
// byte. A difference stops the script with exit 1.
//
// The last shapes ask about dates (DuckDB reads the M/D/YYYY column with
// strptime, as its dateformat would) and ask Europe and by Country again
// over the same rows written as R's write.csv writes them (every text
// field quoted) and as TSV: one file each, written by DuckDB's COPY into
// a temporary directory before the timing (VARIANTS=0 leaves them out).
//
//   node scripts/vs-duckdb.mjs DATA_DIR [RUNS [PARLAB]]
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cols, csvOf, spec } from './sales-schema.mjs';

const dir = process.argv[2] || 'data/sales-1M';
const runs = Number(process.argv[3] || 5);
const parlab = process.argv[4];
const src = csvOf(dir);
const sums = 'count(*), sum("Total Revenue"), sum("Total Profit")';
// The question whose whole answer is written as CSV: each side writes a
// file, and their rows after the header must be byte for byte the same.
const tmp = mkdtempSync(join(tmpdir(), 'vs-duckdb-'));
const duckCSV = join(tmp, 'duckdb.csv'), parlabCSV = join(tmp, 'parlab.csv');
// Each shape: its name, DuckDB's timed SQL (the count is the first column
// after the keys), the same question as parlab's query flags (as
// scripts/shapes.sh asks it), and how its answer is checked: the filter in
// SQL and parlab's aggregates as [kind, column] ('top' and 'csv' are checked
// from the timed SQL's own rows or file).
const two = [['sum', 'Total Revenue'], ['sum', 'Total Profit']];
const day = (c) => `strptime("${c}", '%m/%d/%Y')`;
const text = Object.entries(cols).filter(([, v]) => v === 'VARCHAR').map(([k]) => `"${k}"`).join(', ');
const variants = process.env.VARIANTS !== '0';
const quoted = join(tmp, 'sales-quoted.csv'), tsv = join(tmp, 'sales.tsv');
const srcOf = (path, delim) => `read_csv('${path}', header=true, delim='${delim}', quote='"', columns={${spec}})`;
const shapes = [
  ['Region=Europe', `SELECT ${sums} FROM ${src} WHERE "Region"='Europe'`, ['--where', 'Region=Europe'],
    { where: `"Region"='Europe'`, aggs: two }],
  ['Country=Chad', `SELECT ${sums} FROM ${src} WHERE "Country"='Chad'`, ['--where', 'Country=Chad'],
    { where: `"Country"='Chad'`, aggs: two }],
  ['Item Type=Cosmetics', `SELECT ${sums} FROM ${src} WHERE "Item Type"='Cosmetics'`, ['--where', 'Item Type=Cosmetics'],
    { where: `"Item Type"='Cosmetics'`, aggs: two }],
  ['Sales Channel=Online', `SELECT ${sums} FROM ${src} WHERE "Sales Channel"='Online'`, ['--where', 'Sales Channel=Online'],
    { where: `"Sales Channel"='Online'`, aggs: two }],
  ['no filter, two sums', `SELECT ${sums} FROM ${src}`, [], { aggs: two }],
  ['no filter, sum Units Sold', `SELECT count(*), sum("Units Sold") FROM ${src}`, ['--sum', 'Units Sold'],
    { aggs: [['sum', 'Units Sold']] }],
  ['by Region, count + 2 sums', `SELECT "Region", ${sums} FROM ${src} GROUP BY 1 ORDER BY 1`, ['--by', 'Region'],
    { by: ['Region'], aggs: two }],
  ['by Country, count + 2 sums', `SELECT "Country", ${sums} FROM ${src} GROUP BY 1 ORDER BY 1`, ['--by', 'Country'],
    { by: ['Country'], aggs: two }],
  ['Region=Europe, Online, Units Sold>5000', `SELECT ${sums} FROM ${src} WHERE "Region"='Europe' AND "Sales Channel"='Online' AND "Units Sold">5000`,
    ['--where', 'Region=Europe', '--where', 'Sales Channel=Online', '--where', 'Units Sold>5000'],
    { where: `"Region"='Europe' AND "Sales Channel"='Online' AND "Units Sold">5000`, aggs: two }],
  ['by Order Date (2,766 keys)', `SELECT "Order Date", ${sums} FROM ${src} GROUP BY 1 ORDER BY 1`, ['--by', 'Order Date'],
    { by: ['Order Date'], aggs: two }],
  ['by Country, Item Type (2,220 keys)', `SELECT "Country", "Item Type", ${sums} FROM ${src} GROUP BY 1, 2 ORDER BY 1, 2`,
    ['--by', 'Country,Item Type'], { by: ['Country', 'Item Type'], aggs: two }],
  ['by Item Type, min/max/avg', `SELECT "Item Type", count(*), min("Units Sold"), max("Unit Price"), avg("Total Profit") FROM ${src} GROUP BY 1 ORDER BY 1`,
    ['--by', 'Item Type', '--min', 'Units Sold', '--max', 'Unit Price', '--avg', 'Total Profit'],
    { by: ['Item Type'], aggs: [['min', 'Units Sold'], ['max', 'Unit Price'], ['avg', 'Total Profit']] }],
  // Millions of groups, the top 3 shown: checked in order, key, count and
  // sum, from the timed SQL's rows.
  ['by Order ID, top 3 by revenue', `SELECT "Order ID", count(*), sum("Total Revenue") FROM ${src} GROUP BY 1 ORDER BY 3 DESC, 1 LIMIT 3`,
    ['--by', 'Order ID', '--sum', 'Total Revenue', '--sort', 'Total Revenue:desc', '--limit', '3'], 'top'],
  // Millions of groups, every one written out as CSV in key order.
  ['by Order ID, every group to CSV', `COPY (SELECT "Order ID", count(*), sum("Total Revenue") FROM ${src} GROUP BY 1 ORDER BY 1) TO '${duckCSV}' (HEADER)`,
    ['--by', 'Order ID', '--sum', 'Total Revenue'], 'csv'],
  // Dates: a range of two filters, and the latest day per region (printed
  // as the file writes it).
  ['Order Date in 2015, two sums', `SELECT ${sums} FROM ${src} WHERE ${day('Order Date')} >= DATE '2015-01-01' AND ${day('Order Date')} < DATE '2016-01-01'`,
    ['--where', 'Order Date>=2015-01-01', '--where', 'Order Date<2016-01-01'],
    { where: `${day('Order Date')} >= DATE '2015-01-01' AND ${day('Order Date')} < DATE '2016-01-01'`, aggs: two }],
  ['max(Order Date) by Region', `SELECT "Region", count(*), max(${day('Order Date')}) FROM ${src} GROUP BY 1 ORDER BY 1`,
    ['--by', 'Region', '--max', 'Order Date'],
    { by: ['Region'], aggs: [['max', 'Order Date', `strftime(max(${day('Order Date')}), '%-m/%-d/%Y')`]] }],
  ...(variants ? [
    ['Region=Europe, quoted (R)', `SELECT ${sums} FROM ${srcOf(quoted, ',')} WHERE "Region"='Europe'`, ['--where', 'Region=Europe'],
      { where: `"Region"='Europe'`, aggs: two }, quoted],
    ['by Country, quoted (R)', `SELECT "Country", ${sums} FROM ${srcOf(quoted, ',')} GROUP BY 1 ORDER BY 1`, ['--by', 'Country'],
      { by: ['Country'], aggs: two }, quoted],
    ['Region=Europe, TSV', `SELECT ${sums} FROM ${srcOf(tsv, '\t')} WHERE "Region"='Europe'`, ['--where', 'Region=Europe'],
      { where: `"Region"='Europe'`, aggs: two }, tsv],
  ] : []),
];
const body = (path) => { const b = readFileSync(path); return b.subarray(b.indexOf(10) + 1); };
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const fail = (msg) => { console.error(msg); process.exit(1); };

// avg: an exact decimal sum (as text) over a count, at 6 places, half to even.
const avg6 = (sum, count) => {
  const neg = sum.startsWith('-');
  const [ip, fp = ''] = (neg ? sum.slice(1) : sum).split('.');
  const num = BigInt(ip + fp) * 10n ** BigInt(6 - fp.length); // scaled by 10^6; DuckDB gives 2 places
  const n = BigInt(count);
  let q = num / n;
  const r2 = 2n * (num % n);
  if (r2 > n || (r2 === n && q % 2n === 1n)) q++;
  const s = q.toString().padStart(7, '0');
  const out = `${s.slice(0, -6)}.${s.slice(-6)}`;
  return neg && q !== 0n ? `-${out}` : out;
};

// expected(check): DuckDB's exact answer, a Map from the group's key (its
// columns joined by NUL; '' with no group-by) to an object with parlab's JSON
// names: count, a sum by its column, the others as min(C), max(C), avg(C).
// Without a group-by only sums are asked (parlab's "sums" object).
async function expected(con, { by = [], where, aggs }) {
  const keys = by.map((c) => `"${c}"::VARCHAR`);
  const vals = aggs.map(([kind, c, expr]) => `${expr || `${kind === 'avg' ? 'sum' : kind}("${c}")`}::VARCHAR`);
  const sql = `SELECT ${[...keys, 'count(*)::VARCHAR', ...vals].join(', ')} FROM ${src}` +
    (where ? ` WHERE ${where}` : '') + (by.length ? ' GROUP BY ALL' : '');
  const want = new Map();
  for (const row of (await con.runAndReadAll(sql)).getRows()) {
    const count = Number(row[by.length]);
    if (count === 0) continue; // no row matched: parlab says matched 0 and no sums
    const o = { count };
    aggs.forEach(([kind, c], i) => {
      const v = row[by.length + 1 + i];
      o[kind === 'sum' ? c : `${kind}(${c})`] = kind === 'avg' ? avg6(v, count) : v;
    });
    want.set(row.slice(0, by.length).join('\0'), o);
  }
  return want;
}

// check compares parlab's JSON answer with the expected map; it names the
// first difference.
function check(name, got, want, { by = [], aggs }) {
  const groups = by.length ? got.groups : (got.matched ? [{ count: got.matched, ...got.sums }] : []);
  if (groups.length !== want.size) fail(`${name}: parlab gave ${groups.length} groups, DuckDB ${want.size}`);
  let matched = 0;
  for (const g of groups) {
    const key = by.map((c) => g[c]).join('\0');
    const w = want.get(key);
    if (!w) fail(`${name}: parlab's group ${JSON.stringify(key)} is not DuckDB's`);
    matched += g.count;
    for (const [f, v] of Object.entries(w)) {
      if (g[f] !== v) fail(`${name}, group ${JSON.stringify(key)}: ${f} is ${g[f]} in parlab, ${v} in DuckDB`);
    }
    if (Object.keys(g).length !== by.length + 1 + aggs.length) fail(`${name}: parlab's group ${JSON.stringify(g)} has other fields`);
  }
  if (got.matched !== matched) fail(`${name}: parlab matched ${got.matched}, its groups count ${matched}`);
}

// The page cache warmed through parlab's mappings, in 2 MiB folios (a set
// read in by cat, or by DuckDB, sits in small ones, and every parlab scan of
// it is slower: docs/pagecache.md), and its state printed before and after.
const cache = (...flags) => parlab && process.stdout.write(execFileSync(parlab, ['cache', ...flags, dir], { encoding: 'utf8' }));
cache('--warm');
const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await db.connect();
if (variants) { // the same rows, as R's write.csv and as TSV write them
  await con.run(`COPY (SELECT * FROM ${src}) TO '${quoted}' (HEADER, FORCE_QUOTE (${text}))`);
  await con.run(`COPY (SELECT * FROM ${src}) TO '${tsv}' (HEADER, DELIMITER '\t')`);
  if (parlab) execFileSync(parlab, ['cache', '--warm', quoted, tsv]);
}
console.log(`${'shape'.padEnd(40)} ${'DuckDB median s'.padStart(16)}` +
  (parlab ? ` ${'parlab median s'.padStart(16)} ${'DuckDB/parlab'.padStart(14)} ${'paired'.padStart(8)}` : ''));
for (const [name, sql, args, how, path = dir] of shapes) {
  const want = parlab && typeof how === 'object' ? await expected(con, how) : null;
  const t = [], p = [];
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    const r = await con.runAndReadAll(sql);
    const rows = r.getRows();
    if (i > 0) t.push((performance.now() - t0) / 1e3);
    if (!parlab) continue;
    if (how === 'csv') {
      const fd = openSync(parlabCSV, 'w');
      const p0 = performance.now();
      execFileSync(parlab, ['query', '--csv', ...args, path], { stdio: ['ignore', fd, 'inherit'] });
      if (i > 0) p.push((performance.now() - p0) / 1e3);
      closeSync(fd);
      if (!body(parlabCSV).equals(body(duckCSV))) fail(`${name}: parlab's rows (${parlabCSV}) differ from DuckDB's (${duckCSV})`);
      continue;
    }
    const p0 = performance.now();
    const out = execFileSync(parlab, ['query', '--json', ...args, path], { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (i > 0) p.push((performance.now() - p0) / 1e3);
    const got = JSON.parse(out);
    if (how === 'top') {
      const same = got.groups.length === rows.length && rows.every((r, k) => String(r[0]) === got.groups[k][args[1]] &&
        Number(r[1]) === got.groups[k].count && r[2].toString() === got.groups[k]['Total Revenue']);
      if (!same) fail(`${name}: parlab's groups ${JSON.stringify(got.groups)}, DuckDB's ${rows.map((r) => `${r[0]}:${r[1]}:${r[2]}`)}`);
    } else {
      check(name, got, want, how);
    }
  }
  let line = `${name.padEnd(40)} ${median(t).toFixed(4).padStart(16)}`;
  if (parlab) {
    const paired = median(t.map((x, i) => x / p[i]));
    line += ` ${median(p).toFixed(4).padStart(16)} ${(median(t) / median(p)).toFixed(1).padStart(13)}x ${paired.toFixed(1).padStart(7)}x`;
  }
  console.log(line);
}
cache();
rmSync(tmp, { recursive: true, force: true });
