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
