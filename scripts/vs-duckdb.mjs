// vs-duckdb.mjs: the issue's query shapes in DuckDB (2 threads, the schema
// given, so nothing is sniffed), each run RUNS times in one process after a
// warmup; prints the median per shape in seconds. Given PARLAB (a parlab
// binary), each DuckDB run alternates with a whole `parlab query` process on
// the same question (DuckDB, parlab, DuckDB, …), parlab's count of matching
// rows and of groups is checked against DuckDB's (for the last question,
// every group written as CSV, the two files' rows byte for byte), and the
// line adds
// parlab's median and the median of the runs' paired ratios (DuckDB over
// parlab). Needs @duckdb/node-api (npm install @duckdb/node-api in a
// directory on NODE_PATH, or here).
//
//   node scripts/vs-duckdb.mjs DATA_DIR [RUNS [PARLAB]]
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = process.argv[2] || 'data/sales-1M';
const runs = Number(process.argv[3] || 5);
const parlab = process.argv[4];
const cols = {
  'Region': 'VARCHAR', 'Country': 'VARCHAR', 'Item Type': 'VARCHAR', 'Sales Channel': 'VARCHAR',
  'Order Priority': 'VARCHAR', 'Order Date': 'VARCHAR', 'Order ID': 'BIGINT', 'Ship Date': 'VARCHAR',
  'Units Sold': 'BIGINT', 'Unit Price': 'DECIMAL(18,2)', 'Unit Cost': 'DECIMAL(18,2)',
  'Total Revenue': 'DECIMAL(18,2)', 'Total Cost': 'DECIMAL(18,2)', 'Total Profit': 'DECIMAL(18,2)',
};
const spec = Object.entries(cols).map(([k, v]) => `'${k}': '${v}'`).join(', ');
const src = `read_csv('${dir}/*.csv', header=true, columns={${spec}})`;
const sums = 'count(*), sum("Total Revenue"), sum("Total Profit")';
// The question whose whole answer is written as CSV: each side writes a
// file, and their rows after the header must be byte for byte the same.
const tmp = mkdtempSync(join(tmpdir(), 'vs-duckdb-'));
const duckCSV = join(tmp, 'duckdb.csv'), parlabCSV = join(tmp, 'parlab.csv');
// Each shape: its name, DuckDB's SQL (the count is the first column after
// the keys), and the same question as parlab's query flags (as
// scripts/shapes.sh asks it).
const shapes = [
  ['Region=Europe', `SELECT ${sums} FROM ${src} WHERE "Region"='Europe'`, ['--where', 'Region=Europe']],
  ['Country=Chad', `SELECT ${sums} FROM ${src} WHERE "Country"='Chad'`, ['--where', 'Country=Chad']],
  ['Item Type=Cosmetics', `SELECT ${sums} FROM ${src} WHERE "Item Type"='Cosmetics'`, ['--where', 'Item Type=Cosmetics']],
  ['Sales Channel=Online', `SELECT ${sums} FROM ${src} WHERE "Sales Channel"='Online'`, ['--where', 'Sales Channel=Online']],
  ['no filter, two sums', `SELECT ${sums} FROM ${src}`, []],
  ['no filter, sum Units Sold', `SELECT count(*), sum("Units Sold") FROM ${src}`, ['--sum', 'Units Sold']],
  ['by Region, count + 2 sums', `SELECT "Region", ${sums} FROM ${src} GROUP BY 1 ORDER BY 1`, ['--by', 'Region']],
  ['by Country, count + 2 sums', `SELECT "Country", ${sums} FROM ${src} GROUP BY 1 ORDER BY 1`, ['--by', 'Country']],
  ['Region=Europe, Online, Units Sold>5000', `SELECT ${sums} FROM ${src} WHERE "Region"='Europe' AND "Sales Channel"='Online' AND "Units Sold">5000`,
    ['--where', 'Region=Europe', '--where', 'Sales Channel=Online', '--where', 'Units Sold>5000']],
  ['by Order Date (2,766 keys)', `SELECT "Order Date", ${sums} FROM ${src} GROUP BY 1 ORDER BY 1`, ['--by', 'Order Date']],
  ['by Country, Item Type (2,220 keys)', `SELECT "Country", "Item Type", ${sums} FROM ${src} GROUP BY 1, 2 ORDER BY 1, 2`,
    ['--by', 'Country,Item Type']],
  ['by Item Type, min/max/avg', `SELECT "Item Type", count(*), min("Units Sold"), max("Unit Price"), avg("Total Profit") FROM ${src} GROUP BY 1 ORDER BY 1`,
    ['--by', 'Item Type', '--min', 'Units Sold', '--max', 'Unit Price', '--avg', 'Total Profit']],
  // Millions of groups, the top 3 shown: checked group by group (key and
  // count), not by the rows matched.
  ['by Order ID, top 3 by revenue', `SELECT "Order ID", count(*), sum("Total Revenue") FROM ${src} GROUP BY 1 ORDER BY 3 DESC, 1 LIMIT 3`,
    ['--by', 'Order ID', '--sum', 'Total Revenue', '--sort', 'Total Revenue:desc', '--limit', '3'], 'top'],
  // Millions of groups, every one written out as CSV in key order.
  ['by Order ID, every group to CSV', `COPY (SELECT "Order ID", count(*), sum("Total Revenue") FROM ${src} GROUP BY 1 ORDER BY 1) TO '${duckCSV}' (HEADER)`,
    ['--by', 'Order ID', '--sum', 'Total Revenue'], 'csv'],
];
const body = (path) => { const b = readFileSync(path); return b.subarray(b.indexOf(10) + 1); };
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await db.connect();
console.log(`${'shape'.padEnd(40)} ${'DuckDB median s'.padStart(16)}` +
  (parlab ? ` ${'parlab median s'.padStart(16)} ${'DuckDB/parlab'.padStart(14)} ${'paired'.padStart(8)}` : ''));
for (const [name, sql, args, top] of shapes) {
  const t = [], p = [];
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    const r = await con.runAndReadAll(sql);
    const rows = r.getRows();
    if (i > 0) t.push((performance.now() - t0) / 1e3);
    if (!parlab) continue;
    const keyed = args[0] === '--by';
    const nkeys = keyed ? args[1].split(',').length : 0; // the count's column
    const want = rows.reduce((n, row) => n + Number(row[nkeys]), 0);
    if (top === 'csv') {
      const fd = openSync(parlabCSV, 'w');
      const p0 = performance.now();
      execFileSync(parlab, ['query', '--csv', ...args, dir], { stdio: ['ignore', fd, 'inherit'] });
      if (i > 0) p.push((performance.now() - p0) / 1e3);
      closeSync(fd);
      if (!body(parlabCSV).equals(body(duckCSV))) {
        console.error(`${name}: parlab's rows (${parlabCSV}) differ from DuckDB's (${duckCSV})`);
        process.exit(1);
      }
      continue;
    }
    const p0 = performance.now();
    const out = execFileSync(parlab, ['query', '--json', ...args, dir], { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (i > 0) p.push((performance.now() - p0) / 1e3);
    const got = JSON.parse(out);
    if (top) {
      const same = got.groups.length === rows.length &&
        rows.every((r, k) => String(r[0]) === got.groups[k][args[1]] && Number(r[1]) === got.groups[k].count);
      if (!same) {
        console.error(`${name}: parlab's groups ${JSON.stringify(got.groups)}, DuckDB's ${rows.map((r) => `${r[0]}:${r[1]}`)}`);
        process.exit(1);
      }
    } else if (got.matched !== want || (keyed && got.groups.length !== rows.length)) {
      console.error(`${name}: parlab matched ${got.matched} in ${keyed ? got.groups.length : '-'} groups, DuckDB ${want} in ${rows.length}`);
      process.exit(1);
    }
  }
  let line = `${name.padEnd(40)} ${median(t).toFixed(4).padStart(16)}`;
  if (parlab) {
    const paired = median(t.map((x, i) => x / p[i]));
    line += ` ${median(p).toFixed(4).padStart(16)} ${(median(t) / median(p)).toFixed(1).padStart(13)}x ${paired.toFixed(1).padStart(7)}x`;
  }
  console.log(line);
}
rmSync(tmp, { recursive: true, force: true });
