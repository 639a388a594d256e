#!/usr/bin/env python3
"""One-generation ablation on a finished `xq loop` run (docs/results/ablations.md).

Generation G is trained again exactly as the loop trained it (the same data directories in the
same order, the same start weights: the last candidate trained before G, promoted or not, and
G's own saved train config and seed), with one or more config keys changed. The result is
scored on the run's fixed validation set and plays the loop's own gate for G against the model
the loop gated G against, replayed from the gate's record with its seed, so the games open the
same way. Every variant is thus one change away from the run's own candidate, whose figures
are in loop.json.

    scripts/ablate_generation.py --models models/loop-small --data data/loop-small \
        --generation 10 --out ablations/g010-rootq50 data.value_target_root_q=0.5

Keys are `section.key=value` in the train config's sections (model, optimizer, data, train);
values are TOML. Rerunning with the same --out resumes. Prints a JSON summary.
"""
import argparse, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xq_ablation import Run, apply_changes, gate_summary, parse_changes, replay_gate, train

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--models", required=True, help="the run's models directory (models/<run>)")
parser.add_argument("--data", required=True, help="the run's data directory (data/<run>)")
parser.add_argument("--generation", type=int, required=True)
parser.add_argument("--out", required=True)
parser.add_argument("--xq", default=os.environ.get("XQ", "target/release/xq"))
parser.add_argument("changes", nargs="*", help="section.key=value")
args = parser.parse_args()
changes = parse_changes(args.changes)

run = Run(args.models, args.data)
gens = [g for g in run.state["generations"] if g["generation"] <= args.generation]
if not gens or gens[-1]["generation"] != args.generation or len(gens) < 2:
    sys.exit(f"generation {args.generation} is not a trained generation after g000 of this run")
data_dirs = run.data_dirs_through(args.generation)
name = f"g{args.generation:03d}"
start = run.newest_checkpoint(gens[-2]["generation"])
text = open(os.path.join(run.model_dir(args.generation), "config.toml")).read()
os.makedirs(args.out, exist_ok=True)
open(os.path.join(args.out, "train.toml"), "w").write(apply_changes(text, changes, "train config"))

_, fixed = train(args.xq, os.path.join(args.out, "train.toml"), os.path.join(args.out, "model"), data_dirs, start,
                 run.fixed_set(), os.path.join(args.out, "train.json"))
label = os.path.basename(os.path.normpath(args.out))
report = replay_gate(args.xq, run, args.generation, os.path.join(args.out, "model"),
                     label if label.startswith(name) else f"{name}-{label}", args.out)
print(json.dumps({
    "generation": name,
    "changes": {f"{s}.{k}": v for (s, k), v in changes.items()},
    "start": start,
    "fixed": fixed,
    **gate_summary(report),
}, indent=1))
