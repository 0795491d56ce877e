"""Peers of tilec's decoder_layer example (compiler/lib/Examples.cpp,
buildDecoderLayer) on the GPU machine: the same layer in PyTorch eager and
torch.compile (default mode), bf16, the same inputs and shapes: T new
tokens, hidden H (heads of 128: H / 128 query heads in groups of 4 over
H / 512 kv heads), P past tokens in the kv cache, an MLP of 3.5 H:

  h = rms_norm(x, attn_norm)                     (f32 inside, eps 1e-5)
  q, k, v = h @ wq^T, h @ wk^T, h @ wv^T         ([T, heads, 128])
  q, k = rope(q), rope(k)                        (rotate-half, cos/sin [T, 1, 128])
  k_cache[:, P:P+T], v_cache[:, P:P+T] = k^T, v^T   (in place: caches [kv heads, C, 128])
  k_all, v_all = k_cache[:, :P+T], v_cache[:, :P+T]   (views; C = P + T unless TxHxPxC)
  o = sdpa(q grouped [kv heads, 4 T, 128], k_all, v_all, mask, 1/sqrt(128))
  x1 = x + o @ wo^T;  h2 = rms_norm(x1, mlp_norm)
  out = (silu(h2 @ wg^T) * (h2 @ wu^T)) @ wd^T + x1
  returns out, k_all, v_all

Attention is torch's scaled_dot_product_attention with the additive mask
(bf16; causal over the new tokens), what a PyTorch user writes, and (the
"causal" peers, since tilec computes its causal mask rather than reading
one) SDPA's own causal kernels over the query heads with enable_gqa:
is_causal without a cache, the causal_lower_right bias with one (falling
back to the mask where PyTorch refuses, said in the output). Timed like
tilec-bench --layers: triton.testing.do_bench (median, its L2 flush), after
--cooldown-ms idle. With --tilec-csv (tilec-bench --layer-csv) it prints the
three side by side: best peer's time over tilec's (> 1: tilec faster).
"""
import argparse
import csv
import math
import sys
import time

import torch
import triton.testing

HEAD = 128


def rms_norm(x, w, eps=1e-5):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)


def rope(x, cos, sin):
    xf = x.float()
    half = xf.shape[-1] // 2
    rot = torch.cat([-xf[..., half:], xf[..., :half]], dim=-1)
    return (xf * cos.float() + rot * sin.float()).to(x.dtype)


def layer_with(attend):
    """The layer, its attention `attend(q [T, heads, 128], k_all, v_all, mask)` -> [T, hidden]."""
    def run(x, attn_norm, wq, wk, wv, wo, mlp_norm, wg, wu, wd, cos, sin, k_cache, v_cache,
            mask):
        t, hidden = x.shape
        heads = hidden // HEAD
        kv = heads // 4
        h = rms_norm(x, attn_norm)
        q = rope((h @ wq.t()).view(t, heads, HEAD), cos, sin)
        k = rope((h @ wk.t()).view(t, kv, HEAD), cos, sin)
        v = (h @ wv.t()).view(t, kv, HEAD)
        # The caches hold the past tokens' rows and room for the new ones,
        # written in place (as tilec's update_slice; a prefill has no cache).
        if k_cache is None:
            k_all, v_all = k.transpose(0, 1), v.transpose(0, 1)
        else:
            past = mask.shape[-1] - t
            k_cache[:, past:past + t] = k.transpose(0, 1)
            v_cache[:, past:past + t] = v.transpose(0, 1)
            k_all, v_all = k_cache[:, :past + t], v_cache[:, :past + t]
        o = attend(q, k_all, v_all, mask)
        x1 = x + o @ wo.t()
        h2 = rms_norm(x1, mlp_norm)
        mlp = (torch.nn.functional.silu(h2 @ wg.t()) * (h2 @ wu.t())) @ wd.t()
        return mlp + x1, k_cache if k_cache is not None else k_all, \
            v_cache if v_cache is not None else v_all
    return run


def masked_attention(q, k_all, v_all, mask):
    # Grouped-query heads as the rows of their kv head: [kv heads, 4 T, 128].
    t, heads, _ = q.shape
    kv = k_all.shape[0]
    qg = q.transpose(0, 1).reshape(kv, 4 * t, HEAD)
    o = torch.nn.functional.scaled_dot_product_attention(
        qg, k_all, v_all, attn_mask=mask.to(q.dtype), scale=1.0 / math.sqrt(HEAD))
    return o.reshape(heads, t, HEAD).transpose(0, 1).reshape(t, heads * HEAD)


def causal_attention(q, k_all, v_all, mask):
    # (The mask is not read: SDPA's causal kernels over the query heads.)
    t, heads, _ = q.shape
    past = k_all.shape[1] - t
    kw = dict(scale=1.0 / math.sqrt(HEAD), enable_gqa=True)
    if past == 0:
        kw["is_causal"] = True
    else:
        from torch.nn.attention.bias import causal_lower_right
        kw["attn_mask"] = causal_lower_right(t, past + t)
    o = torch.nn.functional.scaled_dot_product_attention(
        q.transpose(0, 1)[None], k_all[None], v_all[None], **kw)[0]
    return o.transpose(0, 1).reshape(t, heads * HEAD)


layer = layer_with(masked_attention)
layer_causal = layer_with(causal_attention)


def inputs(t, hidden, past, capacity=0, dt=torch.bfloat16):
    heads = hidden // HEAD
    kv = heads // 4
    ffn = hidden * 7 // 2
    keys = past + t
    capacity = capacity or keys
    dev = "cuda"
    w = lambda n, k: torch.randn(n, k, device=dev, dtype=dt) / math.sqrt(k)
    pos = torch.arange(past, past + t, device=dev, dtype=torch.float32)[:, None]
    inv = 10000.0 ** (-torch.arange(0, HEAD, 2, device=dev, dtype=torch.float32) / HEAD)
    ang = torch.cat([pos * inv, pos * inv], dim=-1)[:, None, :]
    rows = torch.arange(4 * t, device=dev)[:, None] % t
    cols = torch.arange(keys, device=dev)[None, :]
    mask = torch.where(cols <= past + rows, 0.0, float("-inf")).to(torch.float32)
    return (torch.randn(t, hidden, device=dev, dtype=dt),
            torch.ones(hidden, device=dev, dtype=dt),
            w(heads * HEAD, hidden), w(kv * HEAD, hidden), w(kv * HEAD, hidden),
            w(hidden, heads * HEAD), torch.ones(hidden, device=dev, dtype=dt),
            w(ffn, hidden), w(ffn, hidden), w(hidden, ffn),
            ang.cos().to(dt), ang.sin().to(dt),
            torch.randn(kv, capacity, HEAD, device=dev, dtype=dt) if past else None,
            torch.randn(kv, capacity, HEAD, device=dev, dtype=dt) if past else None, mask)


def bench(fn, args, cooldown_ms, rep_ms):
    if cooldown_ms > 0:
        torch.cuda.synchronize()
        time.sleep(cooldown_ms / 1e3)
    return triton.testing.do_bench(lambda: fn(*args), warmup=25, rep=rep_ms,
                                   return_mode="median") * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", default="1x4096x512,16x4096x512,512x4096x0")
    ap.add_argument("--csv", default="")
    ap.add_argument("--tilec-csv", default="", help="tilec-bench --layer-csv, to join")
    ap.add_argument("--cooldown-ms", type=int, default=0)
    ap.add_argument("--rep-ms", type=int, default=100)
    args = ap.parse_args()
    compiled = torch.compile(layer)
    compiled_causal = torch.compile(layer_causal)
    rows = []
    for shape in args.layers.split(","):
        dims = list(map(int, shape.split("x")))
        t, hidden, past = dims[:3]
        capacity = dims[3] if len(dims) > 3 else past + t
        xs = inputs(t, hidden, past, capacity)
        with torch.no_grad():
            want = layer(*xs)

            def error(f):
                got = f(*xs)
                torch.cuda.synchronize()
                return max(((a.float() - b.float()).norm() / b.float().norm()).item()
                           for a, b in zip(got, want))
            err = error(compiled)
            eager = bench(layer, xs, args.cooldown_ms, args.rep_ms)
            comp = bench(compiled, xs, args.cooldown_ms, args.rep_ms)
            try:  # (SDPA's causal kernels; inf where PyTorch refuses them)
                err_causal = max(error(layer_causal), error(compiled_causal))
                eager_causal = bench(layer_causal, xs, args.cooldown_ms, args.rep_ms)
                comp_causal = bench(compiled_causal, xs, args.cooldown_ms, args.rep_ms)
            except Exception as e:  # noqa: BLE001
                print(f"decoder_layer {shape}: SDPA's causal kernels refused: {e}", flush=True)
                err_causal, eager_causal, comp_causal = float("nan"), float("inf"), float("inf")
        row = dict(op="decoder_layer", dtype="bf16", tokens=t, hidden=hidden, past=past,
                   capacity=capacity,
                   eager_us=round(eager, 2), compile_us=round(comp, 2),
                   eager_causal_us=round(eager_causal, 2), compile_causal_us=round(comp_causal, 2),
                   compile_vs_eager_err=f"{err:.2e}", causal_vs_eager_err=f"{err_causal:.2e}")
        rows.append(row)
        print(f"decoder_layer {shape:14s} eager {eager:9.1f} us  compile {comp:9.1f} us"
              f"  causal kernels: eager {eager_causal:9.1f} us  compile {comp_causal:9.1f} us"
              f"  (vs eager: {err:.1e}, {err_causal:.1e})", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    if args.tilec_csv:
        with open(args.tilec_csv) as f:
            # (A CSV without capacities: caches of past + tokens rows.)
            tilec = {(r["tokens"], r["hidden"], r["past"],
                      r.get("capacity") or str(int(r["past"]) + int(r["tokens"]))): r
                     for r in csv.DictReader(f)}
        print(f"{'TxHxP':14s} {'kernels':>7s} {'tilec_us':>9s} {'%copy':>6s} {'eager_us':>9s}"
              f" {'compile_us':>10s} {'eager_c_us':>10s} {'compile_c':>10s} {'best/tilec':>10s}")
        for r in rows:
            tr = tilec.get((str(r["tokens"]), str(r["hidden"]), str(r["past"]), str(r["capacity"])))
            if not tr:
                continue
            us = float(tr["us"])
            best = min(r["eager_us"], r["compile_us"], r["eager_causal_us"],
                       r["compile_causal_us"])
            print(f"{r['tokens']}x{r['hidden']}x{r['past']}x{r['capacity']:<6} {tr['kernels']:>7s} {us:9.1f}"
                  f" {float(tr['pct_copy']):5.1f}% {r['eager_us']:9.1f} {r['compile_us']:10.1f}"
                  f" {r['eager_causal_us']:10.1f} {r['compile_causal_us']:10.1f}"
                  f" {best / us:10.2f}")


if __name__ == "__main__":
    sys.exit(main())
