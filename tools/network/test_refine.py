#!/usr/bin/env python3
"""Tests of the Python side of refine-v1: python3 tools/network/test_refine.py [-v] [Class.test]

- the model against an independent loop-by-loop NumPy reference written from docs/network.md
  (patch, merge and expand channel orders, edge padding, window attention with partial windows,
  the relative-bias index, tone/untone), on images whose token grids have partial windows;
- the untrained model is the identity; masked keys get exactly zero attention weight;
- the model file: layout at the doc's offsets, FNV-1a test vectors, bit-exact round trip, a flipped
  byte anywhere fails the checksum, q rows scaled by 1/sqrt(32), --check;
- the .d4rframe reader on a file written here with struct;
- train.py end to end on tiny synthetic frames (a few CPU steps), and that two runs with the same
  seed write the same model file;
- train_blend.py (refine-v2 experiment): its torch planes equal headroom_v2.load_frame's, SSIM of an image with
  itself is 1, and a few CPU steps end to end on synthetic version 2 frames give the same summary twice.
"""

import contextlib
import io
import json
import math
import os
import struct
import sys
import tempfile
import unittest

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export  # noqa: E402
import frames  # noqa: E402
import refine_model  # noqa: E402
from refine_model import RefineNet  # noqa: E402

torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def randomize(model, seed=0, scale=0.1, head_scale=0.005):
    """Random weights, relative biases of about +-1 (so a wrong bias index shows) and a small head, so
    the residuals (about +-0.1 in the tone domain) leave most pixels clear of untone's clamps."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            s = head_scale if name.startswith("head.") else 1.0 if name.endswith("relbias") else scale
            p.copy_(torch.randn(p.shape, generator=g) * s)
            if name.endswith("ln1.weight") or name.endswith("ln2.weight"):
                p.add_(1.0)
    return model


def test_image(w, h, seed=1, channels=3):
    g = torch.Generator().manual_seed(seed)
    return torch.rand((1, channels, h, w), generator=g) ** 3 * 4.0  # mostly dark, some above 1


# ---------------------------------------------------------------------------------------------
# an independent reference, loop by loop from docs/network.md (float64)


def ref_forward(params, image, scale):
    """params: name -> float64 array in the file's names; image (3, H, W) float64 linear."""
    _, H, W = image.shape
    W8, H8 = -(-W // 8) * 8, -(-H // 8) * 8

    def tone(v):
        c = 0.0 if math.isnan(v) else max(0.0, v)
        return c / (1.0 + c)

    toned = np.zeros((3, H8, W8))
    for c in range(3):
        for y in range(H8):
            for x in range(W8):
                toned[c, y, x] = tone(image[c, min(y, H - 1), min(x, W - 1)])
    T1w, T1h = W8 // 4, H8 // 4
    patches = np.zeros((T1h, T1w, 48))
    for ty in range(T1h):
        for tx in range(T1w):
            for dy in range(4):
                for dx in range(4):
                    for c in range(3):
                        patches[ty, tx, (dy * 4 + dx) * 3 + c] = toned[c, 4 * ty + dy, 4 * tx + dx]

    def linear(x, name):
        return x @ params[name + ".w"].T + params[name + ".b"]

    def layernorm(x, name):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-5) * params[name + ".g"] + params[name + ".b"]

    def attention(h, name, heads):
        rows, cols, c = h.shape
        qkv = linear(h, name + ".qkv")
        q, k, v = qkv[..., :c], qkv[..., c:2 * c], qkv[..., 2 * c:]
        out = np.zeros((rows, cols, c))
        bias = params[name + ".relbias"]
        for wy in range(-(-rows // 8)):
            for wx in range(-(-cols // 8)):
                toks = [(y, x) for y in range(8 * wy, 8 * wy + 8) for x in range(8 * wx, 8 * wx + 8)
                        if y < rows and x < cols]
                for hd in range(heads):
                    ch = slice(32 * hd, 32 * hd + 32)
                    for (yi, xi) in toks:
                        logits = []
                        for (yj, xj) in toks:
                            rel = ((yi - 8 * wy) - (yj - 8 * wy) + 7) * 15 + ((xi - 8 * wx) - (xj - 8 * wx) + 7)
                            logits.append(scale * np.dot(q[yi, xi, ch], k[yj, xj, ch]) + bias[hd, rel])
                        logits = np.array(logits)
                        p = np.exp(logits - logits.max())
                        p /= p.sum()
                        out[yi, xi, ch] = sum(pj * v[yj, xj, ch] for pj, (yj, xj) in zip(p, toks))
        return linear(out, name + ".proj")

    def block(t, name, heads):
        t = t + attention(layernorm(t, name + ".ln1"), name, heads)
        h = np.maximum(linear(layernorm(t, name + ".ln2"), name + ".fc1"), 0.0)
        return t + linear(h, name + ".fc2")

    e1 = block(linear(patches, "embed"), "enc1", 1)
    merged = np.zeros((T1h // 2, T1w // 2, 128))
    for ty in range(T1h // 2):
        for tx in range(T1w // 2):
            for dy in range(2):
                for dx in range(2):
                    merged[ty, tx, (dy * 2 + dx) * 32:(dy * 2 + dx) * 32 + 32] = e1[2 * ty + dy, 2 * tx + dx]
    e2 = block(linear(merged, "merge"), "enc2", 2)
    ex = linear(e2, "expand")
    d = np.zeros((T1h, T1w, 32))
    for ty in range(T1h // 2):
        for tx in range(T1w // 2):
            for dy in range(2):
                for dx in range(2):
                    d[2 * ty + dy, 2 * tx + dx] = ex[ty, tx, (dy * 2 + dx) * 32:(dy * 2 + dx) * 32 + 32]
    d = block(d + e1, "dec1", 1)
    r = linear(d, "head")
    out = np.zeros((3, H, W))
    for y in range(H):
        for x in range(W):
            for c in range(3):
                xv = toned[c, y, x]
                res = r[y // 4, x // 4, ((y % 4) * 4 + (x % 4)) * 3 + c]
                if xv >= 0.999:
                    out[c, y, x] = image[c, y, x]
                else:
                    xp = min(max(xv + res, 0.0), 0.999)
                    out[c, y, x] = xp / (1.0 - xp)
    return out


def file_params(model):
    """The model's parameters under the file's names, float64, unscaled."""
    named = dict(model.named_parameters())
    return {n: named[refine_model.file_name_to_parameter(n)].detach().double().numpy()
            for n in refine_model.expected_tensors()}


class ModelStructure(unittest.TestCase):
    def test_matches_the_loop_reference(self):
        # 72x40: token grid 18x10 (windows 3x2, partial), 9x5 after merging (2x1, partial).
        # 70x37: edge padding to 72x40 as well.
        model = randomize(RefineNet())
        params = file_params(model)
        for w, h in ((72, 40), (70, 37), (16, 8)):
            with self.subTest(size=f"{w}x{h}"):
                img = test_image(w, h)
                img[0, 1, 2, 3] = float("nan")
                img[0, 2, 5, 7] = -0.5
                img[0, 0, 3, 3] = 5000.0
                with torch.no_grad():
                    got = model(img)[0].double().numpy()
                want = ref_forward(params, img[0].double().numpy(), refine_model.DEFAULT_LOGIT_SCALE)
                self.assertEqual(got.shape, want.shape)
                # compared in the tone domain, where float32's rounding is not magnified by untone
                np.testing.assert_allclose(got / (1 + got), want / (1 + want), rtol=0, atol=2e-6)
                self.assertEqual(float(got[0, 3, 3]), 5000.0)  # bright pixels keep their value

    def test_channel_orders(self):
        # patch channel (dy*4 + dx)*3 + c; merge/expand channel (dy*2 + dx)*C + c
        img = torch.arange(3 * 8 * 16, dtype=torch.float32).reshape(1, 3, 8, 16)
        p = refine_model.patchify(img)
        self.assertEqual(tuple(p.shape), (1, 2, 4, 48))
        ty, tx, dy, dx, c = 1, 2, 3, 1, 2
        self.assertEqual(float(p[0, ty, tx, (dy * 4 + dx) * 3 + c]), float(img[0, c, 4 * ty + dy, 4 * tx + dx]))
        self.assertTrue(torch.equal(refine_model.unpatchify(p), img))
        t = torch.randn(1, 4, 6, 32)
        m = refine_model.merge_tokens(t)
        self.assertTrue(torch.equal(m[0, 1, 2, (1 * 2 + 0) * 32:(1 * 2 + 0) * 32 + 32], t[0, 3, 4]))
        self.assertTrue(torch.equal(refine_model.expand_tokens(m, 32), t))

    def test_relative_index(self):
        idx = refine_model.relative_index()
        i, j = 2 * 8 + 5, 7 * 8 + 0  # query (x5, y2), key (x0, y7)
        self.assertEqual(int(idx[i, j]), (2 - 7 + 7) * 15 + (5 - 0 + 7))
        self.assertEqual(int(idx.min()), 0)
        self.assertEqual(int(idx.max()), 224)

    def test_untrained_model_is_the_identity(self):
        model = RefineNet().eval()
        img = test_image(70, 37)
        img[0, :, 0, 0] = torch.tensor([998.0, 1500.0, 0.0])
        with torch.no_grad():
            out = model(img)
        np.testing.assert_allclose(out.numpy(), img.numpy(), rtol=2e-5, atol=1e-7)
        self.assertEqual(float(out[0, 1, 0, 0]), 1500.0)
        # negative and NaN are 0 after tone; alpha passes through
        bad = torch.tensor([-1.0, float("nan"), 0.25]).reshape(1, 3, 1, 1).repeat(1, 1, 8, 8)
        alpha = torch.full((1, 1, 8, 8), 0.5)
        with torch.no_grad():
            out = model(torch.cat([bad, alpha], 1))
        self.assertEqual(out.shape[1], 4)
        self.assertTrue(torch.all(out[0, :2] == 0))
        self.assertTrue(torch.allclose(out[0, 2], torch.tensor(0.25)))
        self.assertTrue(torch.all(out[0, 3] == 0.5))

    def test_masked_keys_get_zero_weight(self):
        model = randomize(RefineNet(), seed=3).eval()
        model.set_keep_attention(True)
        with torch.no_grad():
            out = model(test_image(72, 40))  # 18x10 tokens, then 9x5
        self.assertTrue(torch.all(torch.isfinite(out)))
        for name, rows, cols in (("enc1", 10, 18), ("enc2", 5, 9), ("dec1", 10, 18)):
            p = getattr(model, name).attn.last_attention  # (n, wy, wx, heads, 64, 64)
            wy, wx = p.shape[1], p.shape[2]
            self.assertEqual((wy, wx), (-(-rows // 8), -(-cols // 8)))
            for y in range(wy):
                for x in range(wx):
                    present = torch.tensor([8 * y + k // 8 < rows and 8 * x + k % 8 < cols for k in range(64)])
                    self.assertFalse(bool(present.all()) and (y == wy - 1 or x == wx - 1))
                    w = p[0, y, x]  # heads x queries x keys
                    self.assertTrue(torch.all(w[:, :, ~present] == 0), f"{name} window {x},{y}")
                    sums = w[:, present, :].sum(-1)
                    self.assertTrue(torch.allclose(sums, torch.ones_like(sums)))
                    self.assertTrue(torch.all(w[:, present][:, :, present] > 0))


# ---------------------------------------------------------------------------------------------
# model file


class ModelFile(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "m.d4rnet")
        self.model = randomize(RefineNet(), seed=5)
        export.export_model(self.model, self.path)

    def tearDown(self):
        self.dir.cleanup()

    def test_fnv1a64_vectors(self):
        self.assertEqual(export.fnv1a64(b""), 0xCBF29CE484222325)
        self.assertEqual(export.fnv1a64(b"a"), 0xAF63DC4C8601EC8C)
        self.assertEqual(export.fnv1a64(b"foobar"), 0x85944171F73967E8)

    def test_layout(self):
        blob = read_bytes(self.path)
        table = refine_model.expected_tensors()
        self.assertEqual(blob[0:8], b"d4rnet\0\0")
        self.assertEqual(struct.unpack_from("<I", blob, 8)[0], 1)
        self.assertEqual(struct.unpack_from("<I", blob, 12)[0], len(table))
        self.assertEqual(blob[16:48], b"refine-v1" + bytes(23))
        self.assertEqual(struct.unpack_from("<Q", blob, len(blob) - 8)[0], export.fnv1a64(blob[:-8]))
        want = export.model_tensors(self.model)
        end = 48 + 80 * len(table)
        for i, (name, shape) in enumerate(table.items()):
            rec = blob[48 + 80 * i: 48 + 80 * (i + 1)]
            self.assertEqual(rec[:48], name.encode() + bytes(48 - len(name)))
            dtype, rank, d0, d1, d2, d3, off = struct.unpack_from("<II4IQ", rec, 48)
            self.assertEqual((dtype, rank), (1, len(shape)))
            self.assertEqual((d0, d1, d2, d3), tuple(shape) + (1,) * (4 - len(shape)))
            self.assertEqual(off % 64, 0)
            self.assertTrue(all(b == 0 for b in blob[end:off]), f"padding before {name}")
            n = int(np.prod(shape)) * 2
            self.assertEqual(blob[off:off + n], want[name].astype("<f2").tobytes())
            end = off + n
        self.assertEqual(end, len(blob) - 8)

    def test_round_trip_is_bit_exact(self):
        want = export.model_tensors(self.model)
        got = export.read_model(self.path)
        self.assertEqual(list(got), list(refine_model.expected_tensors()))
        for name in want:
            self.assertEqual(got[name].dtype, np.float16)
            self.assertTrue(np.array_equal(got[name].view(np.uint16), want[name].view(np.uint16)), name)
        # and through a model loaded from the file and exported again
        other = os.path.join(self.dir.name, "again.d4rnet")
        export.export_model(export.load_model(self.path), other)
        self.assertEqual(read_bytes(other), read_bytes(self.path))

    def test_q_rows_are_scaled(self):
        got = export.read_model(self.path)
        scale = np.float32(1.0 / math.sqrt(32.0))
        named = dict(self.model.named_parameters())
        for block, c, _ in refine_model.BLOCKS:
            for part in ("w", "b"):
                src = named[f"{block}.attn.qkv.{'weight' if part == 'w' else 'bias'}"].detach().numpy()
                stored = got[f"{block}.qkv.{part}"]
                self.assertTrue(np.array_equal(stored[:c], (src[:c] * scale).astype(np.float16)))
                self.assertTrue(np.array_equal(stored[c:], src[c:].astype(np.float16)))
        # the loaded model (scale 1, file values) computes what the trained one does, to f16 precision
        img = test_image(40, 24)
        with torch.no_grad():
            a = self.model(img)
            b = export.load_model(self.path)(img)
        np.testing.assert_allclose(refine_model.tone(b).numpy(), refine_model.tone(a).numpy(), rtol=0, atol=2e-3)

    def test_any_flipped_byte_fails(self):
        blob = bytearray(read_bytes(self.path))
        for pos in (0, 9, 20, 60, 48 + 80 * 3 + 72, 5000, len(blob) // 2, len(blob) - 9, len(blob) - 1):
            bad = bytearray(blob)
            bad[pos] ^= 0x10
            with self.subTest(byte=pos), self.assertRaises(export.ModelFileError):
                export.parse_model(bytes(bad))
        with self.assertRaises(export.ModelFileError):
            export.parse_model(bytes(blob[:-1]))
        export.parse_model(bytes(blob))  # the original is fine

    def test_check_mode(self):
        out = io.StringIO()
        self.assertEqual(export.check_file(self.path, out=out), 0)
        self.assertIn("enc2.relbias", out.getvalue())
        self.assertIn("valid refine-v1 model", out.getvalue())
        tensors = export.read_model(self.path)
        tensors["enc2.relbias"] = np.zeros((1, 225), np.float16)
        del tensors["head.b"]
        self.assertEqual(sorted(export.check_refine_tensors(tensors)),
                         ["enc2.relbias: shape (1, 225), expected (2, 225)", "head.b: missing"])
        bad = os.path.join(self.dir.name, "bad.d4rnet")
        export.write_model(bad, tensors, "refine-v1")
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(export.check_file(bad, out=io.StringIO()), 1)


class Fp8Export(unittest.TestCase):
    """export.py --fp8: refine-v1-fp8 by post-training quantisation of enc2's linears."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.f16 = os.path.join(self.dir.name, "m.d4rnet")
        self.fp8 = os.path.join(self.dir.name, "m-fp8.d4rnet")
        export.export_model(randomize(RefineNet(), seed=7), self.f16)

    def tearDown(self):
        self.dir.cleanup()

    def test_quantize_is_round_to_nearest_even_and_saturates(self):
        table = export._e4m3_table()
        finite = [c for c in range(256) if not np.isnan(table[c])]
        rng = np.random.default_rng(3)
        # every code's value, the midpoints between neighbours (ties), and random values of every scale
        pos = np.sort(np.unique(table[[c for c in finite if c < 0x80]].astype(np.float64)))
        mids = (pos[1:] + pos[:-1]) / 2
        x = np.concatenate([pos, -pos, mids, -mids, rng.standard_normal(2000) * 10.0 ** rng.uniform(-4, 3, 2000),
                            [449.0, 464.0, 1e6, -1e6, np.inf, -np.inf]])
        got = export.quantize_e4m3(x)
        for v, code in zip(x, got):
            a = min(abs(v), 448.0)
            best = min(range(0x7F), key=lambda c: (abs(float(table[c]) - a), c % 2))  # nearest, then even
            want = best | (0x80 if np.signbit(v) else 0)
            self.assertEqual(int(code), want, f"{v!r}")
        self.assertEqual(int(export.quantize_e4m3([np.nan])[0]), 0x7F)
        self.assertEqual(int(export.quantize_e4m3([-0.0])[0]), 0x80)
        # midpoints go to the even code: 1.0 (0x38) and 1.125 (0x39): 1.0625 -> 0x38; 1.1875 -> 0x3a
        self.assertEqual(list(export.quantize_e4m3([1.0625, 1.1875])), [0x38, 0x3A])

    def test_from_a_model_file(self):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(export.main(["--fp8", self.f16, self.fp8]), 0)
        self.assertIn("valid refine-v1-fp8 model", out.getvalue())
        self.assertEqual(export.read_model_arch(self.fp8), "refine-v1-fp8")
        records = []
        got = export.read_model(self.fp8, expect_arch="refine-v1-fp8", records=records)
        dtypes = {r[0]: r[1] for r in records}
        self.assertEqual(list(got), list(export.expected_fp8_tensors()))
        src = export.read_model(self.f16)
        blob = read_bytes(self.fp8)
        for layer in export.FP8_LAYERS:
            self.assertEqual(dtypes[layer + ".w"], export.DTYPE_E4M3)
            self.assertEqual(dtypes[layer + ".scale"], export.DTYPE_F16)
            w = src[layer + ".w"].astype(np.float64)
            scale = got[layer + ".scale"]
            self.assertEqual(scale.shape, (1,))
            self.assertEqual(scale[0], np.float16(np.max(np.abs(w)) / 448.0))
            # the stored bytes are the quantisation of w / scale, and scale * e4m3 is within e4m3's half step
            off = [r[3] for r in records if r[0] == layer + ".w"][0]
            codes = np.frombuffer(blob[off: off + w.size], dtype=np.uint8).reshape(w.shape)
            self.assertTrue(np.array_equal(codes, export.quantize_e4m3(w / float(scale[0]))))
            d = export.dequantize_e4m3(codes, scale[0]).astype(np.float64)
            self.assertTrue(np.all(np.abs(d - w) <= np.abs(w) / 16 + float(scale[0]) * 2.0 ** -10), layer)
            self.assertLess(np.sqrt(np.mean((d - w) ** 2) / np.mean(w ** 2)), 0.04, layer)
        for name in src:
            if name[:-2] not in export.FP8_LAYERS:
                self.assertTrue(np.array_equal(got[name].view(np.uint16), src[name].view(np.uint16)), name)
        # the dequantised model computes close to the f16 one
        img = test_image(40, 24)
        with torch.no_grad():
            a = export.load_model(self.f16)(img)
            b = export.load_model(self.fp8)(img)
        np.testing.assert_allclose(refine_model.tone(b).numpy(), refine_model.tone(a).numpy(), rtol=0, atol=2e-2)

    def test_refine_v2_becomes_refine_v2_fp8(self):
        # the shipped refine-v2 file: enc2's qkv, proj and fc1 in e4m3, fc2 (256 inputs) and the rest its f16 bytes
        src_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "refine-v2.d4rnet")
        out = os.path.join(self.dir.name, "v2-fp8.d4rnet")
        with contextlib.redirect_stdout(io.StringIO()) as log:
            self.assertEqual(export.main(["--fp8", src_path, out]), 0)
        self.assertIn("valid refine-v2-fp8 model", log.getvalue())
        records = []
        got = export.read_model(out, expect_arch="refine-v2-fp8", records=records)
        self.assertEqual(list(got), list(export.expected_fp8_tensors("refine-v2-fp8")))
        dtypes = {r[0]: r[1] for r in records}
        src = export.read_model(src_path, expect_arch="refine-v2")
        self.assertEqual(export.FP8_LAYERS_V2, ("enc2.qkv", "enc2.proj", "enc2.fc1"))
        for layer in export.FP8_LAYERS_V2:
            self.assertEqual(dtypes[layer + ".w"], export.DTYPE_E4M3)
            w = src[layer + ".w"].astype(np.float64)
            self.assertEqual(got[layer + ".scale"][0], np.float16(np.max(np.abs(w)) / 448.0))
        self.assertEqual(dtypes["enc2.fc2.w"], export.DTYPE_F16)
        for name in src:
            if name[:-2] not in export.FP8_LAYERS_V2:
                self.assertTrue(np.array_equal(got[name].view(np.uint16), src[name].view(np.uint16)), name)
        # an FP8 file has no FP8 variant of its own
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(export.main(["--fp8", out, os.path.join(self.dir.name, "again.d4rnet")]), 1)
        self.assertIn("has no FP8 variant", err.getvalue())

    def test_from_a_checkpoint_is_the_file_of_its_export(self):
        ckpt = os.path.join(self.dir.name, "c.pt")
        model = randomize(RefineNet(), seed=7)
        torch.save({"model": model.state_dict(), "logit_scale": model.logit_scale, "step": 1}, ckpt)
        other = os.path.join(self.dir.name, "c-fp8.d4rnet")
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(export.main(["--fp8", ckpt, other]), 0)
            self.assertEqual(export.main(["--fp8", self.f16, self.fp8]), 0)
        self.assertEqual(read_bytes(other), read_bytes(self.fp8))

    def test_check_names_wrong_dtypes(self):
        tensors = export.read_model(self.f16)
        self.assertEqual(export.check_refine_tensors(tensors, "refine-v1-fp8")[:2],
                         ["enc2.qkv.w: stored as f16, expected e4m3", "enc2.qkv.scale: missing"])
        q = export.fp8_tensors(tensors)
        self.assertEqual(export.check_refine_tensors(q, "refine-v1-fp8"), [])
        self.assertIn("enc2.fc2.w: stored as e4m3, expected f16", export.check_refine_tensors(q))


# ---------------------------------------------------------------------------------------------
# frames


class FrameFiles(unittest.TestCase):
    def test_reads_a_file_written_with_struct(self):
        w, h = 5, 3
        rng = np.random.RandomState(0)
        out = rng.uniform(0, 10, (h, w, 3)).astype(np.float16)
        truth = rng.uniform(0, 10, (h, w, 3)).astype(np.float16)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "a.d4rframe")
            with open(path, "wb") as f:
                f.write(b"d4rfrm1\0" + struct.pack("<IIfI", w, h, 1.5, 42))
                for img in (out, truth):  # row-major, channels innermost
                    for y in range(h):
                        for x in range(w):
                            for c in range(3):
                                f.write(struct.pack("<e", float(img[y, x, c])))
            for mmap in (True, False):
                fr = frames.read_frame(path, mmap=mmap)
                self.assertEqual((fr.width, fr.height, fr.exposure, fr.index), (w, h, 1.5, 42))
                self.assertTrue(np.array_equal(fr.output, out))
                self.assertTrue(np.array_equal(fr.truth, truth))
            frames.write_frame(os.path.join(d, "b.d4rframe"), out, truth, exposure=1.5, index=42)
            self.assertEqual(read_bytes(path), read_bytes(os.path.join(d, "b.d4rframe")))
            self.assertEqual(frames.list_frames(d), [path, os.path.join(d, "b.d4rframe")])
            blob = read_bytes(path)
            for bad in (b"d4rfrm9\0" + blob[8:], b"d4rfrm2\0" + blob[8:], blob[:-2], blob + b"\0\0"):
                with open(path, "wb") as f:
                    f.write(bad)
                with self.assertRaises(frames.FrameError):
                    frames.read_frame(path)

    def test_version_2_reads_a_file_written_with_struct(self):
        w, h, rw, rh = 4, 2, 2, 1
        rng = np.random.RandomState(1)
        out, truth = (rng.uniform(0, 4, (h, w, 3)).astype(np.float16) for _ in range(2))
        depth = rng.uniform(0, 1, (rh, rw)).astype(np.float32)
        color = rng.uniform(0, 4, (rh, rw, 3)).astype(np.float16)
        motion = rng.uniform(-2, 2, (rh, rw, 2)).astype(np.float16)
        terms = rng.uniform(0, 1, (h, w, 13)).astype(np.float16)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "a.d4rframe")
            with open(path, "wb") as f:
                f.write(b"d4rfrm2\0" + struct.pack("<IIfIIIffII", w, h, 0.5, 3, rw, rh, -0.25, 0.125, 1, 13))
                for a, fmt in ((out, "<e"), (truth, "<e"), (depth, "<f"), (color, "<e"), (motion, "<e"),
                               (terms, "<e")):
                    for v in a.reshape(-1):  # row-major, channels innermost
                        f.write(struct.pack(fmt, float(v)))
            for mmap in (True, False):
                fr = frames.read_frame(path, mmap=mmap)
                i = fr.inputs
                self.assertEqual((fr.width, fr.height, fr.exposure, fr.index), (w, h, 0.5, 3))
                self.assertEqual((i.render_width, i.render_height, i.jitter_x, i.jitter_y, i.history),
                                 (rw, rh, -0.25, 0.125, True))
                for got, want in ((fr.output, out), (fr.truth, truth), (i.depth, depth), (i.color, color),
                                  (i.motion, motion), (i.terms, terms)):
                    self.assertTrue(np.array_equal(got, want))
            frames.write_frame(os.path.join(d, "b.d4rframe"), out, truth, 0.5, 3, fr.inputs)
            self.assertEqual(read_bytes(path), read_bytes(os.path.join(d, "b.d4rframe")))
            blob = read_bytes(path)
            bad_planes = blob[:44] + struct.pack("<I", 12) + blob[48:]
            bad_render = blob[:24] + struct.pack("<I", 5) + blob[28:]
            for bad, says in ((bad_planes, "12 term planes"), (bad_render, "render size 5x1"), (blob[:-2], "bytes"),
                              (blob[:40], "48-byte")):
                with open(path, "wb") as f:
                    f.write(bad)
                with self.assertRaisesRegex(frames.FrameError, says):
                    frames.read_frame(path)

    def test_working_to_linear_inverts_the_core_tone_map(self):
        rgb = np.array([[0.5, 2.0, 0.1]], dtype=np.float32)
        exposure = 1.5
        c = rgb * exposure
        c = c / (1 + c.max())
        ycocg = np.stack([c[:, 0] * 0.25 + c[:, 1] * 0.5 + c[:, 2] * 0.25, c[:, 0] * 0.5 - c[:, 2] * 0.5,
                          c[:, 1] * 0.5 - c[:, 0] * 0.25 - c[:, 2] * 0.25], axis=-1)
        self.assertTrue(np.allclose(frames.working_to_linear(ycocg, exposure), rgb, rtol=1e-5))


# ---------------------------------------------------------------------------------------------
# training end to end


class Training(unittest.TestCase):
    def test_a_few_steps_on_synthetic_frames(self):
        import synth_frames
        import train

        with tempfile.TemporaryDirectory() as d:
            data = os.path.join(d, "data")
            with contextlib.redirect_stdout(io.StringIO()):
                synth_frames.main([data, "--count", "3", "--size", "84x60"])
            models = []
            for run in ("a", "b"):
                out_dir = os.path.join(d, run)
                log = io.StringIO()
                with contextlib.redirect_stdout(log):
                    rc = train.main([data, "--out", out_dir, "--steps", "4", "--batch", "2", "--crop-min", "40",
                                     "--crop-max", "56", "--val-crops", "4", "--val-size", "48x40",
                                     "--log-every", "2", "--eval-every", "2", "--eval-frames", "1",
                                     "--holdout-frames", "1", "--device", "cpu"])
                self.assertEqual(rc, 0, log.getvalue())
                self.assertIn("validation PSNR: input", log.getvalue())
                path = os.path.join(out_dir, "refine-v1.d4rnet")
                self.assertEqual(export.check_refine_tensors(export.read_model(path)), [])
                models.append(read_bytes(path))
                self.assertTrue(os.path.exists(os.path.join(out_dir, "summary.json")))
            self.assertEqual(models[0], models[1], "same seed, same model file")
            # the head has left zero: training changed the identity network
            self.assertTrue(np.any(export.read_model(path)["head.w"] != 0))


def synth_v2(path, index, w=24, h=16, seed=0):
    """A synthetic version 2 dump: smooth-ish random colours, terms in the core's working-space ranges."""
    rng = np.random.RandomState(seed * 100 + index)
    rw, rh = w // 2, h // 2
    truth = rng.uniform(0, 3, (h, w, 3))
    out = truth * rng.uniform(0.8, 1.2, (h, w, 3))
    terms = rng.uniform(0, 1, (h, w, 13))
    terms[..., [1, 2, 6, 7, 9, 10]] = rng.uniform(-0.2, 0.2, (h, w, 6))  # Co, Cg
    terms[..., 3] = rng.uniform(0, 16, (h, w))  # history weight
    terms[..., 4] = rng.uniform(0, 1, (h, w)) > 0.2  # reprojected
    inputs = frames.Inputs(rw, rh, 0.25, -0.125, index > 0, rng.uniform(0.1, 1, (rh, rw)),
                           rng.uniform(0, 3, (rh, rw, 3)), rng.uniform(-3, 3, (rh, rw, 2)), terms)
    frames.write_frame(path, out, truth, 1.5, index, inputs)


class BlendExperiment(unittest.TestCase):
    def test_planes_equal_headroom_v2(self):
        import headroom_v2
        import train_blend

        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "train-1-f005.d4rframe")
            synth_v2(path, 5)
            ref = headroom_v2.load_frame(path)
            mine = train_blend.frame_planes(frames.read_frame(path), torch.device("cpu"))
            for name in ref:
                diff = (mine[train_blend.SLICE[name]] - ref[name]).abs().max().item()
                self.assertLess(diff, 1e-5, name)
            self.assertAlmostEqual(train_blend.ssim(mine[None, :3], mine[None, :3]), 1.0, places=9)

    def test_a_few_steps_end_to_end_are_reproducible(self):
        import train_blend

        with tempfile.TemporaryDirectory() as d:
            for scene, count in (("train-1", 6), ("train-2", 6), ("city", 16)):
                os.makedirs(os.path.join(d, scene))
                for k in range(count):
                    synth_v2(os.path.join(d, scene, f"{scene}-f{k:03d}.d4rframe"), k, seed=len(scene) + count)
            summaries = []
            for run in ("a", "b"):
                out = os.path.join(d, f"{run}.json")
                with contextlib.redirect_stdout(io.StringIO()) as log:
                    rc = train_blend.main([d, "--variants", "blend32,blend64res,res64,winres,winrestone,winmlp", "--train-frames", "4-5",
                                           "--eval", "city", "--seconds", "0", "--steps", "3", "--batch", "2",
                                           "--crop", "12", "--device", "cpu", "--io-threads", "1",
                                           "--summary", out])
                self.assertEqual(rc, 0, log.getvalue())
                with open(out) as f:
                    summary = json.load(f)
                for v in summary["variants"].values():
                    v.pop("seconds")
                summaries.append(summary)
            self.assertEqual(summaries[0], summaries[1], "same seed, same results")
            self.assertEqual(summaries[0]["train_scenes"], ["train-1", "train-2"])
            self.assertEqual(summaries[0]["variants"]["blend32"]["steps"], 3)
            with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
                train_blend.main([d, "--train", "city", "--device", "cpu"])


def exported_win64res(seed, folder):
    """A freshly initialised win64res network (torch seed SEED) and the refine-v2 file train_blend.export_v2 writes
    of it in FOLDER (through a saved checkpoint, as --export does)."""
    import train_blend

    torch.manual_seed(seed)
    net = train_blend.WinBlendNet(**train_blend.VARIANTS["win64res"])
    ckpt, out = os.path.join(folder, "w.pt"), os.path.join(folder, "v2.d4rnet")
    torch.save(net.state_dict(), ckpt)
    train_blend.export_v2(ckpt, "win64res", out)
    return net, out


class RefineV2Export(unittest.TestCase):
    def test_a_win64res_checkpoint_becomes_a_refine_v2_file(self):
        import export

        with tempfile.TemporaryDirectory() as d:
            net, out = exported_win64res(3, d)
            tensors = export.read_model(out, expect_arch="refine-v2")
        params = dict(net.named_parameters())
        self.assertEqual(list(tensors), list(refine_model.expected_tensors()))
        for name, value in tensors.items():
            want = params[refine_model.file_name_to_parameter(name)].detach().numpy().astype(np.float32)
            self.assertEqual(value.shape, want.shape, name)
            if name.endswith(".qkv.w") or name.endswith(".qkv.b"):
                want[: want.shape[0] // 3] *= refine_model.DEFAULT_LOGIT_SCALE
            np.testing.assert_array_equal(value, want.astype(np.float16), err_msg=name)
        self.assertEqual(tensors["embed.w"].shape, (64, 16 * 23))
        self.assertEqual(tensors["head.w"].shape, (16 * 8, 64))

    def test_training_can_continue_from_a_saved_checkpoint(self):
        import train_blend

        with tempfile.TemporaryDirectory() as d:
            for scene, count in (("train-1", 6), ("city", 16)):
                os.makedirs(os.path.join(d, scene))
                for k in range(count):
                    synth_v2(os.path.join(d, scene, f"{scene}-f{k:03d}.d4rframe"), k, seed=3)
            common = [d, "--variants", "winres", "--train-frames", "4-5", "--eval", "city", "--seconds", "0",
                      "--batch", "2", "--crop", "16", "--device", "cpu", "--io-threads", "1"]
            saved = os.path.join(d, "saved")
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(train_blend.main(common + ["--steps", "2", "--save", saved]), 0)
            ckpt = os.path.join(saved, "winres.pt")
            with contextlib.redirect_stdout(io.StringIO()) as log:
                self.assertEqual(train_blend.main(common + ["--steps", "1", "--init", f"winres={ckpt}"]), 0)
            self.assertIn(f"winres: starting from {ckpt}", log.getvalue())
            with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
                train_blend.main(common + ["--init", "nope=x.pt"])

    def test_a_refine_v2_file_loads_back_into_its_network(self):
        import train_blend

        with tempfile.TemporaryDirectory() as d:
            net, out = exported_win64res(5, d)
            back = train_blend.WinBlendNet(**train_blend.VARIANTS["win64res"])
            train_blend.load_v2(back, out)
        for (name, p), q in zip(net.named_parameters(), back.parameters()):
            np.testing.assert_allclose(q.detach().numpy(), p.detach().numpy(), rtol=2e-3, atol=1e-4, err_msg=name)

    def test_win64mlp_starts_from_a_refine_v2_files_trunk(self):
        import train_blend

        with tempfile.TemporaryDirectory() as d:
            net, out = exported_win64res(6, d)
            torch.manual_seed(1)
            mlp = train_blend.WinBlendNet(**train_blend.VARIANTS["win64mlp"])
            fresh = {k: v.clone() for k, v in mlp.state_dict().items()}
            left = train_blend.load_v2(mlp, out)
            # The head (per pixel 16 context channels instead of the blend's 8 outputs) is not taken.
            self.assertEqual(left, ["head.w", "head.b"])
            # ... nor is a state_dict's: the same trunk from a checkpoint of win64res.
            torch.manual_seed(1)
            mlp2 = train_blend.WinBlendNet(**train_blend.VARIANTS["win64mlp"])
            left2 = train_blend.load_matching(mlp2, net.state_dict())
        self.assertEqual(sorted(left2), sorted(["head.weight", "head.bias", "mlp1.weight", "mlp1.bias", "mlp2.weight",
                                                "mlp2.bias", "out.weight", "out.bias"]))
        trunk = dict(net.named_parameters())
        for name, p in mlp.named_parameters():
            if name in trunk and trunk[name].shape == p.shape:
                np.testing.assert_allclose(p.detach().numpy(), trunk[name].detach().numpy(), rtol=2e-3, atol=1e-4,
                                           err_msg=name)
                np.testing.assert_array_equal(mlp2.state_dict()[name].numpy(), trunk[name].detach().numpy(),
                                              err_msg=name)
            else:
                np.testing.assert_array_equal(p.detach().numpy(), fresh[name].numpy(), err_msg=name)

    def test_other_shapes_are_refused(self):
        import train_blend

        net = train_blend.WinBlendNet(**train_blend.VARIANTS["winres"])
        with self.assertRaises(SystemExit):
            train_blend.v2_tensors(net)


if __name__ == "__main__":
    unittest.main()
