"""Joins tilec-bench's and peers.py's CSVs into one side-by-side table."""
import csv
import sys


def load(path):
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


tilec = load(sys.argv[1])
peers = {(p["op"], p["dtype"], p["rows"], p["cols"]): p for p in load(sys.argv[2])}
print(f"{'op':18s} {'dtype':5s} {'shape':11s} {'tilec_us':>9s} {'%copy':>6s} "
      f"{'eager_us':>9s} {'compile_us':>10s} {'best/tilec':>10s}")
for t in tilec:
    key = (t["op"], t["dtype"], t["rows"], t["cols"])
    p = peers.get(key, {})
    us = float(t["us"])
    e = float(p.get("eager_us", "nan"))
    c = float(p.get("compile_us", "nan"))
    best = min(x for x in (e, c) if x == x) if (e == e or c == c) else float("nan")
    print(f"{t['op']:18s} {t['dtype']:5s} {t['rows']+'x'+t['cols']:11s} {us:9.1f} "
          f"{float(t['pct_copy']):5.1f}% {e:9.1f} {c:10.1f} {best/us:10.2f}")
