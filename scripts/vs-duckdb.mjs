// vs-duckdb.mjs: the query shapes in DuckDB (2 threads, the schema
// given, so nothing is sniffed), each run RUNS times in one process after a
// warmup; prints the median per shape in seconds. Needs @duckdb/node-api
// (npm install @duckdb/node-api in a directory on NODE_PATH, or here).
//
//   node scripts/vs-duckdb.mjs DATA_DIR [RUNS]
import { DuckDBInstance } from '@duckdb/node-api';

const dir = process.argv[2] || 'data/sales-1M';
const runs = Number(process.argv[3] || 5);
const cols = {
  'Region': 'VARCHAR', 'Country': 'VARCHAR', 'Item Type': 'VARCHAR', 'Sales Channel': 'VARCHAR',
  'Order Priority': 'VARCHAR', 'Order Date': 'VARCHAR', 'Order ID': 'BIGINT', 'Ship Date': 'VARCHAR',
  'Units Sold': 'BIGINT', 'Unit Price': 'DECIMAL(18,2)', 'Unit Cost': 'DECIMAL(18,2)',
  'Total Revenue': 'DECIMAL(18,2)', 'Total Cost': 'DECIMAL(18,2)', 'Total Profit': 'DECIMAL(18,2)',
};
const spec = Object.entries(cols).map(([k, v]) => `'${k}': '${v}'`).join(', ');
const src = `read_csv('${dir}/*.csv', header=true, columns={${spec}})`;
const sums = 'count(*), sum("Total Revenue"), sum("Total Profit")';
const shapes = [
  ['Region=Europe', `SELECT ${sums} FROM ${src} WHERE "Region"='Europe'`],
  ['Country=Chad', `SELECT ${sums} FROM ${src} WHERE "Country"='Chad'`],
  ['Item Type=Cosmetics', `SELECT ${sums} FROM ${src} WHERE "Item Type"='Cosmetics'`],
  ['Sales Channel=Online', `SELECT ${sums} FROM ${src} WHERE "Sales Channel"='Online'`],
  ['no filter, two sums', `SELECT ${sums} FROM ${src}`],
  ['no filter, sum Units Sold', `SELECT count(*), sum("Units Sold") FROM ${src}`],
  ['by Region, count + 2 sums', `SELECT "Region", ${sums} FROM ${src} GROUP BY 1 ORDER BY 1`],
  ['by Country, count + 2 sums', `SELECT "Country", ${sums} FROM ${src} GROUP BY 1 ORDER BY 1`],
  ['Region=Europe, Online, Units Sold>5000', `SELECT ${sums} FROM ${src} WHERE "Region"='Europe' AND "Sales Channel"='Online' AND "Units Sold">5000`],
  ['by Item Type, min/max/avg', `SELECT "Item Type", count(*), min("Units Sold"), max("Unit Price"), avg("Total Profit") FROM ${src} GROUP BY 1 ORDER BY 1`],
];
const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await db.connect();
console.log(`${'shape'.padEnd(40)} ${'DuckDB median s'.padStart(16)}`);
for (const [name, sql] of shapes) {
  const t = [];
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    const r = await con.runAndReadAll(sql);
    r.getRows();
    if (i > 0) t.push((performance.now() - t0) / 1e3);
  }
  t.sort((a, b) => a - b);
  console.log(`${name.padEnd(40)} ${t[Math.floor(t.length / 2)].toFixed(4).padStart(16)}`);
}
