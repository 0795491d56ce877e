"""Same-run A/B of tilec-bench CSVs: `ab_table.py NAME=a.csv[,b.csv...] ...`.

Each NAME collects one or more CSVs of the same cases (repeated passes);
the table shows every pass's microseconds and, for row ops, the first
variant's % of copy (of the large copy and of a copy of equal bytes), then
each later variant's best pass over the first's best.
"""
import csv
import sys


def load(path):
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def key(row):
    if "m" in row:
        return (row["op"], row["dtype"], f"{row['m']}x{row['n']}x{row['k']}")
    return (row["op"], row["dtype"], f"{row['rows']}x{row['cols']}")


variants = []
for arg in sys.argv[1:]:
    name, paths = arg.split("=", 1)
    passes = [{key(r): r for r in load(p)} for p in paths.split(",")]
    variants.append((name, passes))
if not variants:
    sys.exit(__doc__)
first_name, first = variants[0]
keys = [k for k in first[0]]
header = f"{'op':18s} {'dtype':5s} {'shape':16s}"
for name, passes in variants:
    header += f" {name + ' us':>{max(12, 8 * len(passes))}s}"
header += f" {'%copy':>6s} {'%eq':>6s}"
for name, _ in variants[1:]:
    header += f" {name + '/' + first_name:>12s}"
print(header)
for k in keys:
    line = f"{k[0]:18s} {k[1]:5s} {k[2]:16s}"
    best = {}
    for name, passes in variants:
        us = [float(p[k]["us"]) for p in passes if k in p]
        best[name] = min(us) if us else float("nan")
        text = " / ".join(f"{u:.1f}" for u in us)
        line += f" {text:>{max(12, 8 * len(passes))}s}"
    r = first[0][k]
    if "pct_copy" in r:
        eq = float(r["gbs"]) / float(r["copy_eq_gbs"]) * 100 if r.get("copy_eq_gbs") else float("nan")
        line += f" {float(r['pct_copy']):5.1f}% {eq:5.1f}%"
    else:
        line += f" {'':6s} {'':6s}"
    for name, _ in variants[1:]:
        line += f" {best[name] / best[first_name]:12.3f}"
    print(line)
