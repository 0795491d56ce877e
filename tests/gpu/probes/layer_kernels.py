"""The decoder layer's peers kernel by kernel: torch.profiler over calls of
peers_layer.py's layer (torch.compile with SDPA's causal kernels by
default; --eager for eager), each kernel's mean device time a call, the
largest first. Usage: python3 layer_kernels.py TxHxP [--eager] [--calls N]."""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import peers_layer  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shape")
    ap.add_argument("--eager", action="store_true")
    ap.add_argument("--calls", type=int, default=20)
    args = ap.parse_args()
    t, hidden, past = map(int, args.shape.split("x"))
    xs = peers_layer.inputs(t, hidden, past)
    fn = peers_layer.layer_causal if args.eager else torch.compile(peers_layer.layer_causal)
    with torch.no_grad():
        for _ in range(5):
            fn(*xs)
        torch.cuda.synchronize()
        acts = [torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=acts) as prof:
            for _ in range(args.calls):
                fn(*xs)
            torch.cuda.synchronize()
    rows = []
    for e in prof.key_averages():
        us = e.self_device_time_total / args.calls
        if us > 0:
            rows.append((us, e.count / args.calls, e.key))
    rows.sort(reverse=True)
    total = sum(r[0] for r in rows)
    print(f"{'eager' if args.eager else 'compile'} causal layer {args.shape}: "
          f"{total:.1f} us of kernels a call")
    for us, n, name in rows:
        print(f"{us:9.1f} us {n:4.1f}x  {name[:110]}")


if __name__ == "__main__":
    main()
