"""What scripts/ablate_generation.py and scripts/ablate_selfplay.py share: reading a finished
`xq loop` run's directories, and replaying one of its gates with another candidate.

Paths in loop.json and in an event's config.json are relative to the directory the loop ran in
(`<data_root>/<run>/...`, `<models_root>/<run>/...`); the run's directories may since have
moved, so every recorded path is re-rooted under the --models and --data given.
"""
import json, os, subprocess, sys


class Run:
    """A finished loop run: its models directory (models/<run>) and data directory (data/<run>)."""

    def __init__(self, models, data):
        self.models, self.data = models, data
        self.state = json.load(open(os.path.join(models, "loop.json")))
        self.name = self.state["validation_set"]["dir"].split("/")[0]

    def data_path(self, recorded):
        return os.path.join(self.data, recorded.split("/", 1)[1])

    def models_path(self, recorded):
        return os.path.join(self.models, recorded.split(f"{self.name}/", 1)[1])

    def data_dirs_through(self, number):
        """The self-play and teacher directories of generations 0..=number, oldest first: what
        the loop trained generation `number` on (the window takes the newest samples)."""
        gens = [g for g in self.state["generations"] if g["generation"] <= number]
        return [self.data_path(g[key]["dir"]) for g in gens for key in ("teacher", "selfplay") if g.get(key)]

    def fixed_set(self):
        return os.path.join(self.data, "validation", "fixed")

    def generation(self, number):
        return next((g for g in self.state["generations"] if g["generation"] == number), None)

    def model_dir(self, number):
        """Where generation `number`'s trained model lies: accepted, rejected or still a candidate."""
        name = f"g{number:03d}"
        for kind in ("accepted", "rejected", "candidates"):
            path = os.path.join(self.models, kind, name)
            if os.path.exists(os.path.join(path, "config.toml")):
                return path
        sys.exit(f"no trained model for {name} under {self.models}")

    def newest_checkpoint(self, number):
        checkpoints = os.path.join(self.model_dir(number), "checkpoints")
        stems = sorted(f[:-5] for f in os.listdir(checkpoints) if f.endswith(".json"))
        return os.path.join(checkpoints, stems[-1])


def apply_changes(text, changes, what):
    """Sets `section.key = value` lines of a TOML text (values are TOML, as given); a key that
    is not there already is an error naming it, so a typo never runs an unchanged baseline."""
    section, lines, applied = None, [], set()
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and not stripped.startswith("[["):
            section = stripped.strip("[]").strip()
        key = line.split("=")[0].strip()
        if (section, key) in changes:
            line = f"{key} = {changes[(section, key)]}"
            applied.add((section, key))
        lines.append(line)
    missing = set(changes) - applied
    if missing:
        sys.exit(f"not in the {what}: {', '.join(f'{s}.{k}' for s, k in sorted(missing))}")
    return "\n".join(lines) + "\n"


def parse_changes(items):
    changes = {}
    for change in items:
        key, _, value = change.partition("=")
        section, _, name = key.rpartition(".")
        if not (section and name and value):
            sys.exit(f"expected section.key=value, got {change!r}")
        changes[(section, name)] = value
    return changes


def replay_gate(xq, run, gate_generation, candidate, label, out, opponent=None, concurrency=2):
    """Plays generation `gate_generation`'s gate again, from the event's own record, with
    `candidate` (a model directory) in place of the loop's candidate; `opponent` (a model
    directory) replaces the loop's opponent when given. The gate's seed is kept, so the games
    open as the loop's did. Returns the gate's report.json."""
    record = os.path.join(run.models, "gates", f"g{gate_generation:03d}", "config.json")
    gate = json.load(open(record))
    gate["players"][0]["evaluator"]["path"] = candidate
    gate["players"][0]["name"] = label
    theirs = gate["players"][1]
    if opponent is not None:
        theirs["evaluator"]["path"] = opponent
        theirs["name"] = "opponent-" + os.path.basename(os.path.normpath(opponent))
    elif theirs["evaluator"].get("kind") == "checkpoint":
        theirs["evaluator"]["path"] = run.models_path(theirs["evaluator"]["path"])
    os.makedirs(out, exist_ok=True)
    config = os.path.join(out, "gate.json")
    json.dump(gate, open(config, "w"), indent=2)
    done = subprocess.run([xq, "eval", "gate", "--config", config, "--out", os.path.join(out, "gate"),
                           "--concurrency", str(concurrency), "--quiet"], stdout=sys.stderr)
    if done.returncode != 0:
        sys.exit(f"xq eval gate failed ({done.returncode})")
    return json.load(open(os.path.join(out, "gate", "report.json")))


def gate_summary(report):
    candidate = next(p for p in report["standings"] if p["player"] == 0)
    return {"gate": report.get("gate"), "gate_games": [candidate["wins"], candidate["draws"], candidate["losses"]],
            "sprt": report.get("sprt")}


def train(xq, config, out, data_dirs, init, validation, summary_path, rules_from=None):
    """`xq train` with --json, resumed when `out` exists; its summary is kept in summary_path.
    `init` is the checkpoint the weights start from, or None for fresh weights."""
    if not os.path.exists(summary_path):
        cmd = [xq, "train", "--config", config, "--out", out, "--validation", validation, "--json"]
        if init:
            cmd += ["--init", init]
        for d in data_dirs:
            cmd += ["--data", d]
        if rules_from:
            cmd += ["--rules-from", rules_from]
        if os.path.exists(out):
            cmd.append("--resume")
        done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        if done.returncode != 0:
            sys.exit(f"xq train failed ({done.returncode})")
        open(summary_path, "w").write(done.stdout)
    summary = json.load(open(summary_path))
    fixed = [v for v in summary.get("validation", []) if v["set"] == "fixed"]
    return summary, (fixed[-1] if fixed else None)
