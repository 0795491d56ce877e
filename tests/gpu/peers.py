"""PyTorch eager and torch.compile timings of tilec's example ops (GPU machine).

Same definitions as tilec's op library (compute in f32, result in the input
dtype), same shapes, timed with triton.testing.do_bench (median, CUDA events),
inputs rotated over several sets so L2 does not serve them.
"""
import argparse
import csv
import sys
import time

import torch
import triton.testing


def rms_norm(x, w):
    xf = x.float()
    r = torch.rsqrt((xf * xf).mean(-1, keepdim=True) + 1e-6)
    return (xf * r * w.float()).to(x.dtype)


def add_rms_norm(x, res, w):
    h = x + res
    return rms_norm(h, w), h


def layer_norm(x, w, b):
    xf = x.float()
    mu = xf.mean(-1, keepdim=True)
    d = xf - mu
    var = (d * d).mean(-1, keepdim=True)
    return (d * torch.rsqrt(var + 1e-5) * w.float() + b.float()).to(x.dtype)


def softmax(x):
    xf = x.float()
    e = torch.exp(xf - xf.amax(-1, keepdim=True))
    return (e / e.sum(-1, keepdim=True)).to(x.dtype)


def silu_mul(a, b):
    return (torch.nn.functional.silu(a.float()) * b.float()).to(a.dtype)


def elementwise_chain(x, y):
    return torch.sigmoid(x) * y + torch.nn.functional.gelu(x, approximate="tanh") - x


def rope(x, cos, sin):
    xf = x.float()
    h = xf.shape[-1] // 2
    rot = torch.cat((-xf[..., h:], xf[..., :h]), dim=-1)
    return (xf * cos.float() + rot * sin.float()).to(x.dtype)


def heads_rms_norm(x, w):
    # [tokens, heads, head_dim] -> [heads, tokens, head_dim], then the norm
    # (a new tensor, like tilec's transpose).
    return rms_norm(x.transpose(0, 1), w)


def transpose(x):
    # [rows, cols] -> [cols, rows], a new tensor.
    return x.transpose(0, 1).contiguous()


def shape_of(kind, r, c):
    """Like tilec's examples: rope is [r, c / 128 heads, 128], cos/sin [r, 1, 128]."""
    hd = 128 if c % 128 == 0 else c
    return {"rc": (r, c), "c": (c,), "x3": (r, c // hd, hd), "t3": (r, 1, hd),
            "hd": (hd,)}[kind]


OPS = {
    "rms_norm": (rms_norm, ["rc", "c"]),
    "add_rms_norm": (add_rms_norm, ["rc", "rc", "c"]),
    "layer_norm": (layer_norm, ["rc", "c", "c"]),
    "softmax": (softmax, ["rc"]),
    "silu_mul": (silu_mul, ["rc", "rc"]),
    "elementwise_chain": (elementwise_chain, ["rc", "rc"]),
    "rope": (rope, ["x3", "t3", "t3"]),
    "heads_rms_norm": (heads_rms_norm, ["x3", "hd"]),
    "transpose": (transpose, ["rc"]),
}
# Issue 3's ops (the default); heads_rms_norm and transpose run when asked for.
ISSUE3_OPS = ["rms_norm", "add_rms_norm", "layer_norm", "softmax", "silu_mul",
              "elementwise_chain", "rope"]
DTYPES = {"bf16": torch.bfloat16, "f32": torch.float32, "f16": torch.float16}


def issue_shapes(op, tokens):
    """Issue 3's shapes, as tilec's examples::issueShapes lists them: hidden
    4096 and 8192; softmax also 32768 and 131072 (not 16384 x 131072);
    silu_mul [tokens, 14336]; rope [tokens, 32 heads, 128]."""
    cols = {"softmax": [4096, 8192, 32768, 131072], "silu_mul": [14336],
            "rope": [4096]}.get(op, [4096, 8192])
    return [f"{t}x{c}" for t in tokens for c in cols if not (t >= 16384 and c >= 131072)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", default=",".join(ISSUE3_OPS))
    ap.add_argument("--dtypes", default="bf16,f32")
    ap.add_argument("--shapes", default="8192x4096,4096x8192,16384x4096")
    ap.add_argument("--compile", default="bf16", help="dtypes to also run torch.compile on")
    ap.add_argument("--csv", default="")
    ap.add_argument("--grid", default="", help="issue3: each op at issue 3's shapes")
    ap.add_argument("--tokens", default="1,16,4096,16384")
    args = ap.parse_args()
    out = open(args.csv, "w", newline="") if args.csv else None
    writer = None
    for op in args.ops.split(","):
        fn, kinds = OPS[op]
        compiled = torch.compile(fn)
        for dt in args.dtypes.split(","):
            shapes = (issue_shapes(op, [int(t) for t in args.tokens.split(",")])
                      if args.grid == "issue3" else args.shapes.split(","))
            for shape in shapes:
                r, c = map(int, shape.split("x"))
                dtype = DTYPES[dt]
                sets = []
                nbytes = 0
                for s in range(4):
                    ins = [torch.rand(shape_of(k, r, c), device="cuda",
                                      dtype=dtype) * 4 - 2 for k in kinds]
                    sets.append(ins)
                nbytes = sum(t.numel() * t.element_size() for t in sets[0])
                outs = fn(*sets[0])
                outs = outs if isinstance(outs, tuple) else (outs,)
                nbytes += sum(t.numel() * t.element_size() for t in outs)
                state = {"i": 0}

                def call(f):
                    def run():
                        state["i"] = (state["i"] + 1) % len(sets)
                        f(*sets[state["i"]])
                    return run

                eager = triton.testing.do_bench(call(fn), warmup=25, rep=100, return_mode="median")
                comp = float("nan")
                if dt in args.compile.split(","):
                    t0 = time.time()
                    compiled(*sets[0])
                    torch.cuda.synchronize()
                    comp = triton.testing.do_bench(call(compiled), warmup=25, rep=100,
                                                   return_mode="median")
                row = dict(op=op, dtype=dt, rows=r, cols=c, eager_us=eager * 1e3,
                           compile_us=comp * 1e3, bytes=nbytes)
                if out:  # written row by row: a timeout keeps what was measured
                    if writer is None:
                        writer = csv.DictWriter(out, fieldnames=list(row))
                        writer.writeheader()
                    writer.writerow(row)
                    out.flush()
                print(f"{op:18s} {dt:5s} {shape:12s} eager {eager*1e3:9.2f} us"
                      f"  compile {comp*1e3:9.2f} us", flush=True)
    if out:
        out.close()


if __name__ == "__main__":
    sys.exit(main())
