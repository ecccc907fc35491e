#!/usr/bin/env python3
"""Writes, reads and checks d4r model files (`.d4rnet`, docs/network.md "The model file").

Layout, little endian:

    0        8     magic b"d4rnet\\0\\0"
    8        4     u32 format version, 1
    12       4     u32 tensor count N (1..256)
    16       32    architecture, NUL-padded ("refine-v1")
    48       80*N  records: name (48 bytes, NUL-padded), u32 dtype (1 f16, 2 e4m3, 3 f32), u32 rank (1..4),
                   u32 dims[4] (unused dims 1), u64 data offset from the start of the file
    ...            data: each tensor row-major at its offset (a multiple of 64), zero padding between
    end - 8  8     FNV-1a 64 (basis 0xcbf29ce484222325, prime 0x100000001b3) of every byte before it

The writer puts the tensors in the order given (for refine-v1: refine_model.expected_tensors()),
the first at the first multiple of 64 after the records, and the trailer right after the last one.

Exporting refine-v1 (`model_tensors`) folds the model's logit scale (1/sqrt(32)) into the q rows
(the first C rows) of every block's qkv weight and bias, in float32, before rounding to f16: the file
holds the scaled values and the network multiplies by nothing. `load_model` builds a RefineNet from a
file with logit_scale = 1, so it computes with exactly the file's values.

refine-v1-fp8 (`fp8_tensors`, post-training quantisation) is refine-v1 with the weights of enc2's four
linears (FP8_LAYERS) stored as OCP e4m3 bytes and a per-tensor f16 `<layer>.scale` after each: scale =
f16(max|w| / 448), e4m3 = round to nearest even (ties to the even code, saturating at 448) of w / scale
computed in float64 from the f16 weight. The network computes with scale * e4m3 (docs/network.md).
refine-v2-fp8 is refine-v2 quantised the same way, enc2's qkv, proj and fc1 (FP8_LAYERS_V2: enc2.fc2 has 256
inputs, and the FP8 linear of the PTX path and of every native set takes at most 128).

Command line:
    export.py --check FILE              print the tensors and validate them (refine-v1, refine-v2 and their -fp8)
    export.py CHECKPOINT.pt OUT.d4rnet  export a checkpoint written by train.py
    export.py --fp8 IN OUT.d4rnet       write refine-v1-fp8 from a checkpoint (.pt) or a refine-v1 file, or
                                        refine-v2-fp8 from a refine-v2 file
"""

import argparse
import os
import struct
import sys
from collections import OrderedDict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

MAGIC = b"d4rnet\0\0"
VERSION = 1
HEADER = struct.Struct("<8sII32s")      # 48 bytes
RECORD = struct.Struct("<48sII4IQ")     # 80 bytes
TRAILER = struct.Struct("<Q")
ALIGN = 64
DTYPE_F16, DTYPE_E4M3, DTYPE_F32 = 1, 2, 3
DTYPE_NAMES = {DTYPE_F16: "f16", DTYPE_E4M3: "e4m3", DTYPE_F32: "f32"}
DTYPE_SIZES = {DTYPE_F16: 2, DTYPE_E4M3: 1, DTYPE_F32: 4}
ARCH_V1, ARCH_FP8, ARCH_V2, ARCH_V2_FP8 = "refine-v1", "refine-v1-fp8", "refine-v2", "refine-v2-fp8"
FP8_LAYERS = ("enc2.qkv", "enc2.proj", "enc2.fc1", "enc2.fc2")
FP8_LAYERS_V2 = ("enc2.qkv", "enc2.proj", "enc2.fc1")
# Each f16 architecture's FP8 variant and its e4m3 layers (the C++ side's kFp8Layers, kFp8LayersV2).
FP8_VARIANTS = {ARCH_V1: (ARCH_FP8, FP8_LAYERS), ARCH_V2: (ARCH_V2_FP8, FP8_LAYERS_V2)}
ARCHS = (ARCH_V1, ARCH_FP8, ARCH_V2, ARCH_V2_FP8)
E4M3_MAX = 448.0
FNV_BASIS = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
assert HEADER.size == 48 and RECORD.size == 80


class ModelFileError(ValueError):
    """A file that is not a valid d4r model file (bad magic, version, record, size or checksum)."""


def fnv1a64(data):
    """FNV-1a 64 of a bytes-like object."""
    h = FNV_BASIS
    for b in bytes(data):
        h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def _align(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


def _e4m3_table():
    """float32 value of each e4m3 (OCP FN: bias 7, no infinities, S.1111.111 is NaN) byte."""
    table = np.zeros(256, dtype=np.float32)
    for byte in range(256):
        s, e, m = byte >> 7, (byte >> 3) & 15, byte & 7
        if e == 15 and m == 7:
            v = float("nan")
        elif e == 0:
            v = m / 8.0 * 2.0 ** -6
        else:
            v = (1.0 + m / 8.0) * 2.0 ** (e - 7)
        table[byte] = -v if s else v
    return table


def quantize_e4m3(values):
    """OCP e4m3 bytes (uint8 array) of float values: round to nearest even (a tie goes to the even code),
    magnitudes beyond 448 (and infinities) saturate to +-448, NaN becomes 0x7f, zeros keep their sign."""
    x = np.asarray(values, dtype=np.float64)
    table = _e4m3_table()[:0x7F].astype(np.float64)  # the 127 non-negative finite codes, ascending
    a = np.minimum(np.abs(x), E4M3_MAX)
    a = np.where(np.isnan(x), 0.0, a)
    hi = np.clip(np.searchsorted(table, a, side="left"), 0, 0x7E)  # first code >= a
    lo = np.maximum(hi - 1, 0)
    d_lo, d_hi = a - table[lo], table[hi] - a
    pick_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (hi % 2 == 0))
    code = np.where(pick_hi, hi, lo).astype(np.uint8)
    code = np.where(np.signbit(x), code | 0x80, code).astype(np.uint8)
    return np.where(np.isnan(x), np.uint8(0x7F), code).astype(np.uint8)


def dequantize_e4m3(codes, scale):
    """float32 values scale * e4m3 of a uint8 array."""
    return (_e4m3_table()[np.asarray(codes, dtype=np.uint8)] * np.float32(scale)).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# the generic file


def write_model(path, tensors, arch):
    """Writes a model file. tensors: OrderedDict name -> numpy array of float16 (dtype 1), uint8 (e4m3
    bytes, dtype 2) or float32 (dtype 3), rank 1..4. Written atomically (a temporary file renamed over
    path)."""
    if not 1 <= len(tensors) <= 256:
        raise ValueError(f"{len(tensors)} tensors: a model file holds 1..256")
    arch_bytes = arch.encode("ascii")
    if len(arch_bytes) >= 32:
        raise ValueError(f"architecture name {arch!r} is longer than 31 bytes")
    records, blobs = [], []
    offset = _align(HEADER.size + RECORD.size * len(tensors))
    for name, array in tensors.items():
        name_bytes = name.encode("ascii")
        if not name_bytes or len(name_bytes) >= 48:
            raise ValueError(f"tensor name {name!r} must be 1..47 bytes")
        array = np.asarray(array)
        if array.dtype == np.float16:
            dtype = DTYPE_F16
        elif array.dtype == np.float32:
            dtype = DTYPE_F32
        elif array.dtype == np.uint8:
            dtype = DTYPE_E4M3
        else:
            raise ValueError(f"{name}: dtype {array.dtype} (the writer takes float16, uint8 e4m3 or float32)")
        if not 1 <= array.ndim <= 4:
            raise ValueError(f"{name}: rank {array.ndim} (1..4)")
        dims = list(array.shape) + [1] * (4 - array.ndim)
        data = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
        records.append(RECORD.pack(name_bytes, dtype, array.ndim, *dims, offset))
        blobs.append((offset, data))
        offset = _align(offset + len(data))
    out = bytearray(HEADER.pack(MAGIC, VERSION, len(tensors), arch_bytes))
    for r in records:
        out += r
    for off, data in blobs:
        out += bytes(off - len(out))
        out += data
    out += TRAILER.pack(fnv1a64(out))
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(out)
    os.replace(tmp, path)
    return len(out)


def read_model(path, expect_arch="refine-v1", records=None):
    """Reads a model file, checking magic, version, count, architecture (unless expect_arch is None),
    every record (dtype, rank, dims, 64-byte aligned offset inside the data area, no overlap) and the
    checksum. Returns an OrderedDict name -> numpy array in file order (f16 and f32 tensors keep their
    dtype; e4m3 is decoded to float32). If records is a list, (name, dtype code, shape, offset) of
    every record is appended to it. Raises ModelFileError."""
    with open(path, "rb") as f:
        blob = f.read()
    return parse_model(blob, expect_arch, source=path, records=records)


def read_model_arch(path):
    """The architecture string of a model file (after the same checks as read_model)."""
    with open(path, "rb") as f:
        blob = f.read()
    parse_model(blob, None, source=path)
    return blob[16:48].rstrip(b"\0").decode("ascii")


def parse_model(blob, expect_arch="refine-v1", source="model", records=None):
    """read_model on bytes."""

    def fail(msg):
        raise ModelFileError(f"{source}: {msg}")

    if len(blob) < HEADER.size + RECORD.size + TRAILER.size:
        fail(f"{len(blob)} bytes, too short for a model file")
    magic, version, count, arch_raw = HEADER.unpack_from(blob, 0)
    if magic != MAGIC:
        fail(f"bad magic {magic!r}")
    (stored,) = TRAILER.unpack_from(blob, len(blob) - TRAILER.size)
    actual = fnv1a64(blob[: len(blob) - TRAILER.size])
    if stored != actual:
        fail(f"checksum mismatch: file says {stored:#018x}, contents give {actual:#018x}")
    if version != VERSION:
        fail(f"format version {version}, this reader knows {VERSION}")
    if not 1 <= count <= 256:
        fail(f"tensor count {count} (1..256)")
    arch_text = arch_raw.split(b"\0", 1)[0]
    if arch_raw[len(arch_text):].strip(b"\0") or not arch_text:
        fail(f"architecture field {arch_raw!r} is not a NUL-padded name")
    arch = arch_text.decode("ascii", errors="replace")
    if expect_arch is not None and arch != expect_arch:
        fail(f"architecture {arch!r}, expected {expect_arch!r}")
    data_start = HEADER.size + RECORD.size * count
    data_end = len(blob) - TRAILER.size
    if data_start > data_end:
        fail(f"{count} records do not fit in {len(blob)} bytes")
    tensors = OrderedDict()
    spans = []
    e4m3 = None
    for i in range(count):
        name_raw, dtype, rank, d0, d1, d2, d3, offset = RECORD.unpack_from(blob, HEADER.size + RECORD.size * i)
        name_text = name_raw.split(b"\0", 1)[0]
        if not name_text or name_raw[len(name_text):].strip(b"\0"):
            fail(f"record {i}: name field {name_raw!r} is not a NUL-padded name")
        name = name_text.decode("ascii", errors="replace")
        if name in tensors:
            fail(f"record {i}: tensor {name} appears twice")
        if dtype not in DTYPE_SIZES:
            fail(f"{name}: dtype {dtype}")
        if not 1 <= rank <= 4:
            fail(f"{name}: rank {rank}")
        dims = (d0, d1, d2, d3)
        if any(d == 0 for d in dims[:rank]) or any(d != 1 for d in dims[rank:]):
            fail(f"{name}: dims {dims} for rank {rank} (unused dims must be 1)")
        elements = int(np.prod(dims[:rank], dtype=np.int64))
        nbytes = elements * DTYPE_SIZES[dtype]
        if offset % ALIGN or offset < data_start or offset + nbytes > data_end:
            fail(f"{name}: data at {offset}, {nbytes} bytes, outside the data area "
                 f"[{data_start}, {data_end}) or not a multiple of {ALIGN}")
        spans.append((offset, offset + nbytes, name))
        raw = blob[offset: offset + nbytes]
        if dtype == DTYPE_F16:
            array = np.frombuffer(raw, dtype="<f2").astype(np.float16)
        elif dtype == DTYPE_F32:
            array = np.frombuffer(raw, dtype="<f4").astype(np.float32)
        else:
            if e4m3 is None:
                e4m3 = _e4m3_table()
            array = e4m3[np.frombuffer(raw, dtype=np.uint8)]
        tensors[name] = array.reshape(dims[:rank])
        if records is not None:
            records.append((name, dtype, dims[:rank], offset))
    spans.sort()
    for (a0, a1, an), (b0, b1, bn) in zip(spans, spans[1:]):
        if b0 < a1:
            fail(f"tensors {an} and {bn} overlap")
    return tensors


# ---------------------------------------------------------------------------------------------
# refine-v1


def base_tensors(arch):
    """The f16 table (name -> shape) of ARCH or of the architecture its FP8 variant quantises."""
    from refine_model import expected_tensors

    if arch in (ARCH_V2, ARCH_V2_FP8):
        return expected_tensors(c1=64, c2=128, patch_in=16 * 23, head_out=16 * 8)  # kRefineV2
    return expected_tensors()


def expected_fp8_tensors(arch=ARCH_FP8):
    """An FP8 architecture's table (refine-v1-fp8 or refine-v2-fp8): OrderedDict name -> (shape, dtype code), in file
    order (its f16 twin's, with `<layer>.scale` after each e4m3 `<layer>.w`)."""
    layers = FP8_LAYERS_V2 if arch == ARCH_V2_FP8 else FP8_LAYERS
    out = OrderedDict()
    for name, shape in base_tensors(arch).items():
        layer = name[:-2]
        fp8 = name.endswith(".w") and layer in layers
        out[name] = (shape, DTYPE_E4M3 if fp8 else DTYPE_F16)
        if fp8:
            out[layer + ".scale"] = ((1,), DTYPE_F16)
    return out


def check_refine_tensors(tensors, arch="refine-v1", dtypes=None):
    """Validates a tensor dict against ARCH's table (ARCHS): every name present, none extra, the shapes, the
    dtypes (f16; e4m3 for the fp8 weights: `dtypes` maps names to the file's dtype codes, else float16 arrays are
    f16 and others e4m3), finite values. Returns a list of problems (empty when valid)."""
    problems = []
    if arch in (ARCH_FP8, ARCH_V2_FP8):
        expected = expected_fp8_tensors(arch)
    else:
        expected = OrderedDict((n, (s, DTYPE_F16)) for n, s in base_tensors(arch).items())
    for name, (shape, want) in expected.items():
        if name not in tensors:
            problems.append(f"{name}: missing")
            continue
        t = tensors[name]
        if tuple(t.shape) != tuple(shape):
            problems.append(f"{name}: shape {tuple(t.shape)}, expected {tuple(shape)}")
        if dtypes is not None:
            got = dtypes.get(name)
        else:
            got = DTYPE_F16 if t.dtype == np.float16 else DTYPE_E4M3 if t.dtype in (np.uint8, np.float32) else None
        if got != want:
            problems.append(f"{name}: stored as {DTYPE_NAMES.get(got, t.dtype)}, expected {DTYPE_NAMES[want]}")
        if not np.all(np.isfinite(t)):
            problems.append(f"{name}: {int(np.sum(~np.isfinite(t)))} values are not finite")
    for name in tensors:
        if name not in expected:
            problems.append(f"{name}: not a {arch} tensor")
    return problems


def fp8_tensors(tensors, arch=ARCH_FP8):
    """The FP8 architecture ARCH's tensors from its f16 twin's (OrderedDict name -> float16 array, e.g.
    model_tensors() or read_model()): its FP8 layers' weights quantised to e4m3 bytes (uint8) with scale =
    f16(max|w| / 448) (1 for an all-zero weight), the rest unchanged, in expected_fp8_tensors(ARCH) order."""
    out = OrderedDict()
    for name, (shape, dtype) in expected_fp8_tensors(arch).items():
        if name.endswith(".scale"):
            continue
        value = tensors[name]
        if dtype != DTYPE_E4M3:
            out[name] = np.asarray(value, dtype=np.float16)
            continue
        w = np.asarray(value, dtype=np.float16).astype(np.float64)
        top = float(np.max(np.abs(w)))
        scale = np.float16(top / E4M3_MAX) if top > 0 else np.float16(1.0)
        if scale == 0:  # a weight below 448 * 2^-25: the smallest f16 scale
            scale = np.float16(2.0 ** -24)
        out[name] = quantize_e4m3(w / float(scale))
        out[name[:-2] + ".scale"] = np.array([scale], dtype=np.float16)
    return out


def model_tensors(model, table=None):
    """The file tensors of a RefineNet: OrderedDict name -> float16 numpy array in the table's order,
    with the model's logit scale folded into the q rows of every qkv (weight and bias) in float32
    before the rounding to f16. Raises ValueError if a value does not fit in f16. TABLE (name -> shape, refine-v1's
    expected_tensors() when None) gives another architecture's shapes under the same names (refine-v2)."""
    import torch
    from refine_model import expected_tensors, file_name_to_parameter

    params = dict(model.named_parameters())
    scale = float(model.logit_scale)
    out = OrderedDict()
    for name, shape in (table or expected_tensors()).items():
        value = params[file_name_to_parameter(name)].detach().to("cpu", torch.float32).numpy().copy()
        if tuple(value.shape) != tuple(shape):
            raise ValueError(f"{name}: the model's shape {value.shape}, the table's {shape}")
        if name.endswith(".qkv.w") or name.endswith(".qkv.b"):
            c = shape[0] // 3
            value[:c] *= np.float32(scale)
        if not np.all(np.isfinite(value)) or np.max(np.abs(value)) > 65504.0:
            raise ValueError(f"{name}: values outside f16's range (max |x| {np.max(np.abs(value))})")
        out[name] = value.astype(np.float16)
    return out


def export_model(model, path):
    """Writes a RefineNet as a refine-v1 model file; returns the file's size."""
    from refine_model import ARCH

    return write_model(path, model_tensors(model), ARCH)


def load_model(path):
    """A RefineNet (float32, logit_scale 1) computing with a refine-v1 file's values (of a refine-v1-fp8
    file: the dequantised weights scale * e4m3; the network's e4m3 activations are not modelled)."""
    import torch
    from refine_model import RefineNet, file_name_to_parameter

    arch = read_model_arch(path)
    records = []
    tensors = read_model(path, expect_arch=arch if arch == ARCH_FP8 else "refine-v1", records=records)
    problems = check_refine_tensors(tensors, arch, {r[0]: r[1] for r in records})
    if problems:
        raise ModelFileError(f"{path}: " + "; ".join(problems))
    model = RefineNet(logit_scale=1.0)
    params = dict(model.named_parameters())
    with torch.no_grad():
        for name, value in tensors.items():
            if name.endswith(".scale"):
                continue
            if name[:-2] + ".scale" in tensors:  # e4m3, read as float32: w = scale * e4m3
                value = value * np.float32(tensors[name[:-2] + ".scale"][0])
            params[file_name_to_parameter(name)].copy_(torch.from_numpy(value.astype(np.float32)))
    return model


def check_file(path, out=sys.stdout):
    """The --check mode: prints the header and every tensor, validates; returns an exit status."""
    try:
        arch = read_model_arch(path)
        records = []
        tensors = read_model(path, expect_arch=None, records=records)
    except (OSError, ModelFileError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    size = os.path.getsize(path)
    params = sum(t.size for t in tensors.values())
    print(f"{path}: {size} bytes, version {VERSION}, architecture {arch}, {len(tensors)} tensors, "
          f"{params} parameters, checksum ok", file=out)
    for name, dtype, dims, offset in records:
        f = tensors[name].astype(np.float32)  # e4m3: the codes' values, before the scale
        shape = " x ".join(str(d) for d in dims)
        print(f"  {name:<16} {DTYPE_NAMES[dtype]:<4} {shape:<10} @{offset:<7} min {f.min():+.4g} max {f.max():+.4g} "
              f"mean|x| {np.mean(np.abs(f)):.4g}", file=out)
    if arch not in ARCHS:
        print(f"error: architecture {arch!r}, this tool checks {', '.join(ARCHS)}", file=sys.stderr)
        return 1
    problems = check_refine_tensors(tensors, arch, {r[0]: r[1] for r in records})
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"valid {arch} model", file=out)
    return 0


def _load_checkpoint(path):
    import torch
    from refine_model import RefineNet

    ckpt = torch.load(path, map_location="cpu")
    model = RefineNet(logit_scale=ckpt.get("logit_scale", RefineNet().logit_scale))
    model.load_state_dict(ckpt["model"])
    return model, ckpt


def export_fp8(source, output, out=None):
    """--fp8: refine-v1-fp8 from a refine-v1 file (its f16 values) or a checkpoint (exported to f16 first,
    as export_model does), or refine-v2-fp8 from a refine-v2 file; prints the per-layer quantisation error and
    checks the result."""
    with open(source, "rb") as f:
        is_model = f.read(8) == MAGIC
    if is_model:
        arch = read_model_arch(source)
        if arch not in FP8_VARIANTS:
            print(f"error: {source}: architecture {arch!r} has no FP8 variant (these do: "
                  f"{', '.join(FP8_VARIANTS)})", file=sys.stderr)
            return 1
        tensors = read_model(source, expect_arch=arch)
        problems = check_refine_tensors(tensors, arch)
        if problems:
            print(f"error: {source}: " + "; ".join(problems), file=sys.stderr)
            return 1
    else:
        arch = ARCH_V1
        tensors = model_tensors(_load_checkpoint(source)[0])
    fp8_arch, layers = FP8_VARIANTS[arch]
    q = fp8_tensors(tensors, fp8_arch)
    size = write_model(output, q, fp8_arch)
    print(f"wrote {output} ({size} bytes, {fp8_arch}) from {source}", file=out)
    for layer in layers:
        w = tensors[layer + ".w"].astype(np.float64)
        d = dequantize_e4m3(q[layer + ".w"], q[layer + ".scale"][0]).astype(np.float64)
        err = np.sqrt(np.mean((d - w) ** 2) / max(np.mean(w ** 2), 1e-30))
        print(f"  {layer}.w: scale {float(q[layer + '.scale'][0]):.6g}, relative RMS error {err:.4f}", file=out)
    return check_file(output, out=out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", metavar="FILE", help="print and validate a model file")
    ap.add_argument("--fp8", action="store_true",
                    help="write refine-v1-fp8 (enc2's linears in e4m3) from a checkpoint or a refine-v1 file, or "
                         "refine-v2-fp8 (enc2's qkv, proj and fc1) from a refine-v2 file")
    ap.add_argument("checkpoint", nargs="?", help="a checkpoint written by train.py (.pt)")
    ap.add_argument("output", nargs="?", help="the model file to write (.d4rnet)")
    args = ap.parse_args(argv)
    if args.check:
        if args.checkpoint:
            ap.error("--check takes no other arguments")
        return check_file(args.check)
    if not (args.checkpoint and args.output):
        ap.error("give --check FILE, CHECKPOINT OUT, or --fp8 IN OUT")
    if args.fp8:
        return export_fp8(args.checkpoint, args.output)
    model, ckpt = _load_checkpoint(args.checkpoint)
    size = export_model(model, args.output)
    print(f"wrote {args.output} ({size} bytes) from {args.checkpoint} (step {ckpt.get('step', '?')})")
    return check_file(args.output)


if __name__ == "__main__":
    sys.exit(main())
