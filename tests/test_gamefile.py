"""The compact game and position formats: round trips checked against python-chess."""
import io
import os
import random

import chess
import pytest

from black_numba.training import gamefile
from black_numba.board.movegen import parse_uci_move
from black_numba.board.position import TABLES, from_fen, get_fen, make_move
from conftest import ROOT

SAMPLE = os.path.join(ROOT, "tests", "data", "train_sample.txt")


def _norm(fen):
    return chess.Board(fen).fen(en_passant="legal")


def _random_games(n, seed=5):
    rng = random.Random(seed)
    games = []
    for g in range(n):
        board = chess.Board()
        for _ in range(rng.randint(0, 6)):                 # a few random opening plies
            board.push(rng.choice(list(board.legal_moves)))
        start = board.fen()
        pos = from_fen(start)
        plies = []
        while not board.is_game_over() and board.ply() < 160:
            mv = rng.choice(list(board.legal_moves))
            m = parse_uci_move(pos, mv.uci())
            score = None if rng.random() < 0.3 else rng.randint(-3000, 3000)
            plies.append((m, score))
            make_move(TABLES, pos, m)
            board.push(mv)
        games.append((start, plies, rng.choice(gamefile.RESULT_VALUES)))
    return games


def test_games_round_trip_and_every_ply_matches_python_chess(tmp_path):
    games = _random_games(30)
    path = tmp_path / "g.bng"
    assert gamefile.write_games(path, games) == 30
    back = list(gamefile.read_games(path))
    assert back == games
    plies = sum(len(p) for _, p, _ in games)
    assert os.path.getsize(path) < 4 * plies + 70 * len(games)     # about 4 bytes a position
    for start, moves, result in back:
        pos, board = from_fen(start), chess.Board(start)
        kept = gamefile.game_positions(start, moves, result)
        want = []
        for m, s in moves:
            assert _norm(get_fen(pos)) == board.fen(en_passant="legal")
            if s is not None:
                want.append((board.fen(en_passant="legal"), s, result))
            mv = next(x for x in board.legal_moves
                      if parse_uci_move(pos, x.uci()) == m)
            make_move(TABLES, pos, m)
            board.push(mv)
        assert [(_norm(f), s, r) for f, s, r in kept] == want


def test_games_to_text(tmp_path):
    games = _random_games(3, seed=9)
    path = tmp_path / "g.bng"
    gamefile.write_games(path, games)
    out = io.StringIO()
    n = gamefile.games_to_text(path, out)
    lines = out.getvalue().splitlines()
    assert n == len(lines) == sum(1 for _, p, _ in games for _, s in p if s is not None)
    fen, score, result = lines[0].split(" | ")
    chess.Board(fen)
    assert int(score) == next(s for _, p, _ in games[:1] for _, s in p if s is not None)


def test_position_records_round_trip_the_training_text(tmp_path):
    lines = open(SAMPLE).read().splitlines()[:400]
    path = tmp_path / "p.bnp"
    assert gamefile.text_to_positions(lines, path) == 400
    assert os.path.getsize(path) == 4 + 36 * 400
    for line, (fen, score, result) in zip(lines, gamefile.read_positions(path)):
        f0, s0, r0 = (p.strip() for p in line.split("|"))
        assert _norm(fen) == _norm(f0)
        assert score == int(s0) and result == float(r0)


def test_bad_files_are_refused(tmp_path):
    bad = tmp_path / "bad.bng"
    bad.write_bytes(b"XXXX")
    with pytest.raises(ValueError, match="not a black_numba game file"):
        list(gamefile.read_games(bad))
    good = tmp_path / "g.bng"
    gamefile.write_games(good, _random_games(1))
    cut = tmp_path / "cut.bng"
    cut.write_bytes(good.read_bytes()[:-3])
    with pytest.raises(ValueError, match="truncated"):
        list(gamefile.read_games(cut))
    p = tmp_path / "p.bnp"
    gamefile.text_to_positions(open(SAMPLE).read().splitlines()[:2], p)
    (tmp_path / "c.bnp").write_bytes(p.read_bytes()[:-1])
    with pytest.raises(ValueError, match="truncated"):
        list(gamefile.read_positions(tmp_path / "c.bnp"))


def test_trainer_reads_compact_files_as_the_text(tmp_path):
    """dataset.load_file gives the same arrays for a position file and its text."""
    import numpy as np
    from black_numba.training import dataset
    lines = open(SAMPLE).read().splitlines()[:300]
    text = tmp_path / "s.txt"
    text.write_text("\n".join(lines) + "\n")
    packed = tmp_path / "s.bnp"
    gamefile.text_to_positions(lines, packed)
    a = dataset.load_file(str(text), use_cache=False)
    b = dataset.load_file(str(packed), use_cache=False)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)
    games = tmp_path / "g.bng"
    gamefile.write_games(games, _random_games(4, seed=3))
    pieces, stm, score, result = dataset.load_file(str(games), use_cache=False)
    out = io.StringIO()
    assert len(score) == gamefile.games_to_text(str(games), out) > 0


@pytest.mark.slow
def test_datagen_games_format_holds_the_text_formats_positions(tmp_path):
    """datagen --format games writes whole games whose kept positions are, line for line,
    what --format text writes for the same seed, in a fraction of the bytes."""
    import subprocess
    from conftest import ENGINE
    for fmt in ("text", "games"):
        r = subprocess.run([ENGINE, "datagen", "--positions", "60", "--jobs", "1", "--nodes",
                            "300", "--seed", "4", "--format", fmt, "--out", str(tmp_path / fmt)],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]
    text = (tmp_path / "text" / "datagen_s4.txt").read_text()
    games = tmp_path / "games" / "datagen_s4.bng"
    out = io.StringIO()
    assert gamefile.games_to_text(str(games), out) >= 60
    assert out.getvalue() == text
    assert os.path.getsize(games) * 4 < len(text)


def test_datagen_writes_a_manifest(tmp_path):
    """manifest.json names every data file with its positions, bytes and SHA-256, and each
    run's commit and command; a resumed run adds its own entry."""
    import hashlib
    import json
    import subprocess
    from conftest import ENGINE
    out = tmp_path / "d"
    for positions in (20, 40):
        r = subprocess.run([ENGINE, "datagen", "--positions", str(positions), "--jobs", "1",
                            "--nodes", "300", "--seed", "6", "--out", str(out)],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]
    m = json.loads((out / "manifest.json").read_text())
    data = (out / "datagen_s6.txt").read_bytes()
    entry = m["files"]["datagen_s6.txt"]
    assert entry["sha256"] == hashlib.sha256(data).hexdigest()
    assert entry["bytes"] == len(data) and entry["positions"] == data.count(b"\n") >= 40
    assert len(m["runs"]) == 2 and m["runs"][1]["command"][:3] == ["black-numba", "datagen",
                                                                     "--positions"]
    assert len(m["runs"][0]["commit"]) >= 16
