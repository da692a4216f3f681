// ndjson-vs-duckdb.mjs: JSON lines against DuckDB's read_json
// (format='newline_delimited', 2 threads, the schema given, so nothing is
// sniffed). Each round runs DuckDB's query in this process and then a whole
// `parlab query --csv` process (A B A B …; a first round unrecorded); it
// prints each side's median and the median of the rounds' ratios (DuckDB
// over parlab). Before the timing each answer is compared, group for group:
// the count and the sums exactly (DECIMAL(18,2) sums are exact in DuckDB).
// Make the data with `parlab gen --format ndjson`.
//
//   node scripts/ndjson-vs-duckdb.mjs DATA_DIR RUNS PARLAB
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import { sideBySide, spec } from './sales-schema.mjs';

const [dir, runsArg, parlab] = process.argv.slice(2);
const runs = Number(runsArg || 5);
const src = `read_json('${dir}/*.ndjson', format='newline_delimited', columns={${spec}})`;
const sums = 'count(*)::VARCHAR, sum("Total Revenue")::VARCHAR, sum("Total Profit")::VARCHAR';
const shapes = [
  ['Region=Europe', `SELECT ${sums} FROM ${src} WHERE "Region"='Europe'`, ['--where', 'Region=Europe']],
  ['by Country', `SELECT "Country", ${sums} FROM ${src} GROUP BY 1 ORDER BY 1`, ['--by', 'Country']],
];
const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await db.connect();
const ask = (flags) => execFileSync(parlab, ['query', dir, '--csv', ...flags]).toString();
for (const [name, sql, flags] of shapes) {
  const duck = (await con.runAndReadAll(sql)).getRows().map((r) => r.map(String).join(','));
  const mine = ask(flags).trim().split('\n').slice(1).map((l) => l.replaceAll('"', ''));
  if (duck.join('\n') !== mine.join('\n')) {
    console.error(`${name}: parlab\n${mine.join('\n')}\nagainst DuckDB\n${duck.join('\n')}`);
    process.exit(1);
  }
  console.log(`${name}: ${await sideBySide(runs, () => con.runAndReadAll(sql), () => ask(flags))} (${runs} rounds, the same answer)`);
}
