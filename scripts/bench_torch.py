#!/usr/bin/env python3
"""PyTorch twin of `cargo run --release -p xq-nn --example bench_nn`.

Builds the same network as xq-nn's PolicyValueNet (same layers, same input shape
[batch, 21, 10, 9], same policy index size) and prints inference positions/s at batch
1/16/64/256 and training samples/s at batch 256 (AdamW, policy + WDL cross-entropy), at
1 and 2 threads, as a markdown table in the same format as the Rust benchmark.

Usage: scripts/bench_torch.sh [--threads 1,2] [--nets 6x64,4x32] [--norms batch_norm,skip_init]
                              [--seconds 1.0] [--reps 5]
"""

import argparse
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

INPUT_PLANES = 21
ROWS, COLS = 10, 9


def policy_size() -> int:
    """Size of the xq-nn policy index (same geometry as crates/xq-nn/src/policy.rs)."""

    def elephant(f, r):
        return (f, r) in {(2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4)}

    def advisor(f, r):
        return 3 <= f <= 5 and r <= 2 and (f + r) % 2 == 1

    n = 0
    for a in range(90):
        for b in range(90):
            if a == b:
                continue
            ff, fr, tf, tr = a % 9, a // 9, b % 9, b // 9
            df, dr = abs(tf - ff), abs(tr - fr)
            if df == 0 or dr == 0 or {df, dr} == {1, 2}:
                n += 1
            elif df == 2 and dr == 2 and elephant(ff, fr) and elephant(tf, tr):
                n += 1
            elif df == 1 and dr == 1 and advisor(ff, fr) and advisor(tf, tr) and ((ff, fr) == (4, 1) or (tf, tr) == (4, 1)):
                n += 1
    return n


POLICY_SIZE = policy_size()


class ConvNorm(nn.Module):
    def __init__(self, cin, cout, k, bn):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, padding=k // 2, bias=not bn)
        self.norm = nn.BatchNorm2d(cout) if bn else None

    def forward(self, x):
        y = self.conv(x)
        return self.norm(y) if self.norm is not None else y


class Block(nn.Module):
    def __init__(self, c, trunk_bn):
        super().__init__()
        self.conv1 = ConvNorm(c, c, 3, trunk_bn)
        self.conv2 = ConvNorm(c, c, 3, trunk_bn)
        self.gain = None if trunk_bn else nn.Parameter(torch.zeros(1))

    def forward(self, x):
        y = self.conv2(F.relu(self.conv1(x)))
        if self.gain is not None:
            y = y * self.gain
        return F.relu(x + y)


class PolicyValueNet(nn.Module):
    def __init__(self, blocks, channels, trunk_norm="batch_norm", head_bn=True, policy_channels=4, value_channels=2, value_hidden=64):
        super().__init__()
        trunk_bn = trunk_norm == "batch_norm"
        self.stem = ConvNorm(INPUT_PLANES, channels, 3, trunk_bn)
        self.blocks = nn.Sequential(*[Block(channels, trunk_bn) for _ in range(blocks)])
        self.policy_conv = ConvNorm(channels, policy_channels, 1, head_bn)
        self.policy_fc = nn.Linear(policy_channels * ROWS * COLS, POLICY_SIZE)
        self.value_conv = ConvNorm(channels, value_channels, 1, head_bn)
        self.value_fc1 = nn.Linear(value_channels * ROWS * COLS, value_hidden)
        self.value_fc2 = nn.Linear(value_hidden, 3)

    def forward(self, x):
        x = self.blocks(F.relu(self.stem(x)))
        p = F.relu(self.policy_conv(x)).flatten(1)
        v = F.relu(self.value_conv(x)).flatten(1)
        return self.policy_fc(p), self.value_fc2(F.relu(self.value_fc1(v)))


def sample_inputs(batch, gen):
    # Sparse 0/1 piece planes plus constant planes, like real encodings.
    x = (torch.rand(batch, INPUT_PLANES, ROWS, COLS, generator=gen) < 0.05).float()
    x[:, 18] = 1.0
    return x


def timed(fn, seconds, reps):
    """Median over `reps` repetitions of calls/s, each repetition running about `seconds`."""
    fn()  # warm-up
    t0 = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t0, 1e-6)
    iters = max(1, int(seconds / once))
    rates = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        rates.append(iters / (time.perf_counter() - t0))
    return statistics.median(rates)


def bench_net(blocks, channels, norm, threads, seconds, reps, gen):
    torch.set_num_threads(threads)
    net = PolicyValueNet(blocks, channels, trunk_norm=norm)
    net.eval()
    row = {}
    for bs in (1, 16, 64, 256):
        x = sample_inputs(bs, gen)

        def infer():
            with torch.inference_mode():
                p, v = net(x)
                torch.softmax(v, 1)

        row[f"bs{bs}"] = timed(infer, seconds, reps) * bs
    net.train()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-4)
    bs = 256
    x = sample_inputs(bs, gen)
    pt = torch.softmax(torch.randn(bs, POLICY_SIZE, generator=gen), 1)
    vt = torch.softmax(torch.randn(bs, 3, generator=gen), 1)

    def step():
        opt.zero_grad(set_to_none=True)
        p, v = net(x)
        loss = -(F.log_softmax(p, 1) * pt).sum(1).mean() - (F.log_softmax(v, 1) * vt).sum(1).mean()
        loss.backward()
        opt.step()

    row["train256"] = timed(step, seconds, reps) * bs
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--nets", default="6x64,4x32")
    ap.add_argument("--norms", default="batch_norm,skip_init")
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    gen = torch.Generator().manual_seed(0)
    print(f"# PyTorch {torch.__version__}, policy size {POLICY_SIZE}, median of {args.reps} x ~{args.seconds}s")
    print("| engine | net | trunk | threads | infer bs1 | bs16 | bs64 | bs256 (pos/s) | train bs256 (samples/s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for net in args.nets.split(","):
        blocks, channels = (int(v) for v in net.split("x"))
        for norm in args.norms.split(","):
            for threads in (int(t) for t in args.threads.split(",")):
                r = bench_net(blocks, channels, norm, threads, args.seconds, args.reps, gen)
                print(
                    f"| torch | {net} | {norm} | {threads} | {r['bs1']:.0f} | {r['bs16']:.0f} | {r['bs64']:.0f} | {r['bs256']:.0f} | {r['train256']:.0f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
