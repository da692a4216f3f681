// holistic-vs-duckdb.mjs: count distinct, median and quantile against
// DuckDB's exact functions (count(DISTINCT), median, quantile_cont), 2
// threads, the schema given. Each round runs DuckDB's query in this process
// and then a whole `parlab query --csv` process (A B A B …); it prints each
// side's median and the median of the rounds' ratios (DuckDB over parlab).
// Before the timing each answer is compared: counts exactly, a median or
// quantile to DuckDB's digits (DuckDB interpolates a DECIMAL in floating
// point; parlab's exact value is checked against Python's decimal by
// scripts/holistic-check.py).
//
//   node scripts/holistic-vs-duckdb.mjs DATA_DIR RUNS PARLAB
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import { csvOf, sideBySide } from './sales-schema.mjs';

const [dir, runsArg, parlab] = process.argv.slice(2);
const runs = Number(runsArg || 5);
const src = csvOf(dir);
const shapes = [
  ['count distinct Country by Region', `SELECT Region, count(DISTINCT Country) FROM ${src} GROUP BY Region ORDER BY Region`,
    ['--by', 'Region', '--count-distinct', 'Country']],
  ['median(Unit Price) by Region', `SELECT Region, median("Unit Price") FROM ${src} GROUP BY Region ORDER BY Region`,
    ['--by', 'Region', '--median', 'Unit Price']],
  ['quantile 0.9 of Total Profit', `SELECT quantile_cont("Total Profit", 0.9) FROM ${src}`,
    ['--quantile', 'Total Profit:0.9']],
];
const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await db.connect();
for (const [name, sql, flags] of shapes) {
  const duck = (await con.runAndReadAll(sql)).getRows().map((r) => r.map(String));
  const lines = execFileSync(parlab, ['query', dir, '--csv', ...flags]).toString().trim().split('\n').slice(1);
  const mine = lines.map((l) => flags[0] === '--by' ? [l.split(',')[0], l.split(',').at(-1)] : [l.split(',').at(-1)]);
  const same = duck.length === mine.length && duck.every((r, i) => r.length === mine[i].length &&
    r.every((v, j) => v === mine[i][j] || Math.abs(Number(v) - Number(mine[i][j])) <= 1e-9 * Math.abs(Number(v))));
  if (!same) {
    console.error(`${name}: parlab ${JSON.stringify(mine)} against DuckDB ${JSON.stringify(duck)}`);
    process.exit(1);
  }
  const line = await sideBySide(runs, () => con.runAndReadAll(sql),
    () => execFileSync(parlab, ['query', dir, '--csv', ...flags], { stdio: ['ignore', 'ignore', 'inherit'] }));
  console.log(`${name}: ${line}`);
}
