"""Peers of tilec-bench --attention on the GPU machine: nn::attention (bf16,
no mask, scale 1/sqrt(D)) of q [B, Sq, D] over k, v [B, Sk, D] as PyTorch
runs it (a shape ending in c: nn::causal_attention, query i seeing keys up
to i + Sk - Sq; cW: only the last W of them, a sliding window):

  sdpa     torch.nn.functional.scaled_dot_product_attention (its flash or
           memory-efficient kernels for bf16 without a mask; causal:
           is_causal where Sq == Sk, else the causal_lower_right bias,
           which its flash kernels take too; a window: the mask itself)
  eager    softmax(q @ k^T * s (+ mask)) @ v written out, f32 scores, as
           tilec's nn::attention builds it
  compile  torch.compile of that (default mode, Inductor)

Timed like tilec-bench's GEMMs: triton.testing.do_bench (median, its L2
flush), after --cooldown-ms idle. With --tilec-csv (tilec-bench
--attention-csv) it prints tilec's three kernels and its flash kernel
beside the peers: the best peer's time over tilec's flash time (> 1: tilec
faster).
"""
import argparse
import csv
import math
import sys

import torch

from peers_layer import bench  # (do_bench after a cooldown, as the layer's peers)


def sdpa(q, k, v, causal=False, mask=None):
    # [1, B, S, D]: the batch dims as heads. SDPA's flash and
    # memory-efficient kernels take 4-D inputs only; given 3-D [B, S, D]
    # (the twenty-fourth session's run) PyTorch 2.11 ran its math backend,
    # 2.9 ms at 32x2048x2048x128.
    sq, sk = q.shape[-2], k.shape[-2]
    kw = {}
    if mask is not None:
        kw["attn_mask"] = mask.to(q.dtype)
    elif causal and sq == sk:
        kw["is_causal"] = True
    elif causal:
        from torch.nn.attention.bias import causal_lower_right
        kw["attn_mask"] = causal_lower_right(sq, sk)
    return torch.nn.functional.scaled_dot_product_attention(
        q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0),
        scale=1.0 / math.sqrt(q.shape[-1]), **kw).squeeze(0)


def written(q, k, v, mask=None):
    s = (q @ k.transpose(-1, -2)).float() * (1.0 / math.sqrt(q.shape[-1]))
    if mask is not None:
        s = s + mask
    return torch.softmax(s, dim=-1).to(q.dtype) @ v


def causal_mask(sq, sk, dev, window=0):
    rows = torch.arange(sq, device=dev)[:, None]
    cols = torch.arange(sk, device=dev)[None, :]
    limit = rows + (sk - sq)
    sees = cols <= limit
    if window:
        sees = sees & (cols > limit - window)
    return torch.where(sees, 0.0, float("-inf")).to(torch.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attention", default="8x64x528x128,8x4x4100x128,32x512x512x128")
    ap.add_argument("--csv", default="")
    ap.add_argument("--tilec-csv", default="", help="tilec-bench --attention-csv, to join")
    ap.add_argument("--cooldown-ms", type=int, default=0)
    ap.add_argument("--rep-ms", type=int, default=100)
    args = ap.parse_args()
    compiled = torch.compile(written)
    rows = []
    for shape in args.attention.split(","):
        causal = "c" in shape
        dims, _, w = shape.partition("c")
        window = int(w) if w else 0
        b, sq, sk, d = map(int, dims.split("x"))
        dev, dt = "cuda", torch.bfloat16
        q = torch.randn(b, sq, d, device=dev, dtype=dt)
        k = torch.randn(b, sk, d, device=dev, dtype=dt)
        v = torch.randn(b, sk, d, device=dev, dtype=dt)
        xs = (q, k, v)
        mask = causal_mask(sq, sk, dev, window) if causal else None
        written_xs = xs + ((mask,) if causal else ())
        if window:
            sdpa_f = lambda q, k, v: sdpa(q, k, v, True, mask)  # noqa: E731
        else:
            sdpa_f = (lambda q, k, v: sdpa(q, k, v, True)) if causal else sdpa
        with torch.no_grad():
            want = written(*written_xs).float()
            err = max(((sdpa_f(*xs).float() - want).norm() / want.norm()).item(),
                      ((compiled(*written_xs).float() - want).norm() / want.norm()).item())
            t_sdpa = bench(sdpa_f, xs, args.cooldown_ms, args.rep_ms)
            t_eager = bench(written, written_xs, args.cooldown_ms, args.rep_ms)
            t_comp = bench(compiled, written_xs, args.cooldown_ms, args.rep_ms)
        row = dict(op="attention", dtype="bf16", b=b, sq=sq, sk=sk, d=d, causal=int(causal),
                   window=window,
                   sdpa_us=round(t_sdpa, 2), eager_us=round(t_eager, 2),
                   compile_us=round(t_comp, 2), peers_vs_written_err=f"{err:.2e}")
        rows.append(row)
        print(f"attention {shape:18s} sdpa {t_sdpa:9.1f} us  eager {t_eager:9.1f} us"
              f"  compile {t_comp:9.1f} us  (vs written out: {err:.1e})", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    if args.tilec_csv:
        tilec = {}
        with open(args.tilec_csv) as f:
            for r in csv.DictReader(f):
                tilec[(r["op"], r["b"], r["sq"], r["sk"], r["d"], r.get("causal", "0"),
                       r.get("window", "0"))] = r
        print(f"{'BxSqxSkxD':18s} {'3 kernels':>9s} {'flash':>9s} {'sdpa':>9s} {'eager':>9s}"
              f" {'compile':>9s} {'best/flash':>10s}")
        for r in rows:
            key = (str(r["b"]), str(r["sq"]), str(r["sk"]), str(r["d"]), str(r["causal"]),
                   str(r["window"]))
            three, flash = tilec.get(("attention",) + key), tilec.get(("attention_flash",) + key)
            if not three or not flash:
                continue
            best = min(r["sdpa_us"], r["eager_us"], r["compile_us"])
            name = "x".join(key[:4]) + ("c" if r["causal"] else "") + (
                str(r["window"]) if r["window"] else "")
            print(f"{name:18s} {float(three['us']):9.1f} {float(flash['us']):9.1f}"
                  f" {r['sdpa_us']:9.1f} {r['eager_us']:9.1f} {r['compile_us']:9.1f}"
                  f" {best / float(flash['us']):10.2f}")


if __name__ == "__main__":
    sys.exit(main())
