"""`black-numba calibrate --validate SUMMARY LEVEL`: a strength validation's games (a match of
black_numba at a label's level against Stockfish at that label) join the fit's records as one
match at that level, so that a label refitted after a failed validation is fitted on them."""
import json
import os

import pytest

from black_numba.arena import calibration
from black_numba.frontends.cli import main
from black_numba.search import strength

NETWORK, BENCH = "ab" * 32, 7


def _records(path):
    """A records file that fits: label 1350 at levels 4 (12.5%) and 8 (87.5%), full strength
    even against 2850."""
    matches = [{"label": label, "level": level, "opponent_elo": opponent, "network": NETWORK,
                "bench": BENCH, "results": results}
               for label, level, opponent, results in ((1350, 4.0, 1350, "00=0"),
                                                       (1350, 8.0, 1350, "1=11"),
                                                       ("full", 20.0, 2850, "=0=1"))]
    path.write_text(json.dumps({"format": calibration.RECORDS_FORMAT, "matches": matches}))
    return str(path)


def _summary(path, names=("black_numba", "sf1350")):
    """A validation match's summary.json: we win as White, lose as White, win as Black and
    draw as White, whichever colour we had: our points 1, 0, 1, 1/2."""
    ours, theirs = names
    path.write_text(json.dumps({"names": list(names), "games_played": [
        {"white": ours, "result": "1-0"}, {"white": theirs, "result": "1-0"},
        {"white": theirs, "result": "0-1"}, {"white": ours, "result": "1/2-1/2"}]}))
    return str(path)


def test_a_validation_is_one_match_at_its_level(tmp_path):
    like = {"network": NETWORK, "bench": BENCH}
    summary = _summary(tmp_path / "summary.json")
    m = calibration.validation_match(summary, 6.93, like)
    assert m == {"label": 1350, "level": 6.93, "opponent_elo": 1350, "network": NETWORK,
                 "bench": BENCH, "log": os.path.abspath(summary), "results": "101="}
    assert calibration.games_of([m])[:2] == [(6.93, 1350, 1.0), (6.93, 1350, 0.0)]
    for names in (("top", "full"), ("black_numba", "stockfish"), ("black_numba", "sfx")):
        with pytest.raises(ValueError, match="not a strength validation"):
            calibration.validation_match(_summary(tmp_path / "bad.json", names), 19, like)


def test_calibrate_validate_refits_the_label_with_the_validations_games(tmp_path, capsys):
    records = _records(tmp_path / "old.games.json")
    before, after = str(tmp_path / "before.json"), str(tmp_path / "after.json")
    assert main(["calibrate", "--fit-only", "--include", records, "--table", before]) == 0
    summary = _summary(tmp_path / "summary.json")
    assert main(["calibrate", "--fit-only", "--include", records, "--validate", summary,
                 "6.93", "--table", after]) == 0
    assert "validation 1350 at level 6.93: 4 games, 2.5 points" in capsys.readouterr().out
    # the table's records hold the included matches and then the validation's
    kept = calibration.read_records(calibration.records_path(after))
    assert kept[:3] == calibration.read_records(records)
    assert (kept[3]["label"], kept[3]["level"], kept[3]["results"]) == (1350, 6.93, "101=")
    assert (kept[3]["network"], kept[3]["bench"]) == (NETWORK, BENCH)
    # 62.5% at 6.93 places 1350 between 4 and 6.93, below the level of the fit without it
    level = {t: dict(strength.load_table(t)["elo_levels"])[1350] for t in (before, after)}
    assert level[before] == 6.0 and 4.0 < level[after] < 6.93 and level[after] != 6.0
    assert strength.load_table(after)["stamp"]["conditions"]["levels"] == {
        "1350": [4.0, 6.93, 8.0]}


def test_bad_validations_are_one_clear_error(tmp_path, capsys):
    records = _records(tmp_path / "old.games.json")
    summary = _summary(tmp_path / "summary.json")
    table = str(tmp_path / "t.json")
    for argv, words in (
            (["--validate", summary, "6.93"], "--validate needs --include"),
            (["--include", records, "--validate", summary, "high"], "is not a number"),
            (["--include", records, "--validate",
              _summary(tmp_path / "bad.json", ("top", "full")), "19"],
             "not a strength validation"),
            (["--include", records, "--validate", str(tmp_path / "none.json"), "5"],
             "none.json")):
        assert main(["calibrate", "--fit-only", *argv, "--table", table]) == 2, argv
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, (argv, err)
    assert not os.path.exists(table)
