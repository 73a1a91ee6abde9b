"""`black-numba data relabel` (training/relabel.py): endgame positions of chunks scored again by
a real Stockfish, written as chunks the trainer reads."""
import os
import subprocess

import chess
import numpy as np
import pytest

from black_numba.provenance import file_sha256
from black_numba.training import chunks, dataset, relabel
from black_numba.training.refengine import RefEngine
from conftest import ENGINE
from test_chunks import _random_games

STOCKFISH = "/usr/games/stockfish"
VALUES = {"n": 3, "b": 3, "r": 5, "q": 9}


def _non_pawn(fen):
    return sum(VALUES.get(ch.lower(), 0) for ch in fen.split()[0])


def _chunk(folder, games):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "c.bnc")
    with open(path, "wb") as f:
        f.write(chunks.encode_chunk(games))
    return path


def test_the_python_replay_gives_the_compiled_replays_positions(tmp_path):
    """The FENs relabel reads from a chunk's ranks are the positions the trainer reads."""
    path = _chunk(tmp_path, _random_games(12, seed=4))
    c = chunks.Chunk(path)
    lines = []
    for fen, ranks, keep, scores, result in c.games_iter():
        sel = relabel.selected_positions(fen, ranks, keep, 1000)
        assert [ply for ply, _ in sel] == list(np.flatnonzero(keep))
        lines += [f"{f} | {s} | {result}" for (_, f), s in zip(sel, scores)]
        endgame = relabel.selected_positions(fen, ranks, keep, relabel.ENDGAME_NON_PAWN)
        assert all(_non_pawn(f) <= 13 for _, f in endgame)
        assert sum(_non_pawn(f) <= 13 for _, f in sel) == len(endgame)
    text = tmp_path / "same.txt"
    text.write_text("\n".join(lines) + "\n")
    for a, b in zip(dataset.load_file(str(text), use_cache=False), c.positions()):
        assert np.array_equal(a, b)


@pytest.fixture
def stockfish():
    if not os.path.exists(STOCKFISH):
        pytest.fail(f"{STOCKFISH} is missing: `python3 bin/bootstrap test` installs Debian's "
                    "stockfish")
    return STOCKFISH


def _relabel(src, out, *extra):
    return subprocess.run([ENGINE, "data", "relabel", src, "--engine", STOCKFISH, "--nodes",
                           "300", "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_endgame_positions_get_stockfishs_scores_in_a_chunk_of_their_own(tmp_path, stockfish):
    src = _chunk(tmp_path / "src", _random_games(8, seed=9))
    r = _relabel(src, tmp_path / "out", "--jobs", "2")
    assert r.returncode == 0, r.stderr
    man = chunks.read_manifest(tmp_path / "out")
    [e] = man["chunks"]
    assert e["file"] == "relabel_c_n300_np13.bnc"
    assert (e["source"], e["from"], e["from_sha256"], e["nodes"]) == \
        ("relabel", "c.bnc", file_sha256(src), 300)
    assert e["labeller"].startswith("Stockfish")
    assert chunks.check_folder(tmp_path / "out") == []
    # training takes a folder's datagen chunks only: relabelled ones when named
    assert chunks.expand([str(tmp_path / "out")]) == []
    # the same games, cut after their last endgame position; Stockfish's own scores, asked
    # again in the same order (White's view; mates left out)
    want = []
    engine = RefEngine(STOCKFISH, {"Threads": 1, "Hash": 16})
    for g, (fen, ranks, keep, _, result) in enumerate(chunks.Chunk(src).games_iter()):
        for ply, f in relabel.selected_positions(fen, ranks, keep, 13):
            s = engine.score(f, 300, g)
            if s is not None:
                want.append((fen, ply, f, s if f.split()[1] == "w" else -s, result))
    engine.close()
    assert len(want) > 20
    got = []
    for fen, ranks, keep, scores, result in chunks.Chunk(tmp_path / "out" / e["file"]).games_iter():
        assert keep[-1]
        sel = relabel.selected_positions(fen, ranks, keep, 1000)
        got += [(fen, ply, f, int(s), result) for (ply, f), s in zip(sel, scores)]
    assert got == want
    assert e["positions"] == len(want)
    # a second run finds it done; one engine labels the same bytes as two
    again = _relabel(src, tmp_path / "out")
    assert again.returncode == 0 and "skipped" in again.stdout
    assert chunks.read_manifest(tmp_path / "out") == man
    one = _relabel(src, tmp_path / "one", "--jobs", "1")
    assert one.returncode == 0, one.stderr
    assert chunks.read_manifest(tmp_path / "one")["chunks"][0]["sha256"] == e["sha256"]


def test_bad_arguments_are_one_clear_line(tmp_path):
    src = _chunk(tmp_path / "src", _random_games(1, seed=2))
    for extra, words in ((["--nodes", "0"], "--nodes and --jobs must be at least 1"),
                         (["--engine", str(tmp_path / "nothing")], "is not an executable file")):
        r = subprocess.run([ENGINE, "data", "relabel", src, *extra, "--out", str(tmp_path)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and words in r.stderr, r.stderr
    bad = tmp_path / "notes.txt"
    bad.write_text("not a chunk")
    r = subprocess.run([ENGINE, "data", "relabel", str(bad), "--engine", "/bin/true"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "not a chunk file or a data folder" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1
