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
HEADER = struct.Struct("<8sIIfI")  # 24 bytes
assert HEADER.size == 24


class FrameError(ValueError):
    """A file that is not a valid .d4rframe."""


@dataclass
class Frame:
    path: str
    width: int
    height: int
    exposure: float
    index: int
    output: np.ndarray  # (H, W, 3) float16, the core's output
    truth: np.ndarray   # (H, W, 3) float16, the scene's ground truth


def read_frame(path, mmap=True):
    """Reads one .d4rframe file. Raises FrameError for a bad magic, a zero size or a file whose
    length is not exactly header + two images."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(HEADER.size)
    if len(head) < HEADER.size:
        raise FrameError(f"{path}: {size} bytes, shorter than the 24-byte header")
    magic, width, height, exposure, index = HEADER.unpack(head)
    if magic != MAGIC:
        raise FrameError(f"{path}: bad magic {magic!r} (expected {MAGIC!r})")
    if width == 0 or height == 0:
        raise FrameError(f"{path}: empty image {width}x{height}")
    plane = width * height * 3
    expected = HEADER.size + 2 * plane * 2
    if size != expected:
        raise FrameError(f"{path}: {size} bytes, expected {expected} for {width}x{height}")
    if not np.isfinite(exposure) or exposure <= 0:
        raise FrameError(f"{path}: exposure {exposure} is not a positive finite number")
    if mmap:
        data = np.memmap(path, dtype="<f2", mode="r", offset=HEADER.size, shape=(2 * plane,))
    else:
        with open(path, "rb") as f:
            f.seek(HEADER.size)
            data = np.frombuffer(f.read(), dtype="<f2")
    output = data[:plane].reshape(height, width, 3)
    truth = data[plane:].reshape(height, width, 3)
    return Frame(path, width, height, float(exposure), index, output, truth)


def write_frame(path, output, truth, exposure=1.0, index=0):
    """Writes a .d4rframe file; output and truth are (H, W, 3) arrays (converted to f16)."""
    output = np.asarray(output, dtype="<f2")
    truth = np.asarray(truth, dtype="<f2")
    if output.ndim != 3 or output.shape[2] != 3 or output.shape != truth.shape:
        raise ValueError(f"output {output.shape} and truth {truth.shape} must both be (H, W, 3)")
    height, width = output.shape[:2]
    with open(path, "wb") as f:
        f.write(HEADER.pack(MAGIC, width, height, float(exposure), int(index)))
        f.write(np.ascontiguousarray(output).tobytes())
        f.write(np.ascontiguousarray(truth).tobytes())


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
        print(f"{path}: {fr.width}x{fr.height} frame {fr.index} exposure {fr.exposure:g} "
              f"output-vs-truth PSNR {p:.2f} dB")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
