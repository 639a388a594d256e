#!/usr/bin/env python3
"""One-generation ablation on a finished `xq loop` run (docs/results/ablations.md).

Generation G is trained again exactly as the loop trained it (the same data directories in the
same order, the same start weights: the last candidate trained before G, promoted or not, and
G's own saved train config and seed), with one or more config keys changed. The result is
scored on the run's fixed validation set and plays the loop's own gate for G against the model
the loop gated G against, with the gate's seed, so the games open the same way. Every variant
is thus one change away from the run's own candidate, whose figures are in loop.json.

    scripts/ablate_generation.py --models models/loop-small --data data/loop-small \
        --generation 10 --out ablations/g010-rootq50 data.value_target_root_q=0.5

Keys are `section.key=value` in the train config's sections (model, optimizer, data, train);
values are TOML. Rerunning with the same --out resumes. Prints a JSON summary.
"""
import argparse, json, os, re, subprocess, sys

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--models", required=True, help="the run's models directory (models/<run>)")
parser.add_argument("--data", required=True, help="the run's data directory (data/<run>)")
parser.add_argument("--generation", type=int, required=True)
parser.add_argument("--out", required=True)
parser.add_argument("--xq", default=os.environ.get("XQ", "target/release/xq"))
parser.add_argument("changes", nargs="*", help="section.key=value")
args = parser.parse_args()

changes = {}
for change in args.changes:
    key, _, value = change.partition("=")
    section, _, name = key.partition(".")
    if not (section and name and value):
        sys.exit(f"expected section.key=value, got {change!r}")
    changes[(section, name)] = value

state = json.load(open(os.path.join(args.models, "loop.json")))
gens = [g for g in state["generations"] if g["generation"] <= args.generation]
if not gens or gens[-1]["generation"] != args.generation or len(gens) < 2:
    sys.exit(f"generation {args.generation} is not a trained generation after g000 of this run")
run_name = state["validation_set"]["dir"].split("/")[0]


def data_path(recorded):
    # loop.json records directories under the data root as <run>/...
    return os.path.join(args.data, recorded.split("/", 1)[1])


data_dirs = [data_path(g[key]["dir"]) for g in gens for key in ("teacher", "selfplay") if g.get(key)]
name = f"g{args.generation:03d}"
last = gens[-2]
start_dir = os.path.join(args.models, "accepted" if last["promoted"] else "rejected", f"g{last['generation']:03d}")
stems = sorted(f[:-5] for f in os.listdir(os.path.join(start_dir, "checkpoints")) if f.endswith(".json"))
start = os.path.join(start_dir, "checkpoints", stems[-1])
candidate_dir = next((os.path.join(args.models, d, name) for d in ("candidates", "accepted", "rejected")
                      if os.path.exists(os.path.join(args.models, d, name, "config.toml"))), None)
if candidate_dir is None:
    sys.exit(f"no saved train config for {name} under {args.models}")

section, lines, applied = None, [], set()
for line in open(os.path.join(candidate_dir, "config.toml")).read().splitlines():
    header = re.match(r"\[(\w+)\]", line)
    if header:
        section = header.group(1)
    key = line.split("=")[0].strip()
    if (section, key) in changes:
        line = f"{key} = {changes[(section, key)]}"
        applied.add((section, key))
    lines.append(line)
missing = set(changes) - applied
if missing:
    sys.exit(f"not in the train config: {', '.join(f'{s}.{k}' for s, k in sorted(missing))}")
os.makedirs(args.out, exist_ok=True)
open(os.path.join(args.out, "train.toml"), "w").write("\n".join(lines) + "\n")

summary_path = os.path.join(args.out, "train.json")
if not os.path.exists(summary_path):
    model = os.path.join(args.out, "model")
    cmd = [args.xq, "train", "--config", os.path.join(args.out, "train.toml"), "--out", model,
           "--init", start, "--validation", os.path.join(args.data, "validation", "fixed"), "--json"]
    for d in data_dirs:
        cmd += ["--data", d]
    if os.path.exists(model):
        cmd.append("--resume")
    done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"xq train failed ({done.returncode})")
    open(summary_path, "w").write(done.stdout)


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items() if x is not None) + " }"
    raise TypeError(v)


gate = json.load(open(os.path.join(args.models, "gates", name, "config.json")))
gate["players"][0]["evaluator"]["path"] = os.path.join(args.out, "model")
label = os.path.basename(os.path.normpath(args.out))
gate["players"][0]["name"] = label if label.startswith(name) else f"{name}-{label}"
opponent = gate["players"][1]["evaluator"]
if opponent.get("kind") == "checkpoint":
    # the gate's paths are relative to where the loop ran: models_root/<run>/...
    opponent["path"] = os.path.join(args.models, opponent["path"].split(f"{run_name}/", 1)[1])
toml = [f"{k} = {toml_value(gate[k])}" for k in ("name", "seed", "concurrency", "openings") if gate.get(k) is not None]
for table in ("format", "rules", "adjudication", "limits"):
    toml.append(f"[{table}]")
    toml += [f"{k} = {toml_value(v)}" for k, v in gate[table].items() if v is not None]
for player in gate["players"]:
    toml.append("[[players]]")
    toml += [f"{k} = {toml_value(v)}" for k, v in player.items() if v is not None]
open(os.path.join(args.out, "gate.toml"), "w").write("\n".join(toml) + "\n")
done = subprocess.run([args.xq, "eval", "gate", "--config", os.path.join(args.out, "gate.toml"),
                       "--out", os.path.join(args.out, "gate"), "--quiet"], stdout=sys.stderr)
if done.returncode != 0:
    sys.exit(f"xq eval gate failed ({done.returncode})")

train = json.load(open(summary_path))
report = json.load(open(os.path.join(args.out, "gate", "report.json")))
fixed = [v for v in train.get("validation", []) if v["set"] == "fixed"]
candidate = next(p for p in report["standings"] if p["player"] == 0)
print(json.dumps({
    "generation": name,
    "changes": {f"{s}.{k}": v for (s, k), v in changes.items()},
    "start": start,
    "fixed": fixed[-1] if fixed else None,
    "gate": report.get("gate"),
    "gate_games": [candidate["wins"], candidate["draws"], candidate["losses"]],
    "sprt": report.get("sprt"),
}, indent=1))
