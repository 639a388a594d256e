#!/usr/bin/env python3
"""Branches an `xq loop` run at a generation: a new run that shares the source run's generations
before it and plays on from it with changed settings, so a lever is measured over whole
generations without replaying the ones both arms have in common.

    scripts/branch_run.py --models models/loop-small-phaseout --data data/loop-small-phaseout \
        --at 13 --name loop-small-phaseout-v192 search.visits=192
    cargo run --release -p xq-cli -- loop --config models/loop-small-phaseout-v192/config.toml

The branch gets `<models_root>/<name>/` with the source's config.toml (the changes applied,
`run.name` set), its loop.json cut before generation `--at`, and hard links to the source's
accepted and rejected models, gates and ladders of those generations; `<data_root>/<name>/`
gets hard links to the fixed validation set. Self-play and teacher shards are not copied: the
kept generations' records name them under the source run (`<source>/selfplay/...`, relative to
the data root), so the source's data directory must stay where it is. Its first own generation
plays self-play with the source's last accepted model and trains on from the source's last
trained one, exactly as the source's generation `--at` did, with the new settings. The run's
seeds are unchanged: the branch with no change plays the source's generation `--at` again,
shard for shard.
"""
import argparse, json, os, re, shutil, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xq_ablation import Run, apply_changes, parse_changes  # noqa: E402


def hard_link_tree(source, destination):
    shutil.copytree(source, destination, copy_function=os.link)


def kept_entries(directory, at):
    """The entries of a run's `accepted`, `rejected`, `gates` or `ladder` directory that belong
    to generations before `at` (`gNNN`, `gNNN-scale`) or to the baseline ladder."""
    if not os.path.isdir(directory):
        return []
    kept = []
    for entry in sorted(os.listdir(directory)):
        number = re.match(r"g(\d+)", entry)
        if entry.startswith("baseline") or (number is not None and int(number.group(1)) < at):
            kept.append(entry)
    return kept


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", required=True, help="the source run's models directory (models/<run>)")
    parser.add_argument("--data", required=True, help="the source run's data directory (data/<run>)")
    parser.add_argument("--at", type=int, required=True, help="the first generation the branch plays itself")
    parser.add_argument("--name", required=True, help="the branch's run name")
    parser.add_argument("changes", nargs="*", help="section.key=value settings (TOML values) the branch changes")
    args = parser.parse_args()

    source = Run(args.models, args.data)
    state, source_name = source.state, source.name
    kept = [g for g in state["generations"] if g["generation"] < args.at]
    if len(kept) != args.at or any(g.get("promoted") is None for g in kept):
        sys.exit(f"the source has not finished generations 0..{args.at - 1}")
    state.pop("final_rating", None)

    models = os.path.join(os.path.dirname(os.path.normpath(args.models)), args.name)
    data = os.path.join(os.path.dirname(os.path.normpath(args.data)), args.name)
    for path in (models, data):
        if os.path.exists(path):
            sys.exit(f"{path} exists: choose another --name")

    changes = parse_changes(args.changes)
    changes[("run", "name")] = json.dumps(args.name)
    config = apply_changes(open(os.path.join(args.models, "config.toml")).read(), changes, "source run's config")

    os.makedirs(models)
    for kind in ("accepted", "rejected", "gates", "ladder"):
        for entry in kept_entries(os.path.join(args.models, kind), args.at):
            hard_link_tree(os.path.join(args.models, kind, entry), os.path.join(models, kind, entry))
    hard_link_tree(os.path.join(args.data, "validation"), os.path.join(data, "validation"))

    state["generations"] = kept
    state["validation_set"]["dir"] = args.name + state["validation_set"]["dir"][len(source_name):]
    with open(os.path.join(models, "loop.json.tmp"), "w") as f:
        json.dump(state, f, indent=2)
    os.replace(os.path.join(models, "loop.json.tmp"), os.path.join(models, "loop.json"))
    with open(os.path.join(models, "config.toml"), "w") as f:
        f.write(f"# Branched from {source_name} at generation {args.at}: {' '.join(args.changes) or 'no change'}\n")
        f.write(config)
    print(f"{models}: generations 0..{args.at - 1} of {source_name}; continue with\n"
          f"  xq loop --config {os.path.join(models, 'config.toml')}")


if __name__ == "__main__":
    main()
