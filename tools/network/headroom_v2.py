#!/usr/bin/env python3
"""Headroom of a refinement network that sees the core's inputs and intermediates (refine-v2), measured.

headroom.py bounds a network that sees only the core's output. This script reads version 2 frame dumps
(`d4r demo --dump-frames DIR --dump-inputs`: the core's output and truth plus its render-resolution colour, depth,
motion, jitter and the accumulate step's intermediates, docs/demo.md) and measures, per evaluation scene, in
display-domain PSNR (frames.display_np) over the last 8 of 16 frames:

  core     the core's output (O)
  (a)      the best K x K residual filter of O alone (headroom.py's, one kernel for the three channels)
  (b)      the best K x K residual filter over O, the reprojected history before the clamp (H, O where the core
           used no history), the core's own reconstruction of this frame (C) and the render colour upsampled
           bilinearly at its jittered sample positions (U); also O+H and O+U alone, to see which input carries
           the gain. (a) and (b) are fitted on the scene itself (an oracle) and on train scenes (realistic)
  (c)      per-pixel oracle blend: the best alpha in [0, 1] between H and O at every pixel (the ceiling of a network
           that only chooses that blend); (c3) the best convex combination of O, H and C at every pixel
  (d)      a small CNN (four 3x3 conv layers, 32 channels, residual on O) trained on the train scenes' frames for
           --cnn-seconds each on the CPU (batches of 16 crops of 48x48, Adam 1e-3), with O alone, with O + history terms, and with every input; also its
           tPSNR (frame-to-frame change against the truth's, as the demo computes it); "blend" is the same network
           with every input whose output is per-pixel softmax weights over O, H, the clamped history, C and U

    for S in city orbit text train-1 train-2 train-3; do
        d4r demo --scene $S --backend cpu --frames 16 --translated-frames 0 --no-images --dump-frames DIR --dump-inputs
    done
    /usr/bin/python3 tools/network/headroom_v2.py DIR [--k 7] [--train train-1,train-2,train-3] [--eval city,orbit,text]
"""

import argparse
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from frames import TERMS, display_np, read_frame, working_to_linear  # noqa: E402

T = {name: i for i, name in enumerate(TERMS)}


def upsample_render(img, width, height, jitter_x, jitter_y):
    """(h, w, C) render-resolution values -> (C, height, width), bilinear at each output pixel centre's position in
    the jittered render grid (render pixel i holds the scene at i + 0.5 + jitter)."""
    h, w = img.shape[:2]
    sx, sy = w / width, h / height
    u = (torch.arange(width, dtype=torch.float64) + 0.5) * sx - 0.5 - jitter_x  # continuous render index
    v = (torch.arange(height, dtype=torch.float64) + 0.5) * sy - 0.5 - jitter_y
    gx = ((2 * u + 1) / w - 1).float()
    gy = ((2 * v + 1) / h - 1).float()
    grid = torch.stack(torch.meshgrid(gy, gx, indexing="ij")[::-1], dim=-1)[None]
    src = torch.from_numpy(np.ascontiguousarray(img, dtype=np.float32)).permute(2, 0, 1)[None]
    return F.grid_sample(src, grid, mode="bilinear", padding_mode="border", align_corners=False)[0]


def load_frame(path):
    """One version 2 dump as a dict of (C, H, W) float32 tensors in the display domain (colours) or as is."""
    fr = read_frame(path, mmap=False)
    if fr.inputs is None:
        raise SystemExit(f"{path}: a version 1 dump; make the dumps with d4r demo --dump-frames DIR --dump-inputs")
    e, i = fr.exposure, fr.inputs
    t = i.terms.astype(np.float32)
    to = lambda a: torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32)).permute(2, 0, 1)  # noqa: E731
    o = to(display_np(fr.output, e))
    r = torch.from_numpy(t[..., T["reprojected"]])[None]
    h = to(display_np(working_to_linear(t[..., T["hist_y"]:T["hist_cg"] + 1], e), e))
    h = torch.where(r > 0, h, o)  # no history: H is the output
    hc = torch.where(r > 0, to(display_np(working_to_linear(t[..., T["clamped_y"]:T["clamped_cg"] + 1], e), e)), o)
    c = to(display_np(working_to_linear(t[..., T["cur_y"]:T["cur_cg"] + 1], e), e))
    u = torch.from_numpy(display_np(upsample_render(i.color.astype(np.float32), fr.width, fr.height, i.jitter_x,
                                                    i.jitter_y).permute(1, 2, 0).numpy(), e)).permute(2, 0, 1)
    d = i.depth.astype(np.float32)
    gx = np.zeros_like(d)
    gy = np.zeros_like(d)
    gx[:, 1:-1] = (d[:, 2:] - d[:, :-2]) / 2
    gy[1:-1] = (d[2:] - d[:-2]) / 2
    dg = np.sqrt(gx * gx + gy * gy) / np.maximum(d, 1e-6)  # relative depth gradient: edges
    dg = upsample_render(np.minimum(dg, 1.0)[..., None], fr.width, fr.height, i.jitter_x, i.jitter_y)
    data = {
        "Y": to(display_np(fr.truth, e)), "O": o, "H": h, "Hc": hc, "C": c, "U": u.contiguous(),
        "r": r, "a": torch.from_numpy(t[..., T["alpha"]])[None], "cov": torch.from_numpy(t[..., T["coverage"]])[None],
        "hw": torch.from_numpy(np.minimum(t[..., T["hist_weight"]], 12.0) / 12.0)[None], "dg": dg,
    }
    for name, v in data.items():
        bad = int((~torch.isfinite(v)).sum())
        if bad:
            print(f"{path}: {bad} non-finite values in {name}, set to 0", flush=True)
            data[name] = torch.nan_to_num(v, nan=0.0, posinf=0.0, neginf=0.0)
    return data


def load(folder, scene, frames):
    out = {}
    for k in frames:
        f = load_frame(os.path.join(folder, f"{scene}-f{k:03d}.d4rframe"))
        for name, v in f.items():
            out.setdefault(name, []).append(v)
    return {name: torch.stack(v) for name, v in out.items()}


def psnr(a, b):
    """Mean over frames of the display PSNR (a, b: (N, 3, H, W))."""
    return (10 * torch.log10(1 / ((a.double() - b.double()) ** 2).mean(dim=(1, 2, 3)))).mean().item()


def tpsnr(a, b):
    """Mean over frames 1.. of the PSNR of the frame-to-frame change of a against b's (the demo's tPSNR)."""
    da, db = a[1:].double() - a[:-1].double(), b[1:].double() - b[:-1].double()
    return (10 * torch.log10(1 / ((da - db) ** 2).mean(dim=(1, 2, 3)))).mean().item()


# ---- (a), (b): residual K x K filters, one kernel per input image shared by the three channels ----

def gather(img, k, ys, xs):
    """(H, W) image -> (len(ys), k*k): the K x K neighbourhoods (edge pixels repeated) at the sampled pixels."""
    p = k // 2
    padded = F.pad(img[None, None], (p, p, p, p), mode="replicate")[0, 0]
    return torch.stack([padded[ys + dy, xs + dx] for dy in range(k) for dx in range(k)], dim=1)


def fit_filter(data, inputs, k, step=11):
    """Least squares (normal equations in f64) of Y - O on the K x K neighbourhoods of each input, every STEP-th
    pixel of every frame and channel."""
    n = len(inputs) * k * k
    xtx = torch.zeros(n, n, dtype=torch.float64)
    xty = torch.zeros(n, dtype=torch.float64)
    frames, _, height, width = data["O"].shape
    idx = torch.arange(0, height * width, step)
    ys, xs = idx // width, idx % width
    for f in range(frames):
        for c in range(3):
            x = torch.cat([gather(data[name][f, c], k, ys, xs) for name in inputs], dim=1).double()
            y = (data["Y"][f, c] - data["O"][f, c])[ys, xs].double()
            xtx += x.T @ x
            xty += x.T @ y
    return torch.linalg.solve(xtx + 1e-6 * torch.eye(n, dtype=torch.float64), xty)


def apply_filter(data, inputs, w, k):
    p = k // 2
    out = data["O"].clone()
    for j, name in enumerate(inputs):
        kern = w[j * k * k:(j + 1) * k * k].float().reshape(1, 1, k, k)
        src = data[name].reshape(-1, 1, *data[name].shape[2:])
        out += F.conv2d(F.pad(src, (p, p, p, p), mode="replicate"), kern).reshape(out.shape)
    return out.clamp(0, 1)


# ---- (c): per-pixel oracle blends ----

def oracle_blend(o, h, y):
    """Per pixel the best alpha in [0, 1] of alpha * H + (1 - alpha) * O against Y (3 channels)."""
    d = h - o
    alpha = ((d * (y - o)).sum(1, keepdim=True) / (d * d).sum(1, keepdim=True).clamp_min(1e-12)).clamp(0, 1)
    return o + alpha * d


def oracle_simplex(p0, p1, p2, y):
    """Per pixel the best convex combination of three images against Y: the interior least-squares solution when it
    lies in the simplex, else the best point on its three edges."""
    a, b, r = p1 - p0, p2 - p0, y - p0
    aa, bb, ab = (a * a).sum(1, keepdim=True), (b * b).sum(1, keepdim=True), (a * b).sum(1, keepdim=True)
    ar, br = (a * r).sum(1, keepdim=True), (b * r).sum(1, keepdim=True)
    det = (aa * bb - ab * ab)
    ok = det.abs() > 1e-12
    s = torch.where(ok, (ar * bb - br * ab) / det.where(ok, torch.ones_like(det)), torch.zeros_like(det))
    t = torch.where(ok, (br * aa - ar * ab) / det.where(ok, torch.ones_like(det)), torch.zeros_like(det))
    inside = ok & (s >= 0) & (t >= 0) & (s + t <= 1)
    best = p0 + s * a + t * b
    err = torch.where(inside, ((best - y) ** 2).sum(1, keepdim=True), torch.full_like(s, float("inf")))
    for u, v in ((p0, p1), (p0, p2), (p1, p2)):
        cand = oracle_blend(u, v, y)
        e = ((cand - y) ** 2).sum(1, keepdim=True)
        take = e < err
        best = torch.where(take, cand, best)
        err = torch.where(take, e, err)
    return best


def box(img, k):
    """K x K box blur with edge pixels repeated (controls: images made from O alone)."""
    p = k // 2
    flat = img.reshape(-1, 1, *img.shape[2:])
    return F.avg_pool2d(F.pad(flat, (p, p, p, p), mode="replicate"), k, stride=1).reshape(img.shape)


# ---- (d): a small CNN ----

CNN_INPUTS = {
    "O": [],
    "O+hist": ["H", "Hc", "r", "a", "hw"],
    "all": ["H", "Hc", "C", "U", "r", "a", "cov", "hw", "dg"],
    "blend": ["H", "Hc", "C", "U", "r", "a", "cov", "hw", "dg"],  # every input; outputs blend weights
}
BLEND_CANDIDATES = ["O", "H", "Hc", "C", "U"]


def features(data, extra, sl=slice(None)):
    """Network input: O, then each extra image (colours as differences to O, so zero means 'agrees')."""
    o = data["O"][sl]
    parts = [o - 0.5]
    for name in extra:
        v = data[name][sl]
        parts.append(v - o if v.shape[1] == 3 else v)
    return torch.cat(parts, dim=1)


class SmallCnn(nn.Module):
    def __init__(self, cin, width=32):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(cin, width, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(width, 3, 3, padding=1))
        nn.init.zeros_(self.body[-1].weight)
        nn.init.zeros_(self.body[-1].bias)

    def forward(self, x, o):
        return o + self.body(x)


class BlendCnn(nn.Module):
    """The same body, but its output is per-pixel softmax weights over BLEND_CANDIDATES (starting at O alone)."""

    def __init__(self, cin, width=32):
        super().__init__()
        self.body = SmallCnn(cin, width).body
        self.body[-1] = nn.Conv2d(width, len(BLEND_CANDIDATES), 3, padding=1)
        nn.init.zeros_(self.body[-1].weight)
        with torch.no_grad():
            self.body[-1].bias.copy_(torch.tensor([4.0] + [0.0] * (len(BLEND_CANDIDATES) - 1)))

    def forward(self, x, cands):
        w = torch.softmax(self.body(x), dim=1)
        return (w[:, :, None] * cands).sum(1)


def net_out(net, data, extra, sl=slice(None)):
    x = features(data, extra, sl)
    if isinstance(net, BlendCnn):
        return net(x, torch.stack([data[n][sl] for n in BLEND_CANDIDATES], dim=1))
    return net(x, data["O"][sl])


def train_cnn(train, extra, seconds, max_steps=0, seed=1, crop=48, batch=16, blend=False):
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    cin = 3 + sum(train[name].shape[1] for name in extra)
    net = BlendCnn(cin) if blend else SmallCnn(cin)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    n, _, height, width = train["O"].shape
    start, steps, losses = time.time(), 0, []
    while time.time() - start < seconds and (max_steps == 0 or steps < max_steps):
        fi = torch.randint(0, n, (batch,), generator=gen)
        ys = torch.randint(0, height - crop + 1, (batch,), generator=gen)
        xs = torch.randint(0, width - crop + 1, (batch,), generator=gen)
        crops = {name: torch.stack([train[name][f, :, y:y + crop, x:x + crop] for f, y, x in zip(fi, ys, xs)])
                 for name in set(["O", "Y"] + extra)}
        pred = net_out(net, crops, extra)
        loss = ((pred - crops["Y"]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), 0.1)
        opt.step()
        steps += 1
        losses.append(loss.item())
        if not math.isfinite(losses[-1]):
            raise SystemExit(f"CNN {extra}: loss {losses[-1]} at step {steps}")
    return net, steps, float(np.mean(losses[-200:]))


@torch.no_grad()
def apply_cnn(net, data, extra):
    outs = [net_out(net, data, extra, slice(f, f + 1)).clamp(0, 1) for f in range(data["O"].shape[0])]
    return torch.cat(outs)


START = time.time()


def log(what):
    print(f"[{time.time() - START:6.0f} s] {what}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("frames", help="folder of version 2 SCENE-fNNN.d4rframe files (d4r demo --dump-inputs)")
    ap.add_argument("--k", type=int, default=7, help="filter size of (a) and (b) (odd, default 7)")
    ap.add_argument("--train", default="train-1,train-2,train-3", help="scenes to fit on (realistic figures)")
    ap.add_argument("--train-frames", default="4-15", help="frames of each train scene (FIRST-LAST, default 4-15)")
    ap.add_argument("--eval", default="city,orbit,text", help="scenes to evaluate (frames 8-15; 7 for tPSNR)")
    ap.add_argument("--cnn-seconds", type=float, default=150, help="training time of each CNN (0: skip (d))")
    ap.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    ap.add_argument("--cnn-steps", type=int, default=0,
                    help="train each CNN for this many steps (within --cnn-seconds; 0: as many as fit)")
    ap.add_argument("--cnn", default="O,O+hist,all,blend", help="CNN variants of (d) (default O,O+hist,all,blend)")
    ap.add_argument("--cnn-only", action="store_true", help="skip (a), (b), (c): only the core and the CNNs")
    a = ap.parse_args()
    if a.k < 1 or a.k % 2 == 0:
        ap.error(f"--k {a.k}: a positive odd number")
    first, last = (int(v) for v in a.train_frames.split("-"))
    torch.set_num_threads(a.threads)
    k = a.k
    sets_b = {"O+H": ["O", "H"], "O+U": ["O", "U"], "O+H+C+U": ["O", "H", "C", "U"]}

    t0 = time.time()
    train_scenes = [load(a.frames, s, range(first, last + 1)) for s in a.train.split(",")]
    train = {name: torch.cat([t[name] for t in train_scenes]) for name in train_scenes[0]}
    del train_scenes
    print(f"loaded {train['O'].shape[0]} train frames ({a.train}, frames {first}-{last}) in {time.time() - t0:.0f} s",
          flush=True)
    if not a.cnn_only:
        w_train = {"O": fit_filter(train, ["O"], k)}
        for label, inputs in sets_b.items():
            w_train[label] = fit_filter(train, inputs, k)
        log("linear filters fitted on the train frames")
    nets = {}
    if a.cnn_seconds > 0:
        for label in a.cnn.split(","):
            extra = CNN_INPUTS[label]
            t1 = time.time()
            nets[label] = train_cnn(train, extra, a.cnn_seconds, a.cnn_steps, blend=label == "blend")
            print(f"CNN {label}: {nets[label][1]} steps of 16 crops of 48x48 in {time.time() - t1:.0f} s, "
                  f"training MSE of the last 200 {nets[label][2]:.3g}", flush=True)
    del train

    rows = []
    for s in a.eval.split(","):
        data = load(a.frames, s, range(7, 16))  # frame 7 only for the tPSNR of frame 8
        ev = {name: v[1:] for name, v in data.items()}
        log(f"{s}: loaded")
        y = ev["Y"]
        row = {"scene": s, "core": psnr(ev["O"], y), "core_t": tpsnr(data["O"], data["Y"])}
        if not a.cnn_only:
            row["a_train"] = psnr(apply_filter(ev, ["O"], w_train["O"], k), y)
            row["a_oracle"] = psnr(apply_filter(ev, ["O"], fit_filter(ev, ["O"], k), k), y)
            for label, inputs in sets_b.items():
                row[f"b_train {label}"] = psnr(apply_filter(ev, inputs, w_train[label], k), y)
                row[f"b_oracle {label}"] = psnr(apply_filter(ev, inputs, fit_filter(ev, inputs, k), k), y)
            log(f"{s}: linear filters")
            row["c_blend"] = psnr(oracle_blend(ev["O"], ev["H"], y), y)
            row["c_simplex"] = psnr(oracle_simplex(ev["O"], ev["H"], ev["C"], y), y)
            # Controls: the same per-pixel freedom over images made from O alone (no new information).
            b3, b7 = box(ev["O"], 3), box(ev["O"], 7)
            row["c_blend control"] = psnr(oracle_blend(ev["O"], b3, y), y)
            row["c_simplex control"] = psnr(oracle_simplex(ev["O"], b3, b7, y), y)
            row["c_simplex O,Hc,C"] = psnr(oracle_simplex(ev["O"], ev["Hc"], ev["C"], y), y)
            row["c_simplex O,H,U"] = psnr(oracle_simplex(ev["O"], ev["H"], ev["U"], y), y)
            log(f"{s}: oracle blends")
        row["reprojected"] = ev["r"].mean().item()
        for label, (net, _, _) in nets.items():
            out = apply_cnn(net, data, CNN_INPUTS[label])
            row[f"d {label}"] = psnr(out[1:], y)
            row[f"d_t {label}"] = tpsnr(out, data["Y"])
        log(f"{s}: CNNs applied")
        rows.append(row)
        print(" ".join(f"{key}={v:.2f}" if isinstance(v, float) else f"{key}={v}" for key, v in row.items()),
              flush=True)

    print(f"\ndisplay PSNR, dB, mean of frames 8-15 (change against the core); K = {k}; "
          f"train: {a.train} frames {first}-{last}")
    keys = [key for key in rows[0] if key not in ("scene", "core_t", "reprojected") and not key.startswith("d_t")]
    print(f"| {'':22s} | " + " | ".join(f"{r['scene']:>15s}" for r in rows) + " |")
    for key in keys:
        cells = [f"{r[key]:.2f}" + ("" if key == "core" else f" ({r[key] - r['core']:+.2f})") for r in rows]
        print(f"| {key:22s} | " + " | ".join(f"{c:>15s}" for c in cells) + " |")
    print(f"| {'tPSNR core':22s} | " + " | ".join(f"{r['core_t']:15.2f}" for r in rows) + " |")
    for label in nets:
        print(f"| {'tPSNR d ' + label:22s} | " + " | ".join(
            f"{r[f'd_t {label}']:.2f} ({r[f'd_t {label}'] - r['core_t']:+.2f})".rjust(15) for r in rows) + " |")
    print(f"| {'pixels reprojected':22s} | " + " | ".join(f"{100 * r['reprojected']:14.1f}%" for r in rows) + " |")
    if not all(math.isfinite(r["core"]) for r in rows):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
