#!/usr/bin/env python3
"""Writes small synthetic .d4rframe files, to smoke-test train.py without d4r's renderer.

Each frame's truth is a sharp HDR image (a gradient background, random rectangles and discs, thin
lines, a few highlights above 1), and its "core output" is the truth blurred (3x3 box, twice) with a
little noise: the network has something to learn (sharpening). Real training data comes from
`d4r demo --scene train-<seed> --dump-frames DIR` (README.md).

Usage: synth_frames.py OUT_DIR [--count 4] [--size 100x76] [--seed 0]
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from frames import write_frame  # noqa: E402


def synth_truth(rng, w, h):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.empty((h, w, 3), np.float32)
    base = rng.uniform(0.05, 0.6, 3)
    tilt = rng.uniform(-0.3, 0.3, 3)
    for c in range(3):
        img[:, :, c] = base[c] * (1.0 + tilt[c] * (xx / w - 0.5))
    for _ in range(rng.randint(4, 9)):
        colour = rng.uniform(0.0, 1.5, 3)
        x0, y0 = rng.randint(0, w), rng.randint(0, h)
        if rng.rand() < 0.5:
            x1, y1 = x0 + rng.randint(4, w // 2), y0 + rng.randint(4, h // 2)
            img[y0:y1, x0:x1] = colour
        else:
            r = rng.randint(3, max(4, min(w, h) // 4))
            img[(xx - x0) ** 2 + (yy - y0) ** 2 <= r * r] = colour
    for _ in range(rng.randint(2, 5)):  # thin lines: what blurring loses first
        if rng.rand() < 0.5:
            img[rng.randint(0, h), :] = rng.uniform(0.0, 2.0, 3)
        else:
            img[:, rng.randint(0, w)] = rng.uniform(0.0, 2.0, 3)
    for _ in range(3):  # highlights
        img[rng.randint(0, h), rng.randint(0, w)] = rng.uniform(4.0, 40.0, 3)
    return img


def box_blur(img):
    p = np.pad(img, ((1, 1), (1, 1), (0, 0)), mode="edge")
    h, w = img.shape[:2]
    return sum(p[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)) / 9.0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=4)
    ap.add_argument("--size", default="100x76", help="WxH (default 100x76)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    w, h = (int(s) for s in args.size.lower().split("x"))
    rng = np.random.RandomState(args.seed)
    os.makedirs(args.out, exist_ok=True)
    for i in range(args.count):
        truth = synth_truth(rng, w, h)
        output = box_blur(box_blur(truth)) + rng.normal(0.0, 0.005, truth.shape).astype(np.float32)
        path = os.path.join(args.out, f"synth-{i:04d}.d4rframe")
        write_frame(path, output, truth, exposure=float(rng.uniform(0.5, 2.0)), index=i)
    print(f"wrote {args.count} frames of {w}x{h} to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
