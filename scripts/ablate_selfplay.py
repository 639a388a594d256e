#!/usr/bin/env python3
"""Self-play ablation on a finished `xq loop` run (docs/results/ablations.md).

In a loop generation the network's own games are a tenth of the window (the rest are teacher
games), so a self-play setting barely moves one generation. Here the self-play data is all
there is: an accepted model M of the run plays N games under the run's own [selfplay],
[selfplay.resign], [rules] and [search] with one or more keys changed, a copy of M is trained
on those games alone (M's own train config and seed, M's weights as the start), the result is
scored on the run's fixed validation set and plays M in the run's gate for M (its seed, its
openings, its search) replayed with these two players. Every arm starts from the same model
and the same seeds, so arms differ only in the change.

    scripts/ablate_selfplay.py --models models/loop-small --data data/loop-small \
        --model 15 --games 1500 --out ablations/sp-g015-puct search.algorithm='"puct"'

Keys are `section.key=value` (sections selfplay, selfplay.resign, rules, search; values are
TOML); with none, the arm is the baseline. Rerunning with the same --out resumes every step.
Prints a JSON summary.
"""
import argparse, json, os, re, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xq_ablation import Run, apply_changes, gate_summary, parse_changes, replay_gate, train

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--models", required=True, help="the run's models directory (models/<run>)")
parser.add_argument("--data", required=True, help="the run's data directory (data/<run>)")
parser.add_argument("--model", type=int, required=True, help="the accepted generation that plays and is trained on")
parser.add_argument("--games", type=int, required=True)
parser.add_argument("--seed", type=int, default=1, help="self-play seed, the same in every arm")
parser.add_argument("--out", required=True)
parser.add_argument("--xq", default=os.environ.get("XQ", "target/release/xq"))
parser.add_argument("changes", nargs="*", help="section.key=value")
args = parser.parse_args()
changes = parse_changes(args.changes)
changes.setdefault(("selfplay", "seed"), str(args.seed))

run = Run(args.models, args.data)
generation = run.generation(args.model)
if generation is None or not generation["promoted"]:
    sys.exit(f"generation {args.model} is not an accepted model of this run")
model_dir = run.model_dir(args.model)
name = f"g{args.model:03d}"

# The run's self-play sections, as the loop played them (the run directory's config.toml holds
# every key, defaults included), with the arm's changes and the arm's seed.
kept, section = [], None
for line in open(os.path.join(args.models, "config.toml")).read().splitlines():
    header = re.match(r"\s*\[\s*([\w.]+)\s*\]", line)
    if header:
        section = header.group(1)
    if section in ("selfplay", "selfplay.resign", "rules", "search"):
        kept.append(line)
os.makedirs(args.out, exist_ok=True)
selfplay_config = os.path.join(args.out, "selfplay.toml")
open(selfplay_config, "w").write(apply_changes("\n".join(kept), changes, "run's self-play sections"))

games_dir = os.path.join(args.out, "games")
summary_path = os.path.join(args.out, "selfplay.json")
if not os.path.exists(summary_path):
    done = subprocess.run([args.xq, "selfplay", "--config", selfplay_config, "--games", str(args.games),
                           "--out", games_dir, "--model", model_dir, "--json"], stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"xq selfplay failed ({done.returncode})")
    open(summary_path, "w").write(done.stdout)
selfplay = json.load(open(summary_path))

trained, fixed = train(args.xq, os.path.join(model_dir, "config.toml"), os.path.join(args.out, "model"), [games_dir],
                       run.newest_checkpoint(args.model), run.fixed_set(), os.path.join(args.out, "train.json"),
                       rules_from=selfplay_config)
label = os.path.basename(os.path.normpath(args.out))
report = replay_gate(args.xq, run, args.model, os.path.join(args.out, "model"),
                     label if label.startswith(name) else f"{name}-{label}", args.out, opponent=model_dir)
print(json.dumps({
    "model": name,
    "changes": {f"{s}.{k}": v for (s, k), v in changes.items() if (s, k) != ("selfplay", "seed")},
    "selfplay": {k: selfplay.get(k) for k in ("games_total", "positions", "plies", "seconds", "red_wins", "black_wins",
                                              "draws", "terminations", "false_resignations", "evaluations")},
    "train": {k: trained.get(k) for k in ("steps", "samples", "policy_loss", "value_loss", "policy_top1",
                                          "value_accuracy")},
    "fixed": fixed,
    **gate_summary(report),
}, indent=1))
