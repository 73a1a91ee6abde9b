#!/usr/bin/env python3
"""A strength validation's games as calibration records: a label's validation match
(`bench/matches.py strength ELO --limited`) played at the level the table gave that label,
added to a records file as one match at that level, so that a label refitted after a failed
validation is fitted on those games too (`black-numba calibrate --fit-only --include OUT`).

    bench/validation_records.py RECORDS OUT --match SUMMARY.json LEVEL [--match ...]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from black_numba.arena.calibration import RESULT_CHAR, read_records   # noqa: E402

ENGINE = "black_numba"          # the validation's name for our side (bench/matches.py)


def match_record(summary_path, level, like):
    """One records match of a validation summary's games at `level`, our points a game in
    order; network and bench copied from `like` (a match of the same build)."""
    with open(summary_path, encoding="utf-8") as f:
        summary = json.load(f)
    ours, theirs = summary["names"]
    if ours != ENGINE or not theirs.startswith("sf"):
        raise ValueError(f"{summary_path}: not a strength validation ({ours} vs {theirs})")
    label = int(theirs[2:])
    results = []
    for g in summary["games_played"]:
        white = {"1-0": 1.0, "0-1": 0.0}.get(g["result"], 0.5)
        results.append(RESULT_CHAR[white if g["white"] == ours else 1.0 - white])
    return {"label": label, "level": float(level), "opponent_elo": label,
            "network": like["network"], "bench": like["bench"],
            "log": os.path.abspath(summary_path), "results": "".join(results)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records", help="the records file to start from")
    ap.add_argument("out", help="the records file to write")
    ap.add_argument("--match", nargs=2, action="append", required=True,
                    metavar=("SUMMARY", "LEVEL"), help="a validation's summary.json and level")
    args = ap.parse_args(argv)
    matches = read_records(args.records)
    for path, level in args.match:
        rec = match_record(path, level, matches[-1])
        matches.append(rec)
        print(f"{rec['label']} at {rec['level']}: {len(rec['results'])} games, "
              f"{sum({'1': 1, '=': 0.5, '0': 0}[c] for c in rec['results'])} points")
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"format": 1, "matches": matches}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
