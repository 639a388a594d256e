#!/usr/bin/env python3
"""The net's size against its speed, on one generation of a finished `xq loop` run
(docs/results/ablations.md).

Generation G's network is trained again from fresh weights on the same data, with the same
config and seed, once per size (`BLOCKSxCHANNELS`); the run's own model is the arm with the
run's size. Every arm is scored on the run's fixed validation set, then all of them play a
round robin at the same time per move, one game at a time (a timed game must have the CPU to
itself), with the run's final-rating search settings and an anchor from the final rating.
A bigger net knows more per position and searches fewer positions in the time: the round
robin says which wins.

    scripts/ablate_net_size.py --models models/loop-small-seed2 --data data/loop-small-seed2 \
        --generation 0 --out ablations/net-size --gauntlet-pairs 20 2x32 4x64

Rerunning with the same --out resumes (training from its checkpoints, the event from its
journal). Prints a JSON summary; the round robin's report is OUT/round-robin/report.md.
"""
import argparse, json, os, subprocess, sys, tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xq_ablation import Run, apply_changes, train

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--models", required=True, help="the run's models directory (models/<run>)")
parser.add_argument("--data", required=True, help="the run's data directory (data/<run>)")
parser.add_argument("--generation", type=int, default=0)
parser.add_argument("--out", required=True)
parser.add_argument("--movetime-ms", type=int, default=100)
parser.add_argument("--cycles", type=int, default=4, help="round-robin cycles (each pair plays 2 games a cycle)")
parser.add_argument("--gauntlet-pairs", type=int, default=0,
                    help="then a gauntlet of the run's own size against the others (no anchor), this many pairs each")
parser.add_argument("--anchor", default="mcts-material", help="a final-rating opponent to play too ('' for none)")
parser.add_argument("--train-only", action="store_true", help="train and score the arms, play nothing")
parser.add_argument("--xq", default=os.environ.get("XQ", "target/release/xq"))
parser.add_argument("sizes", nargs="+", help="BLOCKSxCHANNELS, e.g. 2x32")
args = parser.parse_args()

run = Run(args.models, args.data)
gen = run.generation(args.generation)
if gen is None or "train" not in gen:
    sys.exit(f"generation {args.generation} is not a trained generation of this run")
data_dirs = run.data_dirs_through(args.generation)
own_dir = run.model_dir(args.generation)
own_config = open(os.path.join(own_dir, "config.toml")).read()
own_model = tomllib.loads(own_config)["model"]
own_size = f"{own_model['blocks']}x{own_model['channels']}"


def fixed_figures(validation_csv):
    """The last `fixed` row of an `xq train` validation.csv."""
    import csv
    rows = [r for r in csv.DictReader(open(validation_csv)) if r.get("set") == "fixed"]
    return rows[-1] if rows else None


os.makedirs(args.out, exist_ok=True)
arms = {own_size: {"model": own_dir}}
for size in args.sizes:
    try:
        blocks, channels = (int(x) for x in size.lower().split("x"))
    except ValueError:
        sys.exit(f"size {size!r} is not BLOCKSxCHANNELS")
    name = f"{blocks}x{channels}"
    if name in arms:
        continue
    arm_dir = os.path.join(args.out, name)
    os.makedirs(arm_dir, exist_ok=True)
    config = os.path.join(arm_dir, "train.toml")
    changes = {("model", "blocks"): str(blocks), ("model", "channels"): str(channels)}
    open(config, "w").write(apply_changes(own_config, changes, "train config"))
    model = os.path.join(arm_dir, "model")
    summary, _ = train(args.xq, config, model, data_dirs, None, run.fixed_set(), os.path.join(arm_dir, "train.json"))
    arms[name] = {"model": model, "train": summary}

for name, arm in arms.items():
    arm["fixed"] = fixed_figures(os.path.join(arm["model"], "validation.csv"))

result = {"generation": args.generation, "data": data_dirs, "arms": {}}
for name, arm in arms.items():
    train = arm.get("train") or {}
    result["arms"][name] = {
        "model": arm["model"],
        "fixed": arm["fixed"],
        "train_samples_per_sec": train.get("samples_per_sec"),
    }

if not args.train_only:
    ladder = os.path.join(args.models, "ladder")
    finals = sorted(d for d in os.listdir(ladder) if d.startswith("final-"))
    if not finals:
        sys.exit(f"no final rating under {ladder}: the round robin takes its settings from it")
    rating = json.load(open(os.path.join(ladder, finals[-1], "config.json")))
    search = rating["players"][0]["search"]
    players = [{"kind": "mcts", "name": name, "visits": None, "movetime_ms": None, "tc": None,
                "evaluator": {"kind": "checkpoint", "path": arm["model"], "device": "cpu"}, "search": search}
               for name, arm in sorted(arms.items())]
    if args.anchor:
        anchor = [p for p in rating["players"] if p["name"] == args.anchor]
        if not anchor:
            sys.exit(f"no player {args.anchor!r} in the final rating ({[p['name'] for p in rating['players']]})")
        players += anchor
    event = dict(rating)
    event.update({
        "name": f"{run.name} g{args.generation:03d} net sizes at {args.movetime_ms} ms",
        "concurrency": 1,
        "format": {"kind": "round_robin", "cycles": args.cycles},
        "limits": {"visits": None, "movetime_ms": args.movetime_ms, "depth": None, "nodes": None, "tc": None},
        "players": players,
    })
    def play(kind, event, name):
        config = os.path.join(args.out, f"{name}-config.json")
        json.dump(event, open(config, "w"), indent=2)
        out = os.path.join(args.out, name)
        done = subprocess.run([args.xq, "eval", kind, "--config", config, "--out", out, "--quiet"],
                              stdout=subprocess.DEVNULL)
        if done.returncode != 0:
            sys.exit(f"xq eval failed ({done.returncode})")
        report = json.load(open(os.path.join(out, "report.json")))
        return {"standings": report.get("standings"), "speed": report.get("speed")}

    result["round_robin"] = play("round-robin", event, "round-robin")
    if args.gauntlet_pairs:
        own = own_size
        sizes = [p for p in players if p["name"] == own] + [p for p in players if p["name"] in arms and p["name"] != own]
        gauntlet = dict(event)
        gauntlet.update({
            "name": f"{event['name']}: {own} against {' and '.join(p['name'] for p in sizes[1:])}",
            "seed": event["seed"] + 1,
            "format": {"kind": "gauntlet", "pairs": args.gauntlet_pairs},
            "players": sizes,
        })
        result["gauntlet"] = play("gauntlet", gauntlet, "gauntlet")

print(json.dumps(result, indent=1))
