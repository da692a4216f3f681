// sales-schema.mjs: the Sales Records schema as DuckDB reads it (the
// columns and their types, given, so that nothing is sniffed), for the
// scripts that run parlab's questions beside DuckDB's.
export const cols = {
  'Region': 'VARCHAR', 'Country': 'VARCHAR', 'Item Type': 'VARCHAR', 'Sales Channel': 'VARCHAR',
  'Order Priority': 'VARCHAR', 'Order Date': 'VARCHAR', 'Order ID': 'BIGINT', 'Ship Date': 'VARCHAR',
  'Units Sold': 'BIGINT', 'Unit Price': 'DECIMAL(18,2)', 'Unit Cost': 'DECIMAL(18,2)',
  'Total Revenue': 'DECIMAL(18,2)', 'Total Cost': 'DECIMAL(18,2)', 'Total Profit': 'DECIMAL(18,2)',
};

// spec is cols as read_csv's columns={…} takes them.
export const spec = Object.entries(cols).map(([k, v]) => `'${k}': '${v}'`).join(', ');

// csvOf is DuckDB's read of the CSV files in dir with the schema given.
export const csvOf = (dir) => `read_csv('${dir}/*.csv', header=true, columns={${spec}})`;

// median of xs, and the time now in seconds, for the side-by-side timings
export const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
export const now = () => Number(process.hrtime.bigint()) / 1e9;

// sideBySide times duck() (a DuckDB query, awaited) and mine() (a whole
// parlab process) alternately, runs rounds after one unrecorded, and says
// each side's median and the median of the rounds' ratios (DuckDB over
// parlab) as one line.
export async function sideBySide(runs, duck, mine) {
  const d = [], p = [], r = [];
  for (let i = 0; i <= runs; i++) {
    let t = now();
    await duck();
    const dt = now() - t;
    t = now();
    mine();
    const pt = now() - t;
    if (i > 0) { d.push(dt); p.push(pt); r.push(dt / pt); }
  }
  return `DuckDB ${(median(d) * 1e3).toFixed(1)} ms, parlab ${(median(p) * 1e3).toFixed(1)} ms, DuckDB/parlab ${median(r).toFixed(2)}x`;
}
