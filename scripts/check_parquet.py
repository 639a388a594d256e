"""Reads xq-data shards with pyarrow and checks them against docs/DATA.md.

Usage: check_parquet.py SAMPLES.parquet N_SAMPLES GAMES.parquet N_GAMES

Checks column names, order, types and nullability, the row counts and the key-value metadata
(table name, schema version), then prints a JSON summary of a few decoded values on stdout so
the Rust test can compare them with what it wrote. Exits 1 with a message on any mismatch.
"""

import json
import os
import sys

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError:
    print("pyarrow is not installed: run `bash scripts/setup-python.sh`", file=sys.stderr)
    sys.exit(3)

LIST = "list"
SAMPLES = [
    ("game_id", pa.uint64()),
    ("ply", pa.uint16()),
    ("fen", pa.string()),
    ("board", pa.binary(90)),
    ("side_to_move", pa.uint8()),
    ("policy_moves", (LIST, pa.uint16())),
    ("policy_probs", (LIST, pa.float32())),
    ("full_search", pa.bool_()),
    ("root_win", pa.float32()),
    ("root_draw", pa.float32()),
    ("root_loss", pa.float32()),
    ("root_visits", pa.uint32()),
    ("move_played", pa.uint16()),
    ("result", pa.int8()),
    ("target_win", pa.float32()),
    ("target_draw", pa.float32()),
    ("target_loss", pa.float32()),
    ("termination", pa.string()),
    ("article", pa.string()),
    ("repetitions", pa.uint8()),
    ("plies_since_capture", pa.uint16()),
    ("limit_plies", pa.uint16()),
    ("move_limit_plies", pa.uint16()),
    ("model_id", pa.string()),
    ("config_hash", pa.string()),
    ("seed", pa.uint64()),
]
GAMES = [
    ("game_id", pa.uint64()),
    ("plies", pa.uint32()),
    ("moves_iccs", (LIST, pa.string())),
    ("moves_chinese", (LIST, pa.string())),
    ("moves_wxf", (LIST, pa.string())),
    ("opening", pa.string()),
    ("start_fen", pa.string()),
    ("result", pa.string()),
    ("termination", pa.string()),
    ("article", pa.string()),
    ("must_vary", pa.string()),
    ("rule_set", pa.string()),
    ("model_red", pa.string()),
    ("model_black", pa.string()),
    ("seed", pa.uint64()),
    ("config_hash", pa.string()),
]
NULLABLE = {"opening", "must_vary"}


def fail(message):
    print(f"check_parquet: {message}", file=sys.stderr)
    sys.exit(1)


def check(path, expected_columns, expected_rows, table_name, version):
    table = pq.read_table(path)
    names = [f.name for f in table.schema]
    if names != [n for n, _ in expected_columns]:
        fail(f"{path}: columns {names}, expected {[n for n, _ in expected_columns]}")
    for field, (name, expected) in zip(table.schema, expected_columns):
        if isinstance(expected, tuple):
            ok = pa.types.is_list(field.type) and field.type.value_type == expected[1]
        else:
            ok = field.type == expected
        if not ok:
            fail(f"{path}: column {name} has type {field.type}, expected {expected}")
        if field.nullable != (name in NULLABLE):
            fail(f"{path}: column {name} nullable={field.nullable}")
    if table.num_rows != expected_rows:
        fail(f"{path}: {table.num_rows} rows, expected {expected_rows}")
    meta = pq.read_metadata(path).metadata or {}
    if meta.get(b"xq.table") != table_name.encode():
        fail(f"{path}: xq.table is {meta.get(b'xq.table')!r}, expected {table_name}")
    if meta.get(b"xq.schema_version") != str(version).encode():
        fail(f"{path}: xq.schema_version is {meta.get(b'xq.schema_version')!r}, expected {version}")
    return table


def iccs(raw):
    """Decodes a move stored as uint16 (docs/DATA.md): low byte from, high byte to, square = rank * 9 + file."""
    frm, to = raw & 0xFF, raw >> 8
    return f"{chr(97 + frm % 9)}{frm // 9}{chr(97 + to % 9)}{to // 9}"


def main():
    if len(sys.argv) != 5:
        fail(__doc__)
    samples = check(sys.argv[1], SAMPLES, int(sys.argv[2]), "samples", 2).to_pylist()
    games = check(sys.argv[3], GAMES, int(sys.argv[4]), "games", 2).to_pylist()
    # Reading the whole directory must skip the hidden checksum sidecars.
    directory = pq.read_table(os.path.dirname(sys.argv[1]))
    if directory.num_rows != int(sys.argv[2]):
        fail(f"directory read: {directory.num_rows} rows, expected {sys.argv[2]}")
    first, game = samples[0], games[0]
    summary = {
        "fen": first["fen"],
        "board_len": len(first["board"]),
        "board_sum": sum(first["board"]),
        "policy_iccs": [iccs(m) for m in first["policy_moves"]],
        "policy_sum": sum(first["policy_probs"]),
        "move_played": iccs(first["move_played"]),
        "result_sum": sum(s["result"] for s in samples),
        "moves_iccs": game["moves_iccs"],
        "moves_chinese": game["moves_chinese"],
        "moves_wxf": game["moves_wxf"],
        "termination": game["termination"],
        "openings": [g["opening"] for g in games],
    }
    print(json.dumps(summary, ensure_ascii=False))


main()
