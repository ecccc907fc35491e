"""refine-v1 in PyTorch: the training-side model of d4r's refinement network (docs/network.md).

The network refines the output of d4r's temporal upscaler. It takes the core's output image
(N, 3, H, W, linear light) and returns the refined linear image of the same size:

    tone -> edge-pad to multiples of 8 -> 4x4 patches (48 ch) -> embed 48->32 -> enc1 (C=32, 1 head)
    -> merge 2x2 tokens, linear 128->64 -> enc2 (C=64, 2 heads) -> expand 64->128, depth-to-space
    -> + enc1's output -> dec1 (C=32, 1 head) -> head 32->48 = residual per patch pixel -> untone

Token grids are kept as (N, rows, columns, channels) tensors, which flattened row-major are the
doc's `token = ty * width + tx`, channels innermost. Channel orders are the doc's:
`(dy*4 + dx)*3 + c` for patches and `(dy*2 + dx)*32 + c` for merge and expand.

Transformer blocks are pre-norm (layernorm eps 1e-5) with attention in 8x8-token windows aligned to
the token grid; windows at the right and bottom edge may be partial and the tokens outside the grid
are masked out as keys. Logits are q.k * logit_scale + relbias[head][(yi-yj+7)*15 + (xi-xj+7)].
For training logit_scale is 1/sqrt(32); the exporter (export.py) folds it into the q rows of every
qkv, and a model loaded from a file is built with logit_scale = 1 (the file's values are used as is).

This is a float32 model (bf16 autocast is fine for training); it is *not* the bit-exact f16 reference
of docs/network.md ("Numerics"), which is the C++ side's. `round_f16 = True` rounds the tensors
between steps to f16, which brings the results closer to the C++ numerics without matching them.

The module also holds the doc's table of tensors (`expected_tensors`) and the mapping from the
file's tensor names to this module's parameters (`file_name_to_parameter`).
"""

import math
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

ARCH = "refine-v1"
PATCH = 4           # pixels per patch side
WINDOW = 8          # tokens per attention window side
HEAD_DIM = 32       # channels per attention head
UNTONE_MAX = 0.999  # untone clamps to this; a pixel already at or above it keeps its value
DEFAULT_LOGIT_SCALE = 1.0 / math.sqrt(HEAD_DIM)

# (name, C, heads) of the three transformer blocks, in network order.
BLOCKS = (("enc1", 32, 1), ("enc2", 64, 2), ("dec1", 32, 1))
# (name, out, in) of the linears outside the blocks.
LINEARS = (("embed", 32, 48), ("merge", 64, 128), ("expand", 128, 64), ("head", 48, 32))


def expected_tensors(c1=32, c2=64, patch_in=48, head_out=48):
    """The doc's tensor table: OrderedDict name -> shape, in the order the exporter writes them
    (network order: embed, enc1, merge, enc2, expand, dec1, head). The defaults are refine-v1's channels;
    refine-v2 has the same names with c1=64, c2=128, patch_in=368, head_out=128 (heads of 32 channels)."""
    out = OrderedDict()

    def linear(name, o, i):
        out[name + ".w"] = (o, i)
        out[name + ".b"] = (o,)

    def block(name, c, heads):
        out[name + ".ln1.g"] = (c,)
        out[name + ".ln1.b"] = (c,)
        linear(name + ".qkv", 3 * c, c)
        out[name + ".relbias"] = (heads, 225)
        linear(name + ".proj", c, c)
        out[name + ".ln2.g"] = (c,)
        out[name + ".ln2.b"] = (c,)
        linear(name + ".fc1", 2 * c, c)
        linear(name + ".fc2", c, 2 * c)

    linear("embed", c1, patch_in)
    block("enc1", c1, c1 // HEAD_DIM)
    linear("merge", c2, 4 * c1)
    block("enc2", c2, c2 // HEAD_DIM)
    linear("expand", 4 * c1, c2)
    block("dec1", c1, c1 // HEAD_DIM)
    linear("head", head_out, c1)
    return out


def file_name_to_parameter(name):
    """Maps a file tensor name (`enc1.ln1.g`, `head.w`, `enc2.relbias`) to the module's parameter
    name (`enc1.ln1.weight`, `head.weight`, `enc2.attn.relbias`)."""
    parts = name.split(".")
    last = parts[-1]
    if last == "relbias":
        return ".".join(parts[:-1] + ["attn", "relbias"])
    if len(parts) == 3 and parts[1] in ("qkv", "proj"):
        parts = [parts[0], "attn"] + parts[1:]
        last = parts[-1]
    suffix = {"w": "weight", "g": "weight", "b": "bias"}[last]
    return ".".join(parts[:-1] + [suffix])


# ---------------------------------------------------------------------------------------------
# tone, untone, patches


def tone(v):
    """tone(v) = c / (1 + c), c = max(0, v); NaN becomes 0. +inf is taken as f16's largest value
    (the doc leaves it open; untone then keeps such a pixel's own value)."""
    c = torch.nan_to_num(v, nan=0.0, posinf=65504.0, neginf=0.0).clamp(min=0.0)
    return c / (1.0 + c)


def untone(x, r, v):
    """x' = clamp(x + r, 0, 0.999), v' = x' / (1 - x'); where x >= 0.999 the input value v is kept.
    Applied per channel value."""
    xp = (x + r).clamp(0.0, UNTONE_MAX)
    return torch.where(x >= UNTONE_MAX, v, xp / (1.0 - xp))


def patchify(x):
    """(N, 3, H8, W8) -> (N, H8/4, W8/4, 48), channel (dy*4 + dx)*3 + c."""
    n, c, h, w = x.shape
    t = x.reshape(n, c, h // PATCH, PATCH, w // PATCH, PATCH)  # n c ty dy tx dx
    return t.permute(0, 2, 4, 3, 5, 1).reshape(n, h // PATCH, w // PATCH, PATCH * PATCH * c)


def unpatchify(t, channels=3):
    """(N, Ht, Wt, 48) -> (N, 3, 4 Ht, 4 Wt), the inverse of patchify."""
    n, ht, wt, _ = t.shape
    x = t.reshape(n, ht, wt, PATCH, PATCH, channels)  # n ty tx dy dx c
    return x.permute(0, 5, 1, 3, 2, 4).reshape(n, channels, ht * PATCH, wt * PATCH)


def merge_tokens(t):
    """(N, H, W, C) -> (N, H/2, W/2, 4C), channel (dy*2 + dx)*C + c."""
    n, h, w, c = t.shape
    t = t.reshape(n, h // 2, 2, w // 2, 2, c)  # n ty dy tx dx c
    return t.permute(0, 1, 3, 2, 4, 5).reshape(n, h // 2, w // 2, 4 * c)


def expand_tokens(t, c):
    """(N, H, W, 4C) -> (N, 2H, 2W, C): channel (dy*2 + dx)*C + c goes to token (2tx+dx, 2ty+dy)."""
    n, h, w, _ = t.shape
    t = t.reshape(n, h, w, 2, 2, c)  # n ty tx dy dx c
    return t.permute(0, 1, 3, 2, 4, 5).reshape(n, 2 * h, 2 * w, c)


# ---------------------------------------------------------------------------------------------
# window attention


def relative_index():
    """(64, 64) long tensor: the relbias table index (yi - yj + 7) * 15 + (xi - xj + 7) for query i
    and key j, both row-major in the window."""
    pos = torch.arange(WINDOW * WINDOW)
    y, x = pos // WINDOW, pos % WINDOW
    return (y[:, None] - y[None, :] + 7) * 15 + (x[:, None] - x[None, :] + 7)


class WindowAttention(nn.Module):
    """qkv -> attention in 8x8-token windows with a relative position bias -> proj."""

    def __init__(self, c, heads, logit_scale):
        super().__init__()
        assert c == heads * HEAD_DIM
        self.c, self.heads, self.logit_scale = c, heads, logit_scale
        self.qkv = nn.Linear(c, 3 * c)
        self.proj = nn.Linear(c, c)
        self.relbias = nn.Parameter(torch.zeros(heads, 225))
        self.register_buffer("rel_index", relative_index(), persistent=False)
        self.keep_attention = False  # tests: keep the last probabilities in self.last_attention
        self.last_attention = None

    def forward(self, h):
        n, rows, cols, c = h.shape
        wy, wx = -(-rows // WINDOW), -(-cols // WINDOW)
        pr, pc = wy * WINDOW - rows, wx * WINDOW - cols
        qkv = self.qkv(h)
        if pr or pc:  # absent tokens: zeros (their v reads as 0; as keys they are masked below)
            qkv = F.pad(qkv, (0, 0, 0, pc, 0, pr))
        # (n, wy, 8, wx, 8, 3, heads, 32) -> (3, n*wy*wx, heads, 64, 32)
        qkv = qkv.reshape(n, wy, WINDOW, wx, WINDOW, 3, self.heads, HEAD_DIM)
        qkv = qkv.permute(5, 0, 1, 3, 6, 2, 4, 7).reshape(3, n * wy * wx, self.heads, WINDOW * WINDOW, HEAD_DIM)
        q, k, v = qkv[0], qkv[1], qkv[2]
        logits = torch.matmul(q, k.transpose(-1, -2))
        if self.logit_scale != 1.0:
            logits = logits * self.logit_scale
        # Gathered in float32 (outside autocast's reach); its backward is an index_put with
        # accumulation, deterministic on CUDA under torch.use_deterministic_algorithms.
        bias = self.relbias.float()[:, self.rel_index]
        logits = logits.float() + bias
        if pr or pc:
            present = torch.zeros(wy * WINDOW, wx * WINDOW, dtype=torch.bool, device=h.device)
            present[:rows, :cols] = True
            present = present.reshape(wy, WINDOW, wx, WINDOW).permute(0, 2, 1, 3).reshape(wy * wx, 1, 1, 64)
            present = present.repeat(n, 1, 1, 1)  # window index is n*wy*wx + window
            logits = logits.masked_fill(~present, float("-inf"))
        p = torch.softmax(logits, dim=-1)
        if self.keep_attention:
            self.last_attention = p.detach().reshape(n, wy, wx, self.heads, 64, 64)
        o = torch.matmul(p.to(v.dtype), v)  # (n*wy*wx, heads, 64, 32)
        o = o.reshape(n, wy, wx, self.heads, WINDOW, WINDOW, HEAD_DIM)
        o = o.permute(0, 1, 4, 2, 5, 3, 6).reshape(n, wy * WINDOW, wx * WINDOW, c)
        o = o[:, :rows, :cols, :]
        return self.proj(o)


class Block(nn.Module):
    """Pre-norm transformer block: t += proj(attn(qkv(ln1(t)))); t += fc2(relu(fc1(ln2(t))))."""

    def __init__(self, c, heads, logit_scale):
        super().__init__()
        self.ln1 = nn.LayerNorm(c, eps=1e-5)
        self.attn = WindowAttention(c, heads, logit_scale)
        self.ln2 = nn.LayerNorm(c, eps=1e-5)
        self.fc1 = nn.Linear(c, 2 * c)
        self.fc2 = nn.Linear(2 * c, c)
        self.round_f16 = False

    def _q(self, x):
        return x.half().float() if self.round_f16 else x

    def forward(self, t):
        t = self._q(t + self._q(self.attn(self._q(self.ln1(t)))))
        t = self._q(t + self._q(self.fc2(self._q(F.relu(self.fc1(self._q(self.ln2(t))))))))
        return t


class RefineNet(nn.Module):
    """refine-v1. forward(image (N, 3, H, W) linear) -> refined (N, 3, H, W) linear (float32)."""

    def __init__(self, logit_scale=DEFAULT_LOGIT_SCALE):
        super().__init__()
        self.logit_scale = logit_scale
        self.embed = nn.Linear(48, 32)
        self.enc1 = Block(32, 1, logit_scale)
        self.merge = nn.Linear(128, 64)
        self.enc2 = Block(64, 2, logit_scale)
        self.expand = nn.Linear(64, 128)
        self.dec1 = Block(32, 1, logit_scale)
        self.head = nn.Linear(32, 48)
        self._round_f16 = False
        self.reset_parameters()

    def reset_parameters(self):
        """Truncated-normal (std 0.02) weights, zero biases and relative biases, unit layernorm
        gains; the head is all zero, so the untrained network returns untone(tone(input))."""
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02, a=-0.04, b=0.04)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.LayerNorm):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, WindowAttention):
                nn.init.zeros_(m.relbias)
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    @property
    def round_f16(self):
        return self._round_f16

    @round_f16.setter
    def round_f16(self, on):
        """Round the tensors between steps to f16 (closer to the C++ numerics, not bit-exact)."""
        self._round_f16 = bool(on)
        for b in (self.enc1, self.enc2, self.dec1):
            b.round_f16 = bool(on)

    def _q(self, x):
        return x.half().float() if self._round_f16 else x

    def blocks(self):
        return OrderedDict((name, getattr(self, name)) for name, _, _ in BLOCKS)

    def residual(self, toned):
        """The network proper: toned image (N, 3, H8, W8), H8 and W8 multiples of 8 ->
        residual (N, 3, H8, W8) in the tone domain."""
        t = self._q(self.embed(self._q(patchify(toned))))
        e1 = self.enc1(t)
        m = self._q(self.merge(merge_tokens(e1)))
        m = self.enc2(m)
        d = expand_tokens(self._q(self.expand(m)), 32)
        d = self._q(d + e1)
        d = self.dec1(d)
        r = self._q(self.head(d))
        return unpatchify(r.float())

    def forward(self, image):
        image = image.float()
        rgb = image[:, :3]
        h, w = rgb.shape[-2:]
        x = tone(rgb)
        ph, pw = (-h) % 8, (-w) % 8
        xp = F.pad(x, (0, pw, 0, ph), mode="replicate") if (ph or pw) else x
        r = self.residual(xp)[:, :, :h, :w]
        out = untone(x, r, rgb)
        if image.shape[1] > 3:  # alpha is kept
            out = torch.cat([out, image[:, 3:]], dim=1)
        return out

    def set_keep_attention(self, on):
        for b in (self.enc1, self.enc2, self.dec1):
            b.attn.keep_attention = on
            b.attn.last_attention = None


# ---------------------------------------------------------------------------------------------
# display domain (the demo's scoring: src/image/tonemap.cpp)


def srgb_encode(x):
    """The sRGB transfer function on [0, 1] (input clamped), differentiable everywhere."""
    x = x.clamp(0.0, 1.0)
    lo = 12.92 * x
    hi = 1.055 * torch.pow(x.clamp(min=0.0031308), 1.0 / 2.4) - 0.055
    return torch.where(x <= 0.0031308, lo, hi)


def display(linear, exposure):
    """display = srgb_encode(reinhard(max(0, linear * exposure))), reinhard(x) = x / (1 + x);
    NaN counts as 0 and +inf as 1, like d4r::image::tonemap_value. exposure broadcasts (N, 1, 1, 1)."""
    x = torch.nan_to_num(linear.float() * exposure, nan=0.0, posinf=3.0e38, neginf=0.0).clamp(min=0.0)
    return srgb_encode(x / (1.0 + x))
