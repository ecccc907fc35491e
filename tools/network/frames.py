#!/usr/bin/env python3
"""Reader (and writer) of `.d4rframe` files, the training pairs `d4r demo --dump-frames DIR` writes.

Format, little endian:

    offset  bytes       what
    0       8           magic b"d4rfrm1\\0"
    8       4           u32 width
    12      4           u32 height
    16      4           f32 exposure (the demo's display exposure for this frame)
    20      4           u32 frame index
    24      W*H*3*2     f16 core output: RGB linear, row-major, channels innermost
    ...     W*H*3*2     f16 truth, same layout

Version 2 (`d4r demo --dump-frames DIR --dump-inputs`), magic b"d4rfrm2\\0", adds the core's inputs and
the accumulate step's intermediates (docs/demo.md, "Frame dumps"):

    offset  bytes       what
    0       24          as above (magic d4rfrm2)
    24      4           u32 render width w
    28      4           u32 render height h
    32      8           f32 jitter x, y (render pixels)
    40      4           u32 1 when the frame used history (not the first frame)
    44      4           u32 term planes, 13
    48      W*H*3*2     f16 core output, then W*H*3*2 f16 truth (as above)
    ...     w*h*4       f32 depth (0 near .. 1 far)
    ...     w*h*3*2     f16 render colour (linear RGB as handed to the core)
    ...     w*h*2*2     f16 motion vectors (render pixels, previous = current + mv)
    ...     W*H*13*2    f16 accumulate terms per output pixel (TERMS below: working space = tone-mapped YCoCg)

`read_frame` returns a `Frame` whose `output` and `truth` are (H, W, 3) float16 numpy arrays
(memory-mapped by default, so a folder of large frames costs no memory until crops are read).
`write_frame` writes the same format (synthetic data and tests).

Usage as a tool: `python3 tools/network/frames.py FILE...` prints each file's header and the
PSNR of its output against its truth in the display domain.
"""

import os
import struct
import sys
from dataclasses import dataclass

import numpy as np

MAGIC = b"d4rfrm1\0"
MAGIC_V2 = b"d4rfrm2\0"
HEADER = struct.Struct("<8sIIfI")  # 24 bytes
assert HEADER.size == 24
HEADER_V2 = struct.Struct("<8sIIfIIIffII")  # 48 bytes
assert HEADER_V2.size == 48
# The planes of Inputs.terms (src/upscaler/accumulate_terms.h), in order.
TERMS = ("hist_y", "hist_co", "hist_cg", "hist_weight", "reprojected", "clamped_y", "clamped_co", "clamped_cg",
         "cur_y", "cur_co", "cur_cg", "coverage", "alpha")


class FrameError(ValueError):
    """A file that is not a valid .d4rframe."""


@dataclass
class Inputs:
    """A version 2 dump's core inputs (render size) and accumulate terms (output size)."""
    render_width: int
    render_height: int
    jitter_x: float
    jitter_y: float
    history: bool
    depth: np.ndarray   # (h, w) float32
    color: np.ndarray   # (h, w, 3) float16, linear
    motion: np.ndarray  # (h, w, 2) float16, render pixels
    terms: np.ndarray   # (H, W, 13) float16, planes named by TERMS


@dataclass
class Frame:
    path: str
    width: int
    height: int
    exposure: float
    index: int
    output: np.ndarray  # (H, W, 3) float16, the core's output
    truth: np.ndarray   # (H, W, 3) float16, the scene's ground truth
    inputs: "Inputs | None" = None  # version 2 dumps only


def read_frame(path, mmap=True):
    """Reads one .d4rframe file (version 1 or 2). Raises FrameError for a bad magic, a zero size, a bad version 2
    header or a file whose length is not exactly what the header says."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(HEADER_V2.size)
    if len(head) < HEADER.size:
        raise FrameError(f"{path}: {size} bytes, shorter than the 24-byte header")
    magic, width, height, exposure, index = HEADER.unpack(head[:HEADER.size])
    if magic not in (MAGIC, MAGIC_V2):
        raise FrameError(f"{path}: bad magic {magic!r} (expected {MAGIC!r} or {MAGIC_V2!r})")
    if width == 0 or height == 0:
        raise FrameError(f"{path}: empty image {width}x{height}")
    if not np.isfinite(exposure) or exposure <= 0:
        raise FrameError(f"{path}: exposure {exposure} is not a positive finite number")
    plane = width * height * 3
    v2 = magic == MAGIC_V2
    if v2:
        if len(head) < HEADER_V2.size:
            raise FrameError(f"{path}: {size} bytes, shorter than the 48-byte version 2 header")
        _, _, _, _, _, rw, rh, jx, jy, history, planes = HEADER_V2.unpack(head)
        if planes != len(TERMS):
            raise FrameError(f"{path}: {planes} term planes (this reader knows {len(TERMS)})")
        if history > 1:
            raise FrameError(f"{path}: history flag {history} (expected 0 or 1)")
        if not (0 < rw <= width and 0 < rh <= height):
            raise FrameError(f"{path}: render size {rw}x{rh} must be 1.. the output size {width}x{height}")
        render = rw * rh
        expected = HEADER_V2.size + 2 * plane * 2 + render * (4 + 6 + 4) + width * height * len(TERMS) * 2
        offset = HEADER_V2.size
    else:
        expected = HEADER.size + 2 * plane * 2
        offset = HEADER.size
    if size != expected:
        raise FrameError(f"{path}: {size} bytes, expected {expected} for {width}x{height}"
                         + (f" from {rw}x{rh} (version 2)" if v2 else ""))
    if mmap:
        raw = np.memmap(path, dtype=np.uint8, mode="r")
    else:
        with open(path, "rb") as f:
            raw = np.frombuffer(f.read(), dtype=np.uint8)

    def take(dtype, count, shape):
        nonlocal offset
        a = raw[offset:offset + count * np.dtype(dtype).itemsize].view(dtype).reshape(shape)
        offset += count * np.dtype(dtype).itemsize
        return a

    output = take("<f2", plane, (height, width, 3))
    truth = take("<f2", plane, (height, width, 3))
    inputs = None
    if v2:
        depth = take("<f4", render, (rh, rw))
        color = take("<f2", render * 3, (rh, rw, 3))
        motion = take("<f2", render * 2, (rh, rw, 2))
        terms = take("<f2", width * height * len(TERMS), (height, width, len(TERMS)))
        inputs = Inputs(rw, rh, float(jx), float(jy), bool(history), depth, color, motion, terms)
    return Frame(path, width, height, float(exposure), index, output, truth, inputs)


def write_frame(path, output, truth, exposure=1.0, index=0, inputs=None):
    """Writes a .d4rframe file; output and truth are (H, W, 3) arrays (converted to f16). With inputs (an Inputs),
    a version 2 file."""
    output = np.asarray(output, dtype="<f2")
    truth = np.asarray(truth, dtype="<f2")
    if output.ndim != 3 or output.shape[2] != 3 or output.shape != truth.shape:
        raise ValueError(f"output {output.shape} and truth {truth.shape} must both be (H, W, 3)")
    height, width = output.shape[:2]
    with open(path, "wb") as f:
        if inputs is None:
            f.write(HEADER.pack(MAGIC, width, height, float(exposure), int(index)))
        else:
            f.write(HEADER_V2.pack(MAGIC_V2, width, height, float(exposure), int(index), inputs.render_width,
                                   inputs.render_height, inputs.jitter_x, inputs.jitter_y, int(inputs.history),
                                   len(TERMS)))
        f.write(np.ascontiguousarray(output).tobytes())
        f.write(np.ascontiguousarray(truth).tobytes())
        if inputs is not None:
            rh, rw = inputs.render_height, inputs.render_width
            for a, dtype, shape in ((inputs.depth, "<f4", (rh, rw)), (inputs.color, "<f2", (rh, rw, 3)),
                                    (inputs.motion, "<f2", (rh, rw, 2)),
                                    (inputs.terms, "<f2", (height, width, len(TERMS)))):
                a = np.asarray(a, dtype=dtype)
                if a.shape != shape:
                    raise ValueError(f"inputs: an array of shape {a.shape}, expected {shape}")
                f.write(np.ascontiguousarray(a).tobytes())


def working_to_linear(ycocg, exposure):
    """The core's working space (tone-mapped YCoCg, (..., 3)) to linear RGB, as the core's from_working does for
    HDR input with exposure factor EXPOSURE (the demo's exposure texture): RGB clamped to [0, 1], tone map inverted,
    exposure undone."""
    y, co, cg = (np.asarray(ycocg, dtype=np.float32)[..., i] for i in range(3))
    t = y - cg
    rgb = np.clip(np.stack([t + co, y + cg, t - co], axis=-1), 0.0, 1.0)
    return rgb / (np.maximum(1.0 - rgb.max(axis=-1, keepdims=True), 1.0 / 4096.0) * np.float32(exposure))


def list_frames(folder):
    """The .d4rframe files under folder (recursively), sorted by path: a deterministic order."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        found.extend(os.path.join(root, name) for name in files if name.endswith(".d4rframe"))
    return sorted(found)


def display_np(linear, exposure):
    """The demo's display mapping in numpy: srgb_encode(reinhard(max(0, linear * exposure)))."""
    x = np.nan_to_num(np.asarray(linear, dtype=np.float32) * np.float32(exposure), nan=0.0, posinf=3.0e38, neginf=0.0)
    x = np.maximum(x, 0.0)
    x = np.clip(x / (1.0 + x), 0.0, 1.0)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(np.maximum(x, 0.0031308), 1.0 / 2.4) - 0.055)


def psnr_np(a, b):
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return float("inf") if mse == 0 else 10.0 * np.log10(1.0 / mse)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    status = 0
    for path in argv:
        try:
            fr = read_frame(path)
        except (OSError, FrameError) as e:
            print(f"error: {e}", file=sys.stderr)
            status = 1
            continue
        p = psnr_np(display_np(fr.output, fr.exposure), display_np(fr.truth, fr.exposure))
        extra = ""
        if fr.inputs is not None:
            i = fr.inputs
            extra = (f" (version 2: render {i.render_width}x{i.render_height}, jitter {i.jitter_x:+.3f},"
                     f"{i.jitter_y:+.3f}, history {'on' if i.history else 'off'})")
        print(f"{path}: {fr.width}x{fr.height} frame {fr.index} exposure {fr.exposure:g} "
              f"output-vs-truth PSNR {p:.2f} dB{extra}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
