#!/usr/bin/env python3
"""Trains refine-v1 (docs/network.md) on a folder of .d4rframe files and exports the model file.

Every .d4rframe file under DATA (recursively, sorted by path) is training data: pairs of the core's
output and the scene's truth written by `d4r demo --scene train-<seed> --dump-frames DIR`
(frames.py). The evaluation scenes never reach this script.

Each step takes a batch of random crops (one size per batch, width and height drawn independently
from the multiples of 8 in [--crop-min, --crop-max], so most crops are not multiples of 32 and the
attention windows at their right and bottom edges are partial), flips a random half of them
horizontally, runs the network and minimises the L1 distance to the truth in the display domain the
demo scores: display = srgb_encode(reinhard(max(0, linear * exposure))) with each frame's exposure.
AdamW, linear warm-up then cosine decay to --min-lr-ratio of --lr; the decay runs over whichever of
the budgets ends first: --steps, or --minutes of wall time.

Progress lines show the step, the mean training loss since the last line, the learning rate and the
display PSNR of a fixed set of validation crops, refined and unrefined (the core's output as is).
The validation crops are drawn once, with their own seed, from the training frames - so they measure
fit, not generalisation - or, with --holdout-frames N, from the last N files, which are then not
trained on.

At the end (budget spent or Ctrl-C) it writes to --out: checkpoint.pt (state dict, step, arguments),
refine-v1.d4rnet (export.py; q rows scaled, f16) and summary.json; it reads the model file back,
and prints the final figures: validation PSNR of the input, of the trained float32 model, of the
exported f16 weights, and of the exported weights with f16 tensors between steps (closer to d4r's
C++ numerics, not bit-exact), and the same on up to --eval-frames whole frames.

The untrained network is the identity (zero head), so training starts from the core's output.
Seeds: torch, numpy and the data order all follow --seed; with --deterministic (the default)
torch.use_deterministic_algorithms is on (warn-only). If the measured speed says --minutes ends
before --steps, the schedule is shortened to the steps that fit (printed); such a run depends on
the machine's speed, so for a reproducible run give --steps and a generous --minutes.

Runs on CUDA if available (bf16 autocast by default there), else on the CPU in float32.
Example: python3 tools/network/train.py out/frames --out out/network --minutes 20
"""

import argparse
import json
import math
import os
import random
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("data", help="folder of .d4rframe files (searched recursively)")
    ap.add_argument("--out", default="out/network", help="output folder (default out/network)")
    ap.add_argument("--steps", type=int, default=30000, help="step budget (default 30000)")
    ap.add_argument("--minutes", type=float, default=60.0, help="wall-time budget in minutes (default 60)")
    ap.add_argument("--batch", type=int, default=32, help="crops per step (default 32)")
    ap.add_argument("--crop-min", type=int, default=96, help="smallest crop side, multiple of 8 (default 96)")
    ap.add_argument("--crop-max", type=int, default=192, help="largest crop side, multiple of 8 (default 192)")
    ap.add_argument("--lr", type=float, default=5e-4, help="peak learning rate (default 5e-4)")
    ap.add_argument("--min-lr-ratio", type=float, default=0.02, help="final lr / peak lr (default 0.02)")
    ap.add_argument("--warmup", type=int, default=500, help="warm-up steps, at most 5%% of --steps (default 500)")
    ap.add_argument("--weight-decay", type=float, default=0.01, help="AdamW decay of the weight matrices")
    ap.add_argument("--clip", type=float, default=1.0, help="gradient norm clip, 0 for none (default 1)")
    ap.add_argument("--seed", type=int, default=1, help="seed of everything (default 1)")
    ap.add_argument("--val-crops", type=int, default=64, help="validation crops (default 64)")
    ap.add_argument("--val-size", default="152x120",
                    help="validation crop WxH, multiples of 8 (default 152x120: partial windows)")
    ap.add_argument("--holdout-frames", type=int, default=0,
                    help="hold back the last N files for validation only (default 0: validate on training frames)")
    ap.add_argument("--eval-frames", type=int, default=4, help="whole frames evaluated at the end (default 4)")
    ap.add_argument("--log-every", type=int, default=100, help="steps between progress lines (default 100)")
    ap.add_argument("--eval-every", type=int, default=1000, help="steps between validations (default 1000)")
    ap.add_argument("--device", default="auto", help="auto (cuda if available), cuda, cuda:N or cpu")
    ap.add_argument("--amp", choices=("auto", "bf16", "off"), default="auto",
                    help="bf16 autocast: auto = on for CUDA, off for the CPU")
    ap.add_argument("--compile", action="store_true", help="torch.compile the model (PyTorch 2; default off)")
    ap.add_argument("--data-on-device", choices=("auto", "yes", "no"), default="auto",
                    help="copy all frames to the device (auto: CUDA and under 48 GiB)")
    ap.add_argument("--no-deterministic", dest="deterministic", action="store_false",
                    help="do not call torch.use_deterministic_algorithms")
    args = ap.parse_args(argv)
    for name in ("crop_min", "crop_max"):
        v = getattr(args, name)
        if v < 8 or v % 8:
            ap.error(f"--{name.replace('_', '-')} {v}: a positive multiple of 8")
    if args.crop_min > args.crop_max:
        ap.error("--crop-min is above --crop-max")
    try:
        vw, vh = (int(s) for s in args.val_size.lower().split("x"))
    except ValueError:
        ap.error(f"--val-size {args.val_size!r}: expected WxH")
    if vw < 8 or vh < 8 or vw % 8 or vh % 8:
        ap.error(f"--val-size {args.val_size}: multiples of 8")
    args.val_w, args.val_h = vw, vh
    if min(args.steps, args.batch, args.log_every, args.eval_every) < 1 or args.minutes <= 0:
        ap.error("--steps, --batch, --log-every, --eval-every and --minutes must be positive")
    return args


class CropSource:
    """Random crops of the frames, as (output, truth, exposure) float32 batches on the device.
    Frames stay memory-mapped (numpy) unless copied to the device as f16 tensors."""

    def __init__(self, frames, device, on_device):
        import torch

        self.frames = frames
        self.device = device
        self.exposure = [f.exposure for f in frames]
        self.on_device = on_device
        if on_device:
            def load(a):
                return torch.from_numpy(np.ascontiguousarray(a)).permute(2, 0, 1).contiguous().to(device)
            self.out = [load(f.output) for f in frames]
            self.truth = [load(f.truth) for f in frames]

    def max_size(self):
        return (min(f.width for f in self.frames) // 8 * 8, min(f.height for f in self.frames) // 8 * 8)

    def batch(self, picks, w, h):
        """picks: list of (frame, x, y, flip). Returns output, truth (N, 3, h, w), exposure (N, 1, 1, 1)."""
        import torch

        outs, truths = [], []
        for i, x, y, flip in picks:
            if self.on_device:
                o = self.out[i][:, y:y + h, x:x + w]
                t = self.truth[i][:, y:y + h, x:x + w]
            else:
                f = self.frames[i]
                o = torch.from_numpy(np.array(f.output[y:y + h, x:x + w], dtype=np.float16)).permute(2, 0, 1)
                t = torch.from_numpy(np.array(f.truth[y:y + h, x:x + w], dtype=np.float16)).permute(2, 0, 1)
            if flip:
                o, t = o.flip(-1), t.flip(-1)
            outs.append(o)
            truths.append(t)
        out = torch.stack(outs).to(self.device, torch.float32)
        truth = torch.stack(truths).to(self.device, torch.float32)
        exposure = torch.tensor([self.exposure[i] for i, _, _, _ in picks], dtype=torch.float32,
                                device=self.device).reshape(-1, 1, 1, 1)
        return out, truth, exposure


def pick_crops(rng, frames, indices, count, w, h, flips):
    """count random (frame, x, y, flip) crops of w x h from the frames listed in indices."""
    picks = []
    for _ in range(count):
        i = indices[rng.randint(len(indices))]
        f = frames[i]
        x = rng.randint(f.width - w + 1)
        y = rng.randint(f.height - h + 1)
        flip = bool(rng.randint(2)) if flips else False
        picks.append((i, x, y, flip))
    return picks


def lr_at(args, step, planned):
    """Linear warm-up, then cosine decay to the floor at step `planned`."""
    warmup = max(1, min(args.warmup, planned // 20))
    if step < warmup:
        return args.lr * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, planned - warmup))
    floor = args.lr * args.min_lr_ratio
    return floor + (args.lr - floor) * 0.5 * (1.0 + math.cos(math.pi * progress))


def psnr(mse):
    return float("inf") if mse <= 0 else 10.0 * math.log10(1.0 / mse)


def evaluate(model, batches, amp_ctx, device):
    """Display-domain MSE of the model over batches [(output, truth, exposure)] (pooled)."""
    import torch
    from refine_model import display

    total, count = 0.0, 0
    was_training = model.training
    model.eval()
    with torch.no_grad(), amp_ctx():
        for out, truth, exposure in batches:
            pred = model(out.to(device))
            d = display(pred, exposure.to(device)) - display(truth.to(device), exposure.to(device))
            total += float(torch.sum(d.float() ** 2))
            count += d.numel()
    model.train(was_training)
    return total / max(1, count)


def input_mse(batches):
    import torch
    from refine_model import display

    total, count = 0.0, 0
    for out, truth, exposure in batches:
        d = display(out, exposure) - display(truth, exposure)
        total += float(torch.sum(d ** 2))
        count += d.numel()
    return total / max(1, count)


def main(argv=None):
    args = parse_args(argv)
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # before CUDA starts: deterministic cuBLAS
    import contextlib

    import torch

    from export import export_model, load_model
    from frames import list_frames, read_frame
    from refine_model import RefineNet, display

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    if args.deterministic:
        torch.use_deterministic_algorithms(True, warn_only=True)

    if args.device == "auto":
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    else:
        device = torch.device(args.device)
    use_amp = args.amp == "bf16" or (args.amp == "auto" and device.type == "cuda")

    def amp_ctx():
        if use_amp:
            return torch.autocast(device_type=device.type, dtype=torch.bfloat16)
        return contextlib.nullcontext()

    paths = list_frames(args.data)
    if not paths:
        print(f"error: no .d4rframe files under {args.data}", file=sys.stderr)
        return 1
    frames = [read_frame(p) for p in paths]
    if args.holdout_frames >= len(frames):
        print(f"error: --holdout-frames {args.holdout_frames} leaves nothing of {len(frames)} frames to train on",
              file=sys.stderr)
        return 1
    n_train = len(frames) - args.holdout_frames
    train_idx = list(range(n_train))
    val_idx = list(range(n_train, len(frames))) or train_idx
    total_bytes = sum(f.output.nbytes + f.truth.nbytes for f in frames)
    on_device = args.data_on_device == "yes" or (
        args.data_on_device == "auto" and device.type == "cuda" and total_bytes < 48 * 2 ** 30)
    source = CropSource(frames, device, on_device)
    max_w, max_h = source.max_size()
    if max_w < 8 or max_h < 8:
        print("error: a frame is smaller than 8x8", file=sys.stderr)
        return 1
    sizes_w = [s for s in range(args.crop_min, args.crop_max + 1, 8) if s <= max_w] or [max_w]
    sizes_h = [s for s in range(args.crop_min, args.crop_max + 1, 8) if s <= max_h] or [max_h]
    val_w, val_h = min(args.val_w, max_w), min(args.val_h, max_h)

    print(f"data: {len(frames)} frames ({n_train} trained on, validation from "
          f"{'the last ' + str(len(val_idx)) + ' held back' if args.holdout_frames else 'the training frames'}), "
          f"{total_bytes / 2 ** 20:.1f} MiB{' on the device' if on_device else ''}; sizes "
          f"{min(f.width for f in frames)}x{min(f.height for f in frames)}.."
          f"{max(f.width for f in frames)}x{max(f.height for f in frames)}")
    print(f"device: {device}{' (bf16 autocast)' if use_amp else ' (float32)'}, torch {torch.__version__}; "
          f"crops {sizes_w[0]}..{sizes_w[-1]} x {sizes_h[0]}..{sizes_h[-1]}, batch {args.batch}; "
          f"budget {args.steps} steps or {args.minutes:g} min; seed {args.seed}")

    # Validation crops: their own generator, so they do not depend on the training draws.
    val_rng = np.random.RandomState(args.seed + 1_000_003)
    val_picks = pick_crops(val_rng, frames, val_idx, args.val_crops, val_w, val_h, flips=False)
    val_batches = [source.batch(val_picks[i:i + 16], val_w, val_h) for i in range(0, len(val_picks), 16)]
    val_input_psnr = psnr(input_mse(val_batches))

    model = RefineNet().to(device)
    run_model = model
    if args.compile:
        if not hasattr(torch, "compile"):
            print("error: --compile needs PyTorch 2", file=sys.stderr)
            return 1
        run_model = torch.compile(model, dynamic=True)
    decay = [p for n, p in model.named_parameters() if n.endswith("weight") and p.ndim == 2]
    other = [p for n, p in model.named_parameters() if not (n.endswith("weight") and p.ndim == 2)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": other, "weight_decay": 0.0}], lr=args.lr, betas=(0.9, 0.99))
    rng = np.random.RandomState(args.seed)
    print(f"model: refine-v1, {sum(p.numel() for p in model.parameters())} parameters; "
          f"validation: {len(val_picks)} crops of {val_w}x{val_h}, input PSNR {val_input_psnr:.3f} dB")

    os.makedirs(args.out, exist_ok=True)
    start = time.time()
    budget_s = args.minutes * 60.0
    step, loss_n, last_loss = 0, 0, float("nan")
    loss_sum = torch.zeros((), device=device)  # summed on the device: no sync per step
    history = []
    stopped = "steps"
    # The schedule runs over `planned` steps: --steps, unless the speed measured so far says the
    # time budget ends first; then it is cut down (never raised) at the progress lines, so a run
    # that the clock does not limit has a schedule that depends on the step count alone.
    planned, mark = args.steps, None

    def replan(now):
        nonlocal planned
        if mark is None or step - mark[0] < 10:
            return
        rate = (step - mark[0]) / max(1e-9, now - mark[1])
        can = step + int(rate * (budget_s * 0.97 - (now - start)))
        if can < planned:
            planned = max(step + 1, can)
            print(f"time budget: the schedule now ends at step {planned}", flush=True)

    try:
        while step < planned:
            now = time.time()
            if now - start >= budget_s:
                stopped = "minutes"
                break
            if step == 10:  # speed measured from here: the first steps include start-up and compilation
                mark = (step, now)
            if step == 60:
                replan(now)
            lr = lr_at(args, step, planned)
            for g in opt.param_groups:
                g["lr"] = lr
            w = sizes_w[rng.randint(len(sizes_w))]
            h = sizes_h[rng.randint(len(sizes_h))]
            out, truth, exposure = source.batch(pick_crops(rng, frames, train_idx, args.batch, w, h, True), w, h)
            with amp_ctx():
                pred = run_model(out)
            loss = torch.mean(torch.abs(display(pred, exposure) - display(truth, exposure)))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if args.clip > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            opt.step()
            step += 1
            loss_sum += loss.detach().float()
            loss_n += 1
            do_eval = step % args.eval_every == 0 or step == args.steps
            if step % args.log_every == 0 or do_eval:
                last_loss = float(loss_sum) / loss_n
                if not math.isfinite(last_loss):
                    print(f"error: the loss is not finite (steps {step - loss_n + 1}..{step})", file=sys.stderr)
                    return 1
                line = (f"step {step:6d}  loss {last_loss:.5f}  lr {lr:.2e}  "
                        f"{time.time() - start:7.1f} s")
                if do_eval:
                    v = psnr(evaluate(run_model, val_batches, amp_ctx, device))
                    line += f"  val PSNR {v:.3f} dB (input {val_input_psnr:.3f}, {v - val_input_psnr:+.3f})"
                    history.append({"step": step, "seconds": time.time() - start, "loss": last_loss, "val_psnr": v})
                print(line, flush=True)
                loss_sum.zero_()
                loss_n = 0
                replan(time.time())
    except KeyboardInterrupt:
        stopped = "interrupted"
        print("interrupted: finishing with the current weights")
    if stopped == "steps" and planned < args.steps:
        stopped = "minutes (shortened schedule)"
    if loss_n:
        last_loss = float(loss_sum) / loss_n
    train_s = time.time() - start

    # Save, export, read back and measure what was written.
    ckpt_path = os.path.join(args.out, "checkpoint.pt")
    torch.save({"model": model.state_dict(), "step": step, "logit_scale": model.logit_scale,
                "args": {k: v for k, v in vars(args).items()}}, ckpt_path)
    model_path = os.path.join(args.out, "refine-v1.d4rnet")
    size = export_model(model, model_path)
    exported = load_model(model_path).to(device)
    f32_psnr = psnr(evaluate(model, val_batches, contextlib.nullcontext, device))
    f16w_psnr = psnr(evaluate(exported, val_batches, contextlib.nullcontext, device))
    exported.round_f16 = True
    f16a_psnr = psnr(evaluate(exported, val_batches, contextlib.nullcontext, device))
    exported.round_f16 = False

    # Whole frames (edge padding, partial windows at the true image edges), one at a time.
    whole = []
    pool = val_idx if args.holdout_frames else train_idx
    eval_idx = sorted({pool[int(round(k))] for k in np.linspace(0, len(pool) - 1, args.eval_frames)}) \
        if args.eval_frames > 0 else []
    for i in eval_idx:
        f = frames[i]
        batch = [source.batch([(i, 0, 0, False)], f.width, f.height)]
        whole.append({"file": f.path, "input": psnr(input_mse(batch)),
                      "f32": psnr(evaluate(model, batch, contextlib.nullcontext, device)),
                      "f16": psnr(evaluate(exported, batch, contextlib.nullcontext, device))})

    print(f"done: {step} steps in {train_s:.1f} s (stopped by {stopped}), last loss {last_loss:.5f}")
    print(f"validation PSNR: input {val_input_psnr:.3f} dB, trained {f32_psnr:.3f} dB "
          f"({f32_psnr - val_input_psnr:+.3f}), exported f16 weights {f16w_psnr:.3f} dB, "
          f"f16 weights and tensors {f16a_psnr:.3f} dB")
    for r in whole:
        print(f"whole frame {os.path.basename(r['file'])}: input {r['input']:.3f} dB, trained {r['f32']:.3f} dB "
              f"({r['f32'] - r['input']:+.3f}), exported {r['f16']:.3f} dB")
    print(f"wrote {model_path} ({size} bytes), {ckpt_path}")
    summary = {"steps": step, "seconds": train_s, "stopped_by": stopped, "last_loss": last_loss,
               "val_input_psnr": val_input_psnr, "val_psnr": f32_psnr, "val_psnr_exported": f16w_psnr,
               "val_psnr_exported_f16_tensors": f16a_psnr, "whole_frames": whole, "history": history,
               "frames": len(frames), "trained_frames": n_train, "device": str(device),
               "torch": torch.__version__, "args": vars(args), "model": model_path, "model_bytes": size}
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
