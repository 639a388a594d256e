#!/usr/bin/env python3
"""Answers xq's differential test with pyffish (Fairy-Stockfish), an independent Xiangqi
move generator.

Protocol, one JSON object per line:
  start:    the helper prints {"ready": true, "pyffish": "<version>"} or, when pyffish cannot be
            imported, {"ready": false, "error": "..."} and exits with status 3.
  request:  one game: {"fens": [<fen 0>, ..., <fen n>], "moves": [<move 0>, ..., <move n-1>]}
            where move i leads from fen i to fen i+1, in pyffish's notation (ranks 1-10).
  response: {"results": [{"legal": [<move>, ...], "check": <bool>}, ...]}, one per FEN in
            request order, moves in pyffish's notation; a FEN pyffish rejects gets
            {"error": "..."} instead.
Every pyffish call builds a position from scratch and costs milliseconds, so the side to move's
check status is read from the SAN check marks ('+', '#') of the whole game, one call, rather
than asked position by position (unless pyffish rejects one of the moves).
The helper exits when its standard input closes.
"""

import json
import sys

VARIANT = "xiangqi"


def game_checks(pyffish, fens, moves):
    """Whether the side to move is in check at each FEN, or None where it must be asked."""
    checks = [None] * len(fens)
    try:
        checks[0] = pyffish.gives_check(VARIANT, fens[0], [])
        sans = pyffish.get_san_moves(VARIANT, fens[0], moves, False, pyffish.NOTATION_SAN)
    except Exception:  # a FEN or move pyffish rejects: fall back to one question per FEN
        return [None] * len(fens)
    for i, san in enumerate(sans):
        checks[i + 1] = san.endswith(("+", "#"))
    return checks


def main() -> int:
    try:
        import pyffish
    except ImportError as e:
        print(json.dumps({"ready": False, "error": f"cannot import pyffish: {e}"}), flush=True)
        return 3
    version = ".".join(str(x) for x in pyffish.version())
    print(json.dumps({"ready": True, "pyffish": version}), flush=True)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        fens, moves = request["fens"], request["moves"]
        checks = game_checks(pyffish, fens, moves)
        results = []
        for fen, check in zip(fens, checks):
            try:
                legal = pyffish.legal_moves(VARIANT, fen, [])
                if check is None:
                    check = pyffish.gives_check(VARIANT, fen, [])
                results.append({"legal": legal, "check": bool(check)})
            except Exception as e:  # pyffish raises ValueError on a position it rejects
                results.append({"error": f"{type(e).__name__}: {e}"})
        print(json.dumps({"results": results}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
