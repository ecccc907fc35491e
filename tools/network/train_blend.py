#!/usr/bin/env python3
"""refine-v2 experiment: train networks that predict per-pixel blend weights over the core's candidates, measured.

headroom_v2.py showed (models/README.md, "Headroom with the core's inputs") that a small CNN fed the core's inputs and
accumulate intermediates (version 2 frame dumps, `d4r demo --dump-frames DIR --dump-inputs`) and made to output
per-pixel softmax weights over the core's candidate images (output O, pre-clamp history H, clamped history Hc, the
core's reconstruction C, the upsampled render colour U) gained +0.49/+0.88/+0.36 dB on city/orbit/text after 905 CPU
steps on three training scenes, with a per-pixel oracle ceiling of about +4 dB. This script is the larger experiment:
it loads every version 2 dump of the training scenes under FRAMES (train-*, frames --train-frames of each; the
evaluation scenes are refused), trains each VARIANT for a time or step budget on the GPU (CPU works, slowly), and
evaluates each on the held-out scenes exactly as headroom_v2.py does: display PSNR (frames.display_np) of the clamped
output, mean of frames 8-15 of 16; tPSNR (the demo's frame-to-frame change against the truth's, frame 7 as the
first previous frame); SSIM as the demo computes it (src/image/metrics.h: luma, 11x11 Gaussian, sigma 1.5, edges
clamped). It prints a table core vs each variant per scene, the mean blend weight each variant gives each candidate,
and writes SUMMARY (JSON).

Variants (--variants, comma separated; names below) differ in size, receptive field, output and inputs:

  blend32      headroom_v2's BlendCnn: 4 conv 3x3, 32 channels (receptive field 9 px), inputs 'all' (O, H, Hc, C, U,
               reprojected, alpha, coverage, history weight, depth gradient), weights over O, H, Hc, C, U
  blend64      8 conv 3x3, 64 channels, the middle six dilated 1,2,4,8,4,2 with residual connections (receptive field
               47 px), same inputs and candidates
  blend64geo   blend64 with depth and motion vectors (upsampled) as inputs too
  blend64res   blend64geo plus a colour residual added after the blend (head starts at zero)
  blend64noU   blend64geo without the render colour U: not as input, not as candidate (what the core's terms alone give)
  blend64noH   blend64geo without the pre-clamp history H (input and candidate): what the unclamped history is worth
  res64        control: blend64geo's body with a colour residual on O and no blend weights
  winres       refine-v1's transformer (4x4 patches, 8x8-token windows, channels 32/64/32) on blend64res's inputs,
               its head giving blend64res's outputs (weights over O, H, Hc, C, U and a residual) per patch pixel
  win64res     winres with channels 64/128/64
  winmlp       winres whose head gives 16 context channels per pixel, then a per-pixel MLP (1x1 convolutions: the
               pixel's own inputs and its context -> 32 -> 32 -> blend logits and residual)
  win64mlp     winmlp with channels 64/128/64 and a per-pixel MLP of 48
  winrestone   winres with its colour inputs, candidates and residual in the tone domain (the sRGB curve undone),
               the result sRGB-encoded for the loss and the scores

    d4r demo --scene S --frames 16 --translated-frames 0 --no-images --dump-frames DIR --dump-inputs   # each S
    python3 tools/network/train_blend.py DIR [--variants blend32,blend64] [--seconds 60] [--summary out.json]

Seeds: torch's and the crop order follow --seed; cuDNN is deterministic and torch.use_deterministic_algorithms is
on (warn-only). With --steps alone (--seconds 0) a run is reproducible step for step; with a time budget the cosine
schedule runs over min(--steps, the steps that fit) as measured by the elapsed time, so the step count depends on
the machine (it is printed).
"""

import argparse
import concurrent.futures
import json
import math
import os
import re
import sys
import time
import warnings
from collections import OrderedDict

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # deterministic cuBLAS; before torch touches CUDA

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from frames import TERMS, read_frame  # noqa: E402
from headroom_v2 import oracle_simplex, psnr, tpsnr  # noqa: E402
import refine_model as rm  # noqa: E402

T = {name: i for i, name in enumerate(TERMS)}
# read_frame(mmap=False) gives read-only arrays; they are only read (copied to the device or to float32).
warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
EVAL_SCENES = ("city", "orbit", "text")

# Planes of a loaded frame, in order, and their channel counts. Colours are display values (frames.display_np of
# the linear colour with the frame's exposure), as headroom_v2.load_frame makes them.
PLANES = (("Y", 3), ("O", 3), ("H", 3), ("Hc", 3), ("C", 3), ("U", 3), ("r", 1), ("a", 1), ("cov", 1), ("hw", 1),
          ("dg", 1), ("depth", 1), ("mv", 2))
SLICE = {}
_at = 0
for _name, _n in PLANES:
    SLICE[_name] = slice(_at, _at + _n)
    _at += _n
NPLANES = _at
COLOURS = ("O", "H", "Hc", "C", "U")

BASE = ["H", "Hc", "C", "U", "r", "a", "cov", "hw", "dg"]  # headroom_v2's 'all' / 'blend' inputs
GEO = BASE + ["depth", "mv"]
VARIANTS = {
    "blend32": dict(width=32, layers=4, dilated=False, inputs=BASE, cands=["O", "H", "Hc", "C", "U"], residual=False),
    "blend64": dict(width=64, layers=8, dilated=True, inputs=BASE, cands=["O", "H", "Hc", "C", "U"], residual=False),
    "blend64geo": dict(width=64, layers=8, dilated=True, inputs=GEO, cands=["O", "H", "Hc", "C", "U"], residual=False),
    "blend64res": dict(width=64, layers=8, dilated=True, inputs=GEO, cands=["O", "H", "Hc", "C", "U"], residual=True),
    "blend64noU": dict(width=64, layers=8, dilated=True, inputs=[n for n in GEO if n != "U"],
                       cands=["O", "H", "Hc", "C"], residual=False),
    "blend64noH": dict(width=64, layers=8, dilated=True, inputs=[n for n in GEO if n != "H"],
                       cands=["O", "Hc", "C", "U"], residual=False),
    "res64": dict(width=64, layers=8, dilated=True, inputs=GEO, cands=[], residual=True),
    # refine-v1's window-attention transformer (refine_model.py) fed blend64res's inputs per 4x4 patch, its head
    # giving blend64res's outputs per patch pixel: the transformer form of refine-v2 (c1/c2: the channels of the
    # full- and half-resolution token grids, heads of 32 channels)
    "winres": dict(kind="window", c1=32, c2=64, inputs=GEO, cands=["O", "H", "Hc", "C", "U"], residual=True),
    "win64res": dict(kind="window", c1=64, c2=128, inputs=GEO, cands=["O", "H", "Hc", "C", "U"], residual=True),
    # winres whose head gives 16 context channels per pixel, and a per-pixel MLP (the pixel's own features and that
    # context -> hidden -> hidden -> blend logits and residual): the transformer with per-pixel capacity
    "winmlp": dict(kind="window", c1=32, c2=64, inputs=GEO, cands=["O", "H", "Hc", "C", "U"], residual=True,
                   pixel=32),
    "win64mlp": dict(kind="window", c1=64, c2=128, inputs=GEO, cands=["O", "H", "Hc", "C", "U"], residual=True,
                     pixel=48),
    # winres in the tone domain (reinhard x / (1 + x) of the exposed linear colour, without the sRGB curve): what a
    # runtime that avoids pow() would compute
    "winrestone": dict(kind="window", c1=32, c2=64, inputs=GEO, cands=["O", "H", "Hc", "C", "U"], residual=True,
                       domain="tone"),
}
DILATIONS = (1, 2, 4, 8, 4, 2, 1, 1, 1, 1, 1, 1)


# ---- loading: headroom_v2.load_frame's planes, computed with torch on DEVICE ----

def display_t(linear, exposure):
    """frames.display_np in torch: srgb_encode(reinhard(max(0, linear * exposure)))."""
    x = torch.nan_to_num(linear.float() * exposure, nan=0.0, posinf=3.0e38, neginf=0.0).clamp_min(0.0)
    x = (x / (1.0 + x)).clamp(0.0, 1.0)
    return torch.where(x <= 0.0031308, 12.92 * x, 1.055 * torch.pow(x.clamp_min(0.0031308), 1.0 / 2.4) - 0.055)


def working_to_linear_t(ycocg, exposure):
    """frames.working_to_linear in torch; ycocg (3, H, W) -> linear RGB (3, H, W)."""
    y, co, cg = ycocg[0], ycocg[1], ycocg[2]
    t = y - cg
    rgb = torch.stack([t + co, y + cg, t - co]).clamp(0.0, 1.0)
    return rgb / ((1.0 - rgb.amax(dim=0, keepdim=True)).clamp_min(1.0 / 4096.0) * exposure)


def upsample_t(img, width, height, jitter_x, jitter_y):
    """headroom_v2.upsample_render in torch on img's device: (C, h, w) -> (C, height, width)."""
    h, w = img.shape[1:]
    sx, sy = w / width, h / height
    u = (torch.arange(width, dtype=torch.float64, device=img.device) + 0.5) * sx - 0.5 - jitter_x
    v = (torch.arange(height, dtype=torch.float64, device=img.device) + 0.5) * sy - 0.5 - jitter_y
    gx = ((2 * u + 1) / w - 1).float()
    gy = ((2 * v + 1) / h - 1).float()
    grid = torch.stack(torch.meshgrid(gy, gx, indexing="ij")[::-1], dim=-1)[None]
    return F.grid_sample(img[None].float(), grid, mode="bilinear", padding_mode="border", align_corners=False)[0]


def frame_planes(fr, device):
    """One read version 2 Frame -> (NPLANES, H, W) float32 on DEVICE, planes as PLANES (headroom_v2.load_frame's
    values, plus the upsampled depth and motion). Non-finite values become 0 (the core's black left-column pixels
    hold a NaN alpha, models/README.md)."""
    if fr.inputs is None:
        raise SystemExit(f"{fr.path}: a version 1 dump; make the dumps with d4r demo --dump-frames DIR --dump-inputs")
    e, i = fr.exposure, fr.inputs
    g = lambda a: torch.from_numpy(np.ascontiguousarray(a)).to(device).float()  # noqa: E731
    terms = g(i.terms).permute(2, 0, 1)
    o = display_t(g(fr.output).permute(2, 0, 1), e)
    r = terms[T["reprojected"]][None]
    h = torch.where(r > 0, display_t(working_to_linear_t(terms[T["hist_y"]:T["hist_cg"] + 1], e), e), o)
    hc = torch.where(r > 0, display_t(working_to_linear_t(terms[T["clamped_y"]:T["clamped_cg"] + 1], e), e), o)
    c = display_t(working_to_linear_t(terms[T["cur_y"]:T["cur_cg"] + 1], e), e)
    up = lambda a: upsample_t(a, fr.width, fr.height, i.jitter_x, i.jitter_y)  # noqa: E731
    u = display_t(up(g(i.color).permute(2, 0, 1)), e)
    d = g(i.depth)
    gx = torch.zeros_like(d)
    gy = torch.zeros_like(d)
    gx[:, 1:-1] = (d[:, 2:] - d[:, :-2]) / 2
    gy[1:-1] = (d[2:] - d[:-2]) / 2
    dg = up((torch.sqrt(gx * gx + gy * gy) / d.clamp_min(1e-6)).clamp_max(1.0)[None])
    mv = (up(g(i.motion).permute(2, 0, 1)) / 8.0).clamp(-4.0, 4.0)  # render pixels / 8
    planes = torch.cat([display_t(g(fr.truth).permute(2, 0, 1), e), o, h, hc, c, u, r, terms[T["alpha"]][None],
                        terms[T["coverage"]][None], (terms[T["hist_weight"]].clamp_max(12.0) / 12.0)[None], dg,
                        up(d[None]), mv])
    assert planes.shape[0] == NPLANES
    return torch.nan_to_num(planes, nan=0.0, posinf=0.0, neginf=0.0)


def scene_files(folder, scene, frames):
    paths = [os.path.join(folder, f"{scene}-f{k:03d}.d4rframe") for k in frames]
    for p in paths:
        if not os.path.exists(p):  # make-training-data.sh writes DIR/SCENE/SCENE-fNNN.d4rframe
            alt = os.path.join(folder, scene, os.path.basename(p))
            if not os.path.exists(alt):
                raise SystemExit(f"missing {p}")
    return [p if os.path.exists(p) else os.path.join(folder, scene, os.path.basename(p)) for p in paths]


def load_stack(paths, device, dtype, threads=8):
    """The frames at PATHS as one (N, NPLANES, H, W) tensor of DTYPE on DEVICE; files are read by THREADS threads,
    at most 2 * THREADS ahead."""
    out = None
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        for start in range(0, len(paths), 2 * threads):
            chunk = paths[start:start + 2 * threads]
            for j, fr in enumerate(pool.map(lambda p: read_frame(p, mmap=False), chunk)):
                planes = frame_planes(fr, device).to(dtype)
                if out is None:
                    out = torch.empty((len(paths),) + tuple(planes.shape), dtype=dtype, device=device)
                out[start + j] = planes
    return out


def train_scenes(folder):
    """The train-<seed> scenes with dumps under FOLDER (flat or one folder per scene), sorted by seed."""
    seeds = set()
    for _, _, files in os.walk(folder):
        for name in files:
            m = re.fullmatch(r"train-(\d+)-f\d{3}\.d4rframe", name)
            if m:
                seeds.add(int(m.group(1)))
    return [f"train-{s}" for s in sorted(seeds)]


# ---- networks ----

def features(batch, inputs):
    """Network input from a (B, NPLANES, h, w) batch: O - 0.5, then each input (colours as differences to O)."""
    o = batch[:, SLICE["O"]]
    parts = [o - 0.5]
    for name in inputs:
        v = batch[:, SLICE[name]]
        parts.append(v - o if name in COLOURS else v)
    return torch.cat(parts, dim=1)


def in_channels(inputs):
    return 3 + sum(SLICE[n].stop - SLICE[n].start for n in inputs)


class BlendNet(nn.Module):
    """Conv body (3x3; dilated with residual connections when DILATED) whose head gives per-pixel softmax weights over
    CANDS (starting near O alone) and/or a colour residual (starting at zero)."""

    def __init__(self, width, layers, dilated, inputs, cands, residual):
        super().__init__()
        self.inputs, self.cands, self.residual, self.dilated = list(inputs), list(cands), residual, dilated
        self.first = nn.Conv2d(in_channels(inputs), width, 3, padding=1)
        dil = DILATIONS[:layers - 2] if dilated else (1,) * (layers - 2)
        self.mid = nn.ModuleList(nn.Conv2d(width, width, 3, padding=d, dilation=d) for d in dil)
        self.head = nn.Conv2d(width, len(cands) + (3 if residual else 0), 3, padding=1)
        nn.init.zeros_(self.head.weight)
        with torch.no_grad():
            self.head.bias.zero_()
            if cands:
                self.head.bias[0] = 4.0  # O first: weight e^4 / (e^4 + n - 1)
        self.receptive = 1 + 2 * (2 + sum(dil))

    def forward(self, batch):
        x = F.relu(self.first(features(batch, self.inputs)))
        for conv in self.mid:
            y = F.relu(conv(x))
            x = x + y if self.dilated else y
        return blend_output(self.head(x).float(), batch, self.cands, self.residual)


def blend_output(z, batch, cands, residual):
    """A head's per-pixel output z (B, len(cands) + 3 * residual, h, w) applied: softmax weights over the candidate
    images of batch, then the colour residual. Returns (output, weights or None)."""
    n = len(cands)
    if n:
        w = torch.softmax(z[:, :n], dim=1)
        images = torch.stack([batch[:, SLICE[c]].float() for c in cands], dim=1)  # (B, n, 3, h, w)
        out = (w[:, :, None] * images).sum(1)
    else:
        w, out = None, batch[:, SLICE["O"]].float()
    if residual:
        out = out + z[:, n:n + 3]
    return out, w


def srgb_decode_t(x):
    """The inverse of display_t's sRGB curve on [0, 1]."""
    x = x.clamp(0.0, 1.0)
    return torch.where(x <= 0.04045, x / 12.92, torch.pow((x.clamp_min(0.04045) + 0.055) / 1.055, 2.4))


def srgb_encode_t(x):
    x = x.clamp(0.0, 1.0)
    return torch.where(x <= 0.0031308, 12.92 * x, 1.055 * torch.pow(x.clamp_min(0.0031308), 1.0 / 2.4) - 0.055)


def to_tone(batch):
    """A batch with its colour planes (display values) taken to the tone domain; the other planes as they are."""
    parts = []
    for name, _ in PLANES:
        v = batch[:, SLICE[name]]
        parts.append(srgb_decode_t(v.float()).to(v.dtype) if name in COLOURS else v)
    return torch.cat(parts, dim=1)


class WinBlendNet(nn.Module):
    """refine-v1's structure (refine_model.py: 4x4 patches, window attention, merge, expand, skip) over the features
    of INPUTS; the head gives, per patch pixel, blend logits over CANDS (starting near O alone) and a residual."""

    CONTEXT = 16  # context channels per pixel from the head when there is a per-pixel MLP

    def __init__(self, kind, c1, c2, inputs, cands, residual, domain="display", pixel=0):
        super().__init__()
        assert kind == "window" and domain in ("display", "tone")
        self.tone = domain == "tone"
        self.inputs, self.cands, self.residual, self.c1 = list(inputs), list(cands), residual, c1
        self.nin = in_channels(inputs)
        self.nout = len(cands) + (3 if residual else 0)
        scale = rm.DEFAULT_LOGIT_SCALE
        pp = rm.PATCH * rm.PATCH
        self.embed = nn.Linear(pp * self.nin, c1)
        self.enc1 = rm.Block(c1, c1 // rm.HEAD_DIM, scale)
        self.merge = nn.Linear(4 * c1, c2)
        self.enc2 = rm.Block(c2, c2 // rm.HEAD_DIM, scale)
        self.expand = nn.Linear(c2, 4 * c1)
        self.dec1 = rm.Block(c1, c1 // rm.HEAD_DIM, scale)
        self.pixel = pixel
        if pixel:
            self.head = nn.Linear(c1, pp * self.CONTEXT)
            self.mlp1 = nn.Conv2d(self.nin + self.CONTEXT, pixel, 1)
            self.mlp2 = nn.Conv2d(pixel, pixel, 1)
            self.out = nn.Conv2d(pixel, self.nout, 1)
        else:
            self.head = nn.Linear(c1, pp * self.nout)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02, a=-0.04, b=0.04)
                nn.init.zeros_(m.bias)
        last = self.out if pixel else self.head
        nn.init.zeros_(last.weight)
        nn.init.zeros_(last.bias)
        with torch.no_grad():
            if cands:  # (patch channel (dy*4 + dx) * nout + c without the MLP): O first at every pixel
                last.bias.view(-1, self.nout)[:, 0] = 4.0
        # Attention reaches a window: 8 tokens of 4 px at full resolution, of 8 px after the merge.
        self.receptive = rm.WINDOW * rm.PATCH * 2

    def forward(self, batch):
        if self.tone:
            batch = to_tone(batch)
        x = features(batch, self.inputs)
        h, w = x.shape[-2:]
        ph, pw = (-h) % 8, (-w) % 8
        if ph or pw:
            x = F.pad(x, (0, pw, 0, ph), mode="replicate")
        e1 = self.enc1(self.embed(rm.patchify(x)))
        m = self.enc2(self.merge(rm.merge_tokens(e1)))
        d = self.dec1(rm.expand_tokens(self.expand(m), self.c1) + e1)
        if self.pixel:
            ctx = rm.unpatchify(self.head(d), self.CONTEXT)
            y = F.relu(self.mlp1(torch.cat([x, ctx.to(x.dtype)], dim=1)))
            z = self.out(F.relu(self.mlp2(y))).float()[:, :, :h, :w]
        else:
            z = rm.unpatchify(self.head(d).float(), self.nout)[:, :, :h, :w]
        out, weights = blend_output(z, batch, self.cands, self.residual)
        return (srgb_encode_t(out) if self.tone else out), weights


def flip(batch):
    """Horizontal flip of a batch; the motion vectors' x component changes sign."""
    b = batch.flip(-1)
    mv = SLICE["mv"].start
    return torch.cat([b[:, :mv], -b[:, mv:mv + 1], b[:, mv + 1:]], dim=1)


def train_variant(name, train, a, device, log):
    cfg = VARIANTS[name]
    torch.manual_seed(a.seed)
    gen = torch.Generator(device="cpu").manual_seed(a.seed)
    net = (WinBlendNet(**cfg) if cfg.get("kind") == "window" else BlendNet(**cfg)).to(device)
    if name in a.init_from:  # continue from a saved state_dict or a refine-v2 file of this variant (--init)
        path = a.init_from[name]
        if path.endswith(".d4rnet"):
            left = load_v2(net, path)
        else:
            left = load_matching(net, torch.load(path, map_location=device))
        log(f"{name}: starting from {path}" + (f" (not from it, initialised: {', '.join(left)})" if left else ""))
    params = sum(p.numel() for p in net.parameters())
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)
    n, _, height, width = train.shape
    crop = min(a.crop, height, width)
    use_amp = device.type == "cuda"
    start, step, losses = time.time(), 0, []
    steps = a.steps
    while True:
        elapsed = time.time() - start
        progress = step / steps
        if a.seconds > 0:
            progress = max(progress, elapsed / a.seconds)
        if progress >= 1.0:
            break
        warm = min(1.0, (step + 1) / 100)
        for group in opt.param_groups:
            group["lr"] = a.lr * warm * 0.5 * (1 + math.cos(math.pi * progress))
        fi = torch.randint(0, n, (a.batch,), generator=gen).tolist()
        ys = torch.randint(0, height - crop + 1, (a.batch,), generator=gen).tolist()
        xs = torch.randint(0, width - crop + 1, (a.batch,), generator=gen).tolist()
        batch = torch.stack([train[f, :, y:y + crop, x:x + crop] for f, y, x in zip(fi, ys, xs)]).float()
        flips = torch.rand(a.batch, generator=gen) < 0.5
        if flips.any():
            idx = flips.nonzero()[:, 0].to(device)
            batch[idx] = flip(batch[idx])
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=use_amp):
            pred, _ = net(batch)
        loss = ((pred - batch[:, SLICE["Y"]]) ** 2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), 0.5)
        opt.step()
        step += 1
        if step % 50 == 0 or step == 1:
            value = loss.item()
            losses.append(value)
            if not math.isfinite(value):
                raise SystemExit(f"{name}: loss {value} at step {step}")
            if step % a.log_every == 0:
                log(f"{name}: step {step} loss {value:.3g} lr {opt.param_groups[0]['lr']:.2e}")
    seconds = time.time() - start
    log(f"{name}: {step} steps of {a.batch} crops of {crop}x{crop} in {seconds:.0f} s, {params} parameters, "
        f"receptive field {net.receptive} px, last loss {np.mean(losses[-10:]):.3g}")
    return net, dict(steps=step, seconds=round(seconds, 1), params=params, receptive_px=net.receptive,
                     loss=float(np.mean(losses[-10:])), **{k: v for k, v in cfg.items()})


# ---- evaluation ----

def gaussian_window(device):
    x = torch.arange(11, dtype=torch.float64, device=device) - 5
    g = torch.exp(-x * x / (2 * 1.5 * 1.5))
    return g / g.sum()


def ssim(a, b):
    """Mean over frames of the demo's SSIM (src/image/metrics.h) of display images a, b: (N, 3, H, W)."""
    w = gaussian_window(a.device)
    lw = torch.tensor([0.2126, 0.7152, 0.0722], dtype=torch.float64, device=a.device)[None, :, None, None]

    def blur(x):  # separable 11x11, borders clamped to the edge
        x = F.pad(x, (5, 5, 0, 0), mode="replicate")
        x = F.conv2d(x, w.reshape(1, 1, 1, 11))
        x = F.pad(x, (0, 0, 5, 5), mode="replicate")
        return F.conv2d(x, w.reshape(1, 1, 11, 1))

    out = []
    for f in range(a.shape[0]):
        # The demo's luma is f32 of f32 display values; the statistics are f64.
        x = (a[f:f + 1].float() * lw.float()).sum(1, keepdim=True).double()
        y = (b[f:f + 1].float() * lw.float()).sum(1, keepdim=True).double()
        mx, my = blur(x), blur(y)
        vx, vy, cov = blur(x * x) - mx * mx, blur(y * y) - my * my, blur(x * y) - mx * my
        c1, c2 = 0.01 ** 2, 0.03 ** 2
        out.append((((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))).mean().item())
    return float(np.mean(out))


@torch.no_grad()
def apply_net(net, data, tile=0):
    """The network on every frame of data (N, NPLANES, H, W), in f32; returns the clamped output and the mean blend
    weight of each candidate."""
    outs, wsum = [], None
    for f in range(data.shape[0]):
        out, w = net(data[f:f + 1].float())
        outs.append(out.clamp(0, 1))
        if w is not None:
            m = w.mean(dim=(0, 2, 3)).double()
            wsum = m if wsum is None else wsum + m
    weights = {} if wsum is None else {c: round(float(v) / data.shape[0], 4) for c, v in zip(net.cands, wsum)}
    return torch.cat(outs), weights


def metrics(out, truth):
    """PSNR and SSIM over frames 1.. of out (frame 0 is frame 7, the first previous frame), tPSNR over all."""
    return dict(psnr=psnr(out[1:], truth[1:]), ssim=ssim(out[1:], truth[1:]), tpsnr=tpsnr(out, truth))


START = time.time()


def log(what):
    print(f"[{time.time() - START:6.0f} s] {what}", flush=True)


# ---- export: a window variant's state_dict as a refine-v2 model file ----

V2_ARCH = "refine-v2"
V2_DIMS = dict(c1=64, c2=128)  # the C++ side's kRefineV2 (src/network/model_file.h)


def v2_tensors(net):
    """The file tensors of a WinBlendNet with refine-v2's shape (win64res): refine-v1's names in its order, the
    logit scale folded into the q rows of every qkv (export.model_tensors' rule), f16."""
    from export import model_tensors
    if net.pixel or net.tone or (net.c1, net.enc2.ln1.weight.numel()) != (V2_DIMS["c1"], V2_DIMS["c2"]) \
            or net.inputs != GEO or net.cands != ["O", "H", "Hc", "C", "U"] or not net.residual:
        raise SystemExit("refine-v2 is win64res's shape (channels 64/128, GEO inputs, the five candidates and a "
                         "residual, display domain, no per-pixel MLP)")

    class Shaped:  # what model_tensors reads: named_parameters and logit_scale, with refine-v2's shapes
        logit_scale = rm.DEFAULT_LOGIT_SCALE

        def named_parameters(self):
            return net.named_parameters()

    shapes = OrderedDict()
    params = dict(net.named_parameters())
    for name in rm.expected_tensors():
        shapes[name] = tuple(params[rm.file_name_to_parameter(name)].shape)
    return model_tensors(Shaped(), shapes)


def load_v2(net, path):
    """Sets a WinBlendNet to a refine-v2 file's weights (the logit scale taken back out of the q rows): the inverse of
    v2_tensors up to the f16 rounding for win64res. A network of another shape with the same trunk (win64mlp) takes
    the tensors whose shapes match; returns the names of those it did not take."""
    from export import read_model
    tensors = read_model(path, expect_arch=V2_ARCH)
    params = dict(net.named_parameters())
    skipped = []
    with torch.no_grad():
        for name, value in tensors.items():
            v = torch.from_numpy(value.astype(np.float32))
            if name.endswith(".qkv.w") or name.endswith(".qkv.b"):
                v[: v.shape[0] // 3] /= rm.DEFAULT_LOGIT_SCALE
            target = params.get(rm.file_name_to_parameter(name))
            if target is None or target.shape != v.shape:
                skipped.append(name)
                continue
            target.copy_(v)
    return skipped


def load_matching(net, state):
    """Loads the entries of the state_dict STATE whose names and shapes NET has; returns those it did not take and
    NET's own it did not find (a checkpoint of another variant with the same trunk)."""
    own = net.state_dict()
    taken = {k: v for k, v in state.items() if k in own and own[k].shape == v.shape}
    net.load_state_dict(taken, strict=False)
    return [k for k in state if k not in taken] + [k for k in own if k not in state]


def export_v2(checkpoint, variant, out):
    """Writes VARIANT's state_dict CHECKPOINT as a refine-v2 model file OUT; returns its size."""
    from export import write_model
    net = WinBlendNet(**VARIANTS[variant])
    net.load_state_dict(torch.load(checkpoint, map_location="cpu"))
    return write_model(out, v2_tensors(net), V2_ARCH)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("frames", help="folder of version 2 dumps (SCENE-fNNN.d4rframe, flat or in SCENE/ folders)")
    ap.add_argument("--variants", default="blend32,blend64,blend64geo,blend64res,blend64noU",
                    help=f"comma-separated, of {', '.join(VARIANTS)}")
    ap.add_argument("--train", default="", help="train scenes (default: every train-<seed> under FRAMES)")
    ap.add_argument("--train-frames", default="4-15", help="frames of each train scene, FIRST-LAST (default 4-15)")
    ap.add_argument("--eval", default=",".join(EVAL_SCENES), help="held-out scenes (frames 7-15: 8-15 scored)")
    ap.add_argument("--seconds", type=float, default=60, help="training time of each variant (0: --steps only)")
    ap.add_argument("--steps", type=int, default=100000, help="step budget; the cosine schedule's length")
    ap.add_argument("--until", type=float, default=0,
                    help="a wall-clock deadline (Unix time): after loading, each variant gets an equal share of the "
                         "time left before it, less --eval-reserve, instead of --seconds")
    ap.add_argument("--eval-reserve", type=float, default=60, help="seconds kept for the evaluation with --until")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--crop", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3, help="peak learning rate (AdamW, 100 warm-up steps, cosine)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", default="", help="cuda or cpu (default: cuda when there is one)")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    ap.add_argument("--io-threads", type=int, default=8, help="threads reading dump files")
    ap.add_argument("--log-every", type=int, default=1000)
    ap.add_argument("--summary", default="", help="write the results as JSON here")
    ap.add_argument("--save", default="", help="folder for each variant's state_dict (VARIANT.pt)")
    ap.add_argument("--init", action="append", default=[], metavar="VARIANT=CHECKPOINT",
                    help="start VARIANT from a state_dict saved by --save or a refine-v2 file, instead of its "
                         "initialisation: every tensor whose name and shape VARIANT has (so win64mlp can start from "
                         "win64res's trunk; the log names the rest) (repeatable)")
    ap.add_argument("--export", nargs=2, metavar=("CHECKPOINT", "OUT"),
                    help="write the state_dict CHECKPOINT of the one variant --variants names (win64res's shape) as "
                         "a refine-v2 model file OUT, and do nothing else")
    a = ap.parse_args(argv)
    a.init_from = {}
    for item in a.init:
        variant, _, path = item.partition("=")
        if variant not in VARIANTS or not path:
            ap.error(f"--init {item!r}: expected VARIANT=CHECKPOINT with VARIANT one of {', '.join(VARIANTS)}")
        if not os.path.exists(path):
            ap.error(f"--init {item!r}: {path} does not exist")
        a.init_from[variant] = path
    if a.export:
        if "," in a.variants:
            ap.error("--export needs the checkpoint's variant alone in --variants")
        size = export_v2(a.export[0], a.variants, a.export[1])
        print(f"{a.export[1]}: refine-v2, {size} bytes")
        return 0
    for v in a.variants.split(","):
        if v not in VARIANTS:
            ap.error(f"unknown variant {v!r}")
    if a.threads:
        torch.set_num_threads(a.threads)
    device = torch.device(a.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    torch.use_deterministic_algorithms(True, warn_only=True)
    store = torch.float16 if device.type == "cuda" else torch.float32

    scenes = a.train.split(",") if a.train else train_scenes(a.frames)
    bad = [s for s in scenes if s in EVAL_SCENES or not s.startswith("train-")]
    if bad or not scenes:
        ap.error(f"train scenes must be train-<seed> scenes, never the evaluation scenes (got {scenes})")
    first, last = (int(v) for v in a.train_frames.split("-"))
    paths = [p for s in scenes for p in scene_files(a.frames, s, range(first, last + 1))]
    log(f"device {device}" + (f" ({torch.cuda.get_device_name(device)})" if device.type == "cuda" else "")
        + f"; loading {len(paths)} train frames of {len(scenes)} scenes ({scenes[0]}..{scenes[-1]}, frames "
          f"{first}-{last})")
    train = load_stack(paths, device, store, a.io_threads)
    log(f"train frames loaded: {tuple(train.shape)} {store}, {train.numel() * train.element_size() / 2**30:.1f} GiB")

    results = dict(train_scenes=scenes, train_frames=[first, last], frames_loaded=len(paths), device=str(device),
                   settings=dict(batch=a.batch, crop=a.crop, lr=a.lr, seed=a.seed, seconds=a.seconds, steps=a.steps),
                   variants={}, scenes={})
    nets = {}
    names = a.variants.split(",")
    for j, v in enumerate(names):
        if a.until:
            a.seconds = max(10.0, (a.until - time.time() - a.eval_reserve) / (len(names) - j))
            log(f"{v}: {a.seconds:.0f} s of training (deadline)")
        nets[v], info = train_variant(v, train, a, device, log)
        results["variants"][v] = info
        if a.save:
            os.makedirs(a.save, exist_ok=True)
            torch.save(nets[v].state_dict(), os.path.join(a.save, f"{v}.pt"))
    del train
    if device.type == "cuda":
        torch.cuda.empty_cache()

    for s in a.eval.split(","):
        data = load_stack(scene_files(a.frames, s, range(7, 16)), device, torch.float32, a.io_threads)
        y = data[:, SLICE["Y"]]
        row = {"core": metrics(data[:, SLICE["O"]], y)}
        row["U"] = metrics(data[:, SLICE["U"]], y)
        ev = data[1:]
        row["oracle O,H,C"] = {"psnr": psnr(oracle_simplex(ev[:, SLICE["O"]], ev[:, SLICE["H"]], ev[:, SLICE["C"]],
                                                           ev[:, SLICE["Y"]]), ev[:, SLICE["Y"]])}
        for v, net in nets.items():
            out, weights = apply_net(net, data)
            row[v] = metrics(out, y)
            row[v]["weights"] = weights
        results["scenes"][s] = row
        log(f"{s}: " + ", ".join(f"{k} {r['psnr']:.2f}" for k, r in row.items()))
        del data

    rows = list(results["scenes"].items())
    print(f"\nheld-out scenes, mean of frames 8-15: PSNR dB / SSIM / tPSNR dB (change against the core); "
          f"train: {len(scenes)} scenes x frames {first}-{last}")
    print(f"| {'':12s} | " + " | ".join(f"{s:^36s}" for s, _ in rows) + " |")
    for key in ["core", "U", "oracle O,H,C"] + list(nets):
        cells = []
        for _, r in rows:
            m, c = r[key], r["core"]
            if key == "core":
                cells.append(f"{m['psnr']:.2f} / {m['ssim']:.4f} / {m['tpsnr']:.2f}")
            elif "ssim" not in m:
                cells.append(f"{m['psnr']:.2f} ({m['psnr'] - c['psnr']:+.2f})")
            else:
                cells.append(f"{m['psnr'] - c['psnr']:+.2f} / {m['ssim'] - c['ssim']:+.4f} / "
                             f"{m['tpsnr'] - c['tpsnr']:+.2f}")
        print(f"| {key:12s} | " + " | ".join(f"{c:^36s}" for c in cells) + " |")
    for v in nets:
        info = results["variants"][v]
        gains = [r[v]["psnr"] - r["core"]["psnr"] for _, r in rows]
        info["mean_gain_db"] = float(np.mean(gains))
        print(f"{v}: {info['steps']} steps in {info['seconds']:.0f} s, {info['params']} parameters, receptive field "
              f"{info['receptive_px']} px, mean PSNR gain {info['mean_gain_db']:+.2f} dB; mean blend weights "
              + "; ".join(f"{s} " + " ".join(f"{c}={w:.2f}" for c, w in r[v]["weights"].items()) for s, r in rows))
    if a.summary:
        with open(a.summary, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if all(math.isfinite(r["core"]["psnr"]) for _, r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
