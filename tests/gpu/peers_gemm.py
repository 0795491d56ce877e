"""Peers of tilec's GEMMs on the GPU machine: cuBLAS (torch.matmul), a plain
autotuned Triton matmul, and for matmul_bias_gelu PyTorch eager (cuBLAS then
a separate epilogue) and torch.compile. Same shapes and layouts as
tilec-bench's examples: matmul is A[M,K] @ B[N,K]^T (both K-major, cuBLAS
"TN"); matmul_bias_gelu is
gelu(x[M,K] @ W[N,K]^T + bias, tanh approximation); matmul_swiglu is
silu(x @ Wg[N,K]^T) * (x @ Wu[N,K]^T) (f32 inside, as the layer's peers;
cuBLAS column: the two products alone); bf16 in and out.
Timed like triton.testing.do_bench (median; --flush picks the L2 flush before
each call: do_bench's memset, a read, or none), inputs rotated over sets.
"""
import argparse
import csv
import sys
import time

import torch
import triton
import triton.language as tl
import triton.testing


def configs():
    out = []
    for bm, bn, bk, stages, warps in [(128, 256, 64, 3, 8), (256, 128, 64, 3, 8),
                                      (128, 128, 64, 4, 4), (128, 128, 32, 4, 4),
                                      (64, 256, 32, 4, 4), (128, 64, 32, 4, 4),
                                      (64, 128, 64, 4, 4), (32, 64, 64, 5, 2)]:
        out.append(triton.Config({"BM": bm, "BN": bn, "BK": bk, "GM": 8},
                                 num_stages=stages, num_warps=warps))
    return out


@triton.autotune(configs=configs(), key=["M", "N", "K"])
@triton.jit
def _mm(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GM: tl.constexpr):
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    group = GM * npn
    first = (pid // group) * GM
    size = min(npm - first, GM)
    pm = first + (pid % group) % size
    pn = (pid % group) // size
    rm = (pm * BM + tl.arange(0, BM)) % M
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    pa = a + rm[:, None] * sam + rk[None, :] * sak
    pb = b + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        x = tl.load(pa, mask=rk[None, :] < K - k * BK, other=0.0)
        y = tl.load(pb, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(x, y, acc)
        pa += BK * sak
        pb += BK * sbk
    cm = pm * BM + tl.arange(0, BM)
    cn = pn * BN + tl.arange(0, BN)
    tl.store(c + cm[:, None] * scm + cn[None, :] * scn, acc.to(c.dtype.element_ty),
             mask=(cm[:, None] < M) & (cn[None, :] < N))


def triton_mm(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
    _mm[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
              c.stride(0), c.stride(1))
    return c


def bias_gelu(x, w, bias):
    return torch.nn.functional.gelu(torch.nn.functional.linear(x, w, bias), approximate="tanh")


def swiglu(x, wg, wu):
    linear = torch.nn.functional.linear
    return (torch.nn.functional.silu(linear(x, wg).float()) * linear(x, wu).float()).to(x.dtype)


TIMING = {"cooldown_ms": 0, "rep_ms": 100, "flush": "write"}


def time_calls(run, flush, rep_ms):
    """do_bench's loop with another L2 flush: an estimate, 25 ms warm-up,
    single calls for rep_ms, each between its own events after `flush`; the
    median call in ms."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    run()
    torch.cuda.synchronize()
    start.record()
    for _ in range(5):
        flush()
        run()
    end.record()
    torch.cuda.synchronize()
    est = start.elapsed_time(end) / 5
    for _ in range(max(1, int(25 / est))):
        run()
    n = max(1, min(1000, int(rep_ms / est)))
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
          for _ in range(n)]
    for s, e in ev:
        flush()
        s.record()
        run()
        e.record()
    torch.cuda.synchronize()
    return sorted(s.elapsed_time(e) for s, e in ev)[n // 2]


def bench(fn, sets):
    """Median call after TIMING's idle (tilec-bench --cooldown-ms times tilec
    the same way, so both start from the same clocks). Flush "write" is
    do_bench itself (a 256 MB memset before each call: L2 left full of dirty
    lines), "read" a 256 MB sum (clean lines; tilec-bench --gemm-flush=read
    sums 256 MB too), "none" nothing (the input sets exceed L2)."""
    state = {"i": 0}
    if TIMING["cooldown_ms"] > 0:
        torch.cuda.synchronize()
        time.sleep(TIMING["cooldown_ms"] / 1e3)

    def run():
        state["i"] = (state["i"] + 1) % len(sets)
        fn(*sets[state["i"]])
    if TIMING["flush"] == "batches":
        # tilec-bench --gemm-timing=batches: 3 warm-up calls, then the median
        # of 15 batches of 20 back-to-back calls (no flush).
        for _ in range(3):
            run()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        samples = []
        for _ in range(15):
            start.record()
            for _ in range(20):
                run()
            end.record()
            torch.cuda.synchronize()
            samples.append(start.elapsed_time(end) / 20)
        return sorted(samples)[7] * 1e3
    if TIMING["flush"] == "write":
        return triton.testing.do_bench(run, warmup=25, rep=TIMING["rep_ms"],
                                       return_mode="median") * 1e3
    if TIMING["flush"] == "read":
        cache = torch.ones(64 << 20, device="cuda", dtype=torch.float32).view(65536, 1024)
        out = torch.empty(65536, device="cuda", dtype=torch.float32)
        flush = lambda: torch.sum(cache, dim=1, out=out)
    else:
        flush = lambda: None
    return time_calls(run, flush, TIMING["rep_ms"]) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="4096x4096x4096,8192x8192x8192")
    ap.add_argument("--ops", default="matmul,matmul_bias_gelu",
                    help="matmul, matmul_nn, matmul_lhs_t, matmul_bias_gelu, matmul_swiglu")
    ap.add_argument("--triton", default="1", help="0 skips the Triton matmul")
    ap.add_argument("--csv", default="")
    ap.add_argument("--cooldown-ms", type=int, default=0, help="idle before each timing")
    ap.add_argument("--rep-ms", type=int, default=100, help="do_bench's rep")
    ap.add_argument("--flush", default="write", choices=["write", "read", "none", "batches"],
                    help="L2 flush before each call (write: do_bench's memset); "
                         "batches: tilec-bench's batch timer instead")
    args = ap.parse_args()
    TIMING.update(cooldown_ms=args.cooldown_ms, rep_ms=args.rep_ms, flush=args.flush)
    out = open(args.csv, "w", newline="") if args.csv else None
    writer = None
    dt = torch.bfloat16
    compiled = torch.compile(bias_gelu)
    compiled_swiglu = torch.compile(swiglu)
    for op in args.ops.split(","):
        for shape in args.shapes.split(","):
            m, n, k = map(int, shape.split("x"))
            nsets = max(1, min(4, int(3 * 2**30 // ((m * k + k * n + m * n) * 2))))
            row = dict(op=op, dtype="bf16", m=m, n=n, k=k, cublas_us=float("nan"),
                       triton_us=float("nan"), eager_us=float("nan"), compile_us=float("nan"))
            if op == "matmul_lhs_t":
                sets = [(torch.randn(k, m, device="cuda", dtype=dt),
                         torch.randn(n, k, device="cuda", dtype=dt)) for _ in range(nsets)]
                row["cublas_us"] = bench(lambda a, b: torch.matmul(a.t(), b.t()), sets)
                if args.triton == "1":
                    row["triton_us"] = bench(lambda a, b: triton_mm(a.t(), b.t()), sets)
            elif op == "matmul_nn":
                sets = [(torch.randn(m, k, device="cuda", dtype=dt),
                         torch.randn(k, n, device="cuda", dtype=dt)) for _ in range(nsets)]
                row["cublas_us"] = bench(torch.matmul, sets)
                if args.triton == "1":
                    row["triton_us"] = bench(triton_mm, sets)
            elif op == "matmul":
                sets = [(torch.randn(m, k, device="cuda", dtype=dt),
                         torch.randn(n, k, device="cuda", dtype=dt)) for _ in range(nsets)]
                row["cublas_us"] = bench(lambda a, b: torch.matmul(a, b.t()), sets)
                if args.triton == "1":
                    a, b = sets[0]
                    err = (triton_mm(a, b.t()).float() - (a @ b.t()).float()).abs().max().item()
                    if err > 1.0:
                        print(f"triton matmul wrong ({err}); skipped", flush=True)
                    else:
                        row["triton_us"] = bench(lambda a, b: triton_mm(a, b.t()), sets)
            elif op == "matmul_swiglu":
                nsets = max(1, min(4, int(3 * 2**30 // ((m * k + 2 * k * n + m * n) * 2))))
                sets = [(torch.randn(m, k, device="cuda", dtype=dt),
                         torch.randn(n, k, device="cuda", dtype=dt),
                         torch.randn(n, k, device="cuda", dtype=dt)) for _ in range(nsets)]
                linear = torch.nn.functional.linear
                row["cublas_us"] = bench(lambda x, wg, wu: (linear(x, wg), linear(x, wu)), sets)
                row["eager_us"] = bench(swiglu, sets)
                compiled_swiglu(*sets[0])
                torch.cuda.synchronize()
                row["compile_us"] = bench(compiled_swiglu, sets)
            else:
                sets = [(torch.randn(m, k, device="cuda", dtype=dt),
                         torch.randn(n, k, device="cuda", dtype=dt),
                         torch.randn(n, device="cuda", dtype=dt)) for _ in range(nsets)]
                row["cublas_us"] = bench(lambda x, w, b: torch.nn.functional.linear(x, w), sets)
                row["eager_us"] = bench(bias_gelu, sets)
                compiled(*sets[0])
                torch.cuda.synchronize()
                row["compile_us"] = bench(compiled, sets)
            if out:
                if writer is None:
                    writer = csv.DictWriter(out, fieldnames=list(row))
                    writer.writeheader()
                writer.writerow(row)
                out.flush()
            tf = lambda us: (4.0 if op == "matmul_swiglu" else 2.0) * m * n * k / (us * 1e-6) / 1e12
            print(f"{op:18s} {shape:18s} cublas {row['cublas_us']:9.1f} us ({tf(row['cublas_us']):6.1f} TF)"
                  f"  triton {row['triton_us']:9.1f}  eager {row['eager_us']:9.1f}"
                  f"  compile {row['compile_us']:9.1f}", flush=True)
    if out:
        out.close()


if __name__ == "__main__":
    sys.exit(main())
