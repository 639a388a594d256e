"""Reads xq's PGN files with independent Xiangqi tools and prints what they found, as JSON.

Input (argv[1]): a JSON list of {"path", "reader"} where reader is
- "cchess": the cchess package's own PGN reader (read_from_pgn), which needs [Format "ICCS"];
- "pyffish": the PGN's tags and movetext taken as pychess-variants/Fairy-Stockfish take them
  under [Variant "xiangqi"] (coordinates with ranks 1-10), each move checked legal by pyffish.
Output: for each file, {"moves": [...], "fen": final FEN or null}.
"""
import json
import re
import sys

import cchess
import pyffish

RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def read_with_pyffish(path):
    text = open(path, encoding="utf-8").read()
    tags = dict(re.findall(r'^\[(\w+)\s+"(.*)"\]\s*$', text, re.M))
    assert tags.get("Variant", "").lower() == "xiangqi", tags
    assert "Format" not in tags, tags
    fen = tags.get("FEN", pyffish.start_fen("xiangqi"))
    body = "\n".join(l for l in text.splitlines() if not l.startswith("["))
    body = re.sub(r"\{[^}]*\}", " ", body)
    moves = []
    for token in body.split():
        if token in RESULTS or re.fullmatch(r"\d+\.(\.\.)?", token):
            continue
        legal = pyffish.legal_moves("xiangqi", fen, moves)
        if token not in legal:
            return {"moves": moves, "fen": None, "illegal": token}
        moves.append(token)
    return {"moves": moves, "fen": pyffish.get_fen("xiangqi", fen, moves)}


def read_with_cchess(path):
    game = cchess.read_from_pgn(path)
    lines = game.dump_iccs_moves()
    return {"moves": lines[0] if lines else [], "fen": None}


out = []
for item in json.loads(sys.argv[1]):
    reader = read_with_cchess if item["reader"] == "cchess" else read_with_pyffish
    out.append(reader(item["path"]))
print(json.dumps(out))
