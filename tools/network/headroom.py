#!/usr/bin/env python3
"""How much a linear filter of the core's output could gain: the headroom of a network that sees only that output.

For each evaluation scene, the display-domain PSNR (frames.display_np) of the core's output against the truth over
the last 8 of 16 frames, then of the output after the best K x K residual filter (one kernel for the three channels,
least squares on every 11th pixel) fitted (a) on training scenes' frames and (b) on the scene's own frames (an
oracle: the most any such filter can give there).

    d4r demo --scene S --backend cpu --frames 16 --translated-frames 0 --no-images --dump-frames DIR   (each scene)
    /usr/bin/python3 tools/network/headroom.py DIR [--k 7] [--train train-1,train-2,train-3] [--eval city,orbit,text]
"""

import argparse
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from frames import display_np, read_frame  # noqa: E402


def load(folder, scene, frames):
    outs, truths = [], []
    for i in frames:
        f = read_frame(os.path.join(folder, f"{scene}-f{i:03d}.d4rframe"))
        outs.append(display_np(f.output.astype(np.float32), f.exposure))
        truths.append(display_np(f.truth.astype(np.float32), f.exposure))
    to = lambda a: torch.tensor(np.stack(a)).permute(0, 3, 1, 2)  # noqa: E731
    return to(outs), to(truths)


def psnr(a, b):
    return (10 * torch.log10(1 / ((a - b) ** 2).mean(dim=(1, 2, 3)))).mean().item()


def fit(x, y, k):
    p = k // 2
    rows, rhs = [], []
    xx = x.reshape(-1, 1, *x.shape[2:])
    r = (y - x).reshape(-1, 1, *x.shape[2:])
    for i in range(xx.shape[0]):
        cols = F.unfold(F.pad(xx[i:i + 1], (p, p, p, p), mode="replicate"), k)[0]
        rows.append(cols[:, ::11].T.double())
        rhs.append(r[i].reshape(-1)[::11].double())
    return torch.linalg.lstsq(torch.cat(rows), torch.cat(rhs)).solution


def apply(x, w, k):
    p = k // 2
    xx = F.pad(x.reshape(-1, 1, *x.shape[2:]), (p, p, p, p), mode="replicate")
    return (x + F.conv2d(xx, w.float().reshape(1, 1, k, k)).reshape(x.shape)).clamp(0, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("frames", help="folder of SCENE-fNNN.d4rframe files (d4r demo --dump-frames)")
    ap.add_argument("--k", type=int, default=7, help="filter size (odd, default 7)")
    ap.add_argument("--train", default="train-1,train-2,train-3", help="scenes to fit (a) on")
    ap.add_argument("--eval", default="city,orbit,text", help="scenes to evaluate")
    a = ap.parse_args()
    if a.k < 1 or a.k % 2 == 0:
        ap.error(f"--k {a.k}: a positive odd number")
    train = [load(a.frames, s, range(4, 16)) for s in a.train.split(",")]
    w = fit(torch.cat([t[0] for t in train]), torch.cat([t[1] for t in train]), a.k)
    print(f"{'scene':8s} {'core':>8s} {'train-fit':>10s} {'oracle':>8s}   (display PSNR, dB, last 8 of 16 frames)")
    for s in a.eval.split(","):
        x, y = load(a.frames, s, range(8, 16))
        print(f"{s:8s} {psnr(x, y):8.2f} {psnr(apply(x, w, a.k), y):10.2f} {psnr(apply(x, fit(x, y, a.k), a.k), y):8.2f}")


if __name__ == "__main__":
    main()
