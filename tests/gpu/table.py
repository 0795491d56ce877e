"""Joins tilec-bench's and peers.py's CSVs into one side-by-side table.

Each row: tilec's time, % of the 1 GiB copy measured in the same run and %
of a copy of the same bytes (small copies do not reach the large copy's
rate), the peers' times (eager, torch.compile), the best peer's % of the
1 GiB copy,
best peer / tilec, and issue 3's targets for the shape:
  large (>= 64 MB moved): >= 90% of copy, never slower than the best
    peer, >= 1.10x it where that peer is under 85% of copy;
  small (1 or 16 tokens): <= 7 us;
'ok', the targets missed, or '-' (neither, or no peer figure).
"""
import csv
import sys


def load(path):
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def targets(rows, moved, us, pct, best_us, best_pct):
    if int(rows) in (1, 16):
        return "ok" if us <= 7.0 else f"MISS >7us"
    if moved < 64e6:
        return "-"
    missed = []
    if pct < 90.0:
        missed.append("<90%")
    if best_us == best_us:
        if us > best_us:
            missed.append("slower than peer")
        elif best_pct < 85.0 and best_us / us < 1.10:
            missed.append("<1.10x peer")
    return "ok" if not missed else "MISS " + ", ".join(missed)


tilec = load(sys.argv[1])
peers = {(p["op"], p["dtype"], p["rows"], p["cols"]): p for p in load(sys.argv[2])}
print(f"{'op':18s} {'dtype':5s} {'shape':12s} {'tilec_us':>9s} {'%copy':>6s} {'%eq':>6s} "
      f"{'eager_us':>9s} {'compile_us':>10s} {'peer%':>6s} {'best/tilec':>10s}  targets")
for t in tilec:
    key = (t["op"], t["dtype"], t["rows"], t["cols"])
    p = peers.get(key, {})
    us = float(t["us"])
    pct = float(t["pct_copy"])
    eq = 100.0 * float(t["gbs"]) / float(t["copy_eq_gbs"]) if t.get("copy_eq_gbs") else float("nan")
    copy_gbs = float(t["copy_gbs"])
    moved = float(t["gbs"]) * 1e9 * us * 1e-6
    e = float(p.get("eager_us", "nan"))
    c = float(p.get("compile_us", "nan"))
    best = min(x for x in (e, c) if x == x) if (e == e or c == c) else float("nan")
    best_pct = 100.0 * moved / (best * 1e-6) / 1e9 / copy_gbs if best == best else float("nan")
    print(f"{t['op']:18s} {t['dtype']:5s} {t['rows']+'x'+t['cols']:12s} {us:9.1f} "
          f"{pct:5.1f}% {eq:5.1f}% {e:9.1f} {c:10.1f} {best_pct:5.1f}% {best/us:10.2f}  "
          f"{targets(t['rows'], moved, us, pct, best, best_pct)}")
