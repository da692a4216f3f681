#!/usr/bin/env python3
"""holistic-check.py: parlab's count distinct, median and quantile against
Python's decimal, exactly (issue 66's check of scripts/holistic-vs-duckdb.mjs,
whose DuckDB interpolates a DECIMAL in floating point).

    python3 scripts/holistic-check.py DATA_DIR PARLAB

Reads every *.csv of DATA_DIR (the Sales Records columns) with the csv module,
computes count(DISTINCT Country) by Region, median(Unit Price) by Region and
quantile_cont(Total Profit, 0.9) (h = (n-1)p, the value at floor(h) plus the
fraction of the way to the next, SQL's rule) in decimal.Decimal, asks parlab
the same three questions (--csv), and compares each value as a number. Exit 1
on a difference, naming it."""
import csv, glob, os, subprocess, sys
from collections import defaultdict
from decimal import Decimal, getcontext

getcontext().prec = 60


def quantile(xs, p):
    xs = sorted(xs)
    h = (len(xs) - 1) * Decimal(p)
    lo = int(h)  # floor: h >= 0
    v = xs[lo]
    if h > lo:
        v += (h - lo) * (xs[lo + 1] - xs[lo])
    return v


def parlab(exe, data, *flags):
    out = subprocess.run([exe, 'query', data, '--csv', *flags], check=True, capture_output=True, text=True).stdout
    rows = list(csv.reader(out.splitlines()))
    return rows[1:]


def main():
    data, exe = sys.argv[1], sys.argv[2]
    countries, prices, profits = defaultdict(set), defaultdict(list), []
    for path in sorted(glob.glob(os.path.join(data, '*.csv'))):
        with open(path, newline='') as f:
            r = csv.reader(f)
            head = next(r)
            ir, ic, ip, it = (head.index(c) for c in ('Region', 'Country', 'Unit Price', 'Total Profit'))
            for row in r:
                countries[row[ir]].add(row[ic])
                prices[row[ir]].append(Decimal(row[ip]))
                profits.append(Decimal(row[it]))
    bad = []
    for region, _, n in parlab(exe, data, '--by', 'Region', '--count-distinct', 'Country'):
        n = n if n.isdigit() else None
        if n is None or int(n) != len(countries[region]):
            bad.append(f'count distinct Country, {region}: parlab {n}, python {len(countries[region])}')
    got = parlab(exe, data, '--by', 'Region', '--median', 'Unit Price')
    for row in got:
        region, v = row[0], row[-1]
        want = quantile(prices[region], '0.5')
        if Decimal(v) != want:
            bad.append(f'median Unit Price, {region}: parlab {v}, python {want}')
    (row,) = parlab(exe, data, '--quantile', 'Total Profit:0.9')
    want = quantile(profits, '0.9')
    if Decimal(row[-1]) != want:
        bad.append(f'quantile 0.9 of Total Profit: parlab {row[-1]}, python {want}')
    if len(got) != len(prices):
        bad.append(f'{len(got)} regions from parlab, {len(prices)} in the files')
    for b in bad:
        print(b, file=sys.stderr)
    if bad:
        sys.exit(1)
    print(f'the same: count distinct and median by {len(prices)} regions, quantile 0.9 over {len(profits)} rows')


if __name__ == '__main__':
    main()
