// rows-vs-duckdb.mjs: rows out (query --select) against DuckDB's COPY of the
// same SELECT, 2 threads, the schema given. Each round runs DuckDB's COPY in
// this process and then a whole `parlab query` process, both writing to
// /dev/null (A B A B …); it prints each side's median and the median of the
// rounds' ratios (DuckDB over parlab). Before the timing, each question is
// written once by both to files, which must be byte for byte the same.
//
//   node scripts/rows-vs-duckdb.mjs DATA_DIR RUNS PARLAB
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { csvOf, median, now } from './sales-schema.mjs';

const [dir, runsArg, parlab] = process.argv.slice(2);
const runs = Number(runsArg || 5);
const src = csvOf(dir);
const shapes = [
  ['Europe, 2 columns, every row', `SELECT "Order ID", "Total Profit" FROM ${src} WHERE Region = 'Europe'`,
    ['--where', 'Region=Europe', '--select', 'Order ID,Total Profit']],
  ['Europe, every column, first 10', `SELECT * FROM ${src} WHERE Region = 'Europe' LIMIT 10`,
    ['--where', 'Region=Europe', '--select', '*', '--limit', '10']],
  ['Units Sold > 9900, every column', `SELECT * FROM ${src} WHERE "Units Sold" > 9900`,
    ['--where', 'Units Sold>9900', '--select', '*']],
];
const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await db.connect();
const tmp = mkdtempSync(join(tmpdir(), 'rows-vs-duckdb-'));
try {
  for (const [name, sql, flags] of shapes) {
    const duck = join(tmp, 'duckdb.csv');
    await con.run(`COPY (${sql}) TO '${duck}' (HEADER)`);
    const mine = execFileSync(parlab, ['query', dir, ...flags], { maxBuffer: 2 ** 31 });
    if (!mine.equals(readFileSync(duck))) {
      writeFileSync(join(tmp, 'parlab.csv'), mine);
      console.error(`${name}: parlab's rows differ from DuckDB's (both in ${tmp})`);
      process.exit(1);
    }
    const d = [], p = [], r = [];
    for (let i = 0; i <= runs; i++) {
      let t = now();
      await con.run(`COPY (${sql}) TO '/dev/null' (HEADER)`);
      const dt = now() - t;
      t = now();
      execFileSync(parlab, ['query', dir, ...flags], { stdio: ['ignore', 'ignore', 'inherit'] });
      const pt = now() - t;
      if (i > 0) { d.push(dt); p.push(pt); r.push(dt / pt); } // (round 0 warms up)
    }
    console.log(`${name}: ${mine.toString().split('\n').length - 2} rows; DuckDB ${(median(d) * 1e3).toFixed(1)} ms, parlab ${(median(p) * 1e3).toFixed(1)} ms, DuckDB/parlab ${median(r).toFixed(2)}x`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
