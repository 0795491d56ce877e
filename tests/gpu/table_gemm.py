"""Joins tilec-bench's --gemm-csv and peers_gemm.py's CSV into one table:
TFLOP/s of each, and tilec's time over the best peer's (>1: tilec faster).
For matmul the peers are cuBLAS and Triton; for matmul_bias_gelu they are
eager (cuBLAS + epilogue kernels) and torch.compile; cuBLAS alone (no
epilogue) is shown for reference. matmul_swiglu (two products) likewise,
its TFLOP/s counting both products."""
import csv
import sys


def load(path):
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def num(p, key):
    try:
        return float(p.get(key, "nan"))
    except ValueError:
        return float("nan")


tilec = load(sys.argv[1])
peers = {(p["op"], p["m"], p["n"], p["k"]): p for p in load(sys.argv[2])}
print(f"{'op':17s} {'MxNxK':17s} {'tilec_us':>9s} {'TF/s':>6s} {'cublas_us':>9s} "
      f"{'TF/s':>6s} {'triton_us':>9s} {'eager_us':>9s} {'compile_us':>10s} {'%cublas':>7s} "
      f"{'best/tilec':>10s}")
for t in tilec:
    key = (t["op"], t["m"], t["n"], t["k"])
    p = peers.get(key, {})
    us = float(t["us"])
    flops = (4.0 if t["op"] == "matmul_swiglu" else 2.0) * int(t["m"]) * int(t["n"]) * int(t["k"])
    cb, tr, e, c = (num(p, k) for k in ("cublas_us", "triton_us", "eager_us", "compile_us"))
    peers_us = [x for x in ((cb, tr) if t["op"].startswith("matmul") and t["op"] not in ("matmul_bias_gelu", "matmul_swiglu") else (e, c)) if x == x]
    best = min(peers_us) if peers_us else float("nan")
    tf = lambda x: flops / (x * 1e-6) / 1e12 if x == x else float("nan")
    print(f"{t['op']:17s} {t['m']+'x'+t['n']+'x'+t['k']:17s} {us:9.1f} {tf(us):6.1f} "
          f"{cb:9.1f} {tf(cb):6.1f} {tr:9.1f} {e:9.1f} {c:10.1f} {100*cb/us:6.1f}% "
          f"{best/us:10.2f}")
