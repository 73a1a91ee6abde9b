"""Training-data chunks (chunks.py) and the repository's data/ folder."""
import json
import os
import random
import subprocess
import sys

import chess
import numpy as np
import pytest

from black_numba.evaluation import netfile
from black_numba.provenance import file_sha256
from black_numba.training import chunks, dataset, gamefile
from black_numba.board.movegen import parse_uci_move
from black_numba.board.position import TABLES, from_fen, make_move
from conftest import ROOT



def _random_games(n, seed=7):
    """Games of random legal moves (promotions, castling, en passant come up), random
    scores, about a third of the positions not kept."""
    rng = random.Random(seed)
    games = []
    for _ in range(n):
        board = chess.Board()
        for _ in range(rng.randint(0, 8)):
            board.push(rng.choice(list(board.legal_moves)))
        start = board.fen()
        pos = from_fen(start)
        plies = []
        while not board.is_game_over() and board.ply() < 200:
            mv = rng.choice(list(board.legal_moves))
            m = parse_uci_move(pos, mv.uci())
            plies.append((m, None if rng.random() < 0.3 else rng.randint(-4000, 4000)))
            make_move(TABLES, pos, m)
            board.push(mv)
        games.append((start, plies, rng.choice(gamefile.RESULT_VALUES)))
    return games


def _text_arrays(games, tmp_path):
    """The trainer's arrays of the same games through the game file and text path."""
    path = tmp_path / "ref.bng"
    gamefile.write_games(path, games)
    return dataset.load_file(str(path), use_cache=False)


def test_chunk_gives_the_same_positions_as_the_game_file(tmp_path):
    games = _random_games(40)
    path = tmp_path / "c.bnc"
    path.write_bytes(chunks.encode_chunk(games))
    c = chunks.Chunk(path)
    kept = sum(1 for _, p, _ in games for _, s in p if s is not None)
    assert (c.games, c.plies, c.kept) == (40, sum(len(p) for _, p, _ in games), kept)
    got = c.positions()
    want = _text_arrays(games, tmp_path)
    for a, b in zip(got, want):
        assert np.array_equal(a, b)
    # and through the trainer's loader, a chunk given by its path
    for a, b in zip(dataset.load_file(str(path), use_cache=False), want):
        assert np.array_equal(a, b)


def test_move_ranks_follow_the_formats_order_not_the_generators():
    """A move's rank is its index among the legal moves sorted by (from, to, promotion
    n < b < r < q): checked against python-chess's move list on every ply."""
    games = _random_games(10, seed=11)
    blob = chunks.encode_chunk(games)
    import tempfile
    with tempfile.NamedTemporaryFile(suffix=".bnc") as f:
        f.write(blob)
        f.flush()
        c = chunks.Chunk(f.name)
        promo = {None: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}
        n = 0
        for (fen, ranks, keep, scores, result), (start, plies, res) in zip(c.games_iter(), games):
            assert fen == start and result == res
            assert list(scores) == [s for _, s in plies if s is not None]
            board = chess.Board(fen)
            pos = from_fen(fen)
            for r, (m, _) in zip(ranks, plies):
                order = sorted(board.legal_moves,
                               key=lambda mv: (mv.from_square, mv.to_square, promo[mv.promotion]))
                mv = order[int(r)]
                assert parse_uci_move(pos, mv.uci()) == m
                make_move(TABLES, pos, m)
                board.push(mv)
                n += 1
        assert n > 1000


def test_size_per_position_is_small():
    games = _random_games(20, seed=3)
    kept = sum(1 for _, p, _ in games for _, s in p if s is not None)
    # random scores do not shrink like a game's; still well under gamefile's 4 bytes a ply
    assert len(chunks.encode_chunk(games)) < 3.5 * kept


def test_an_illegal_move_is_refused_when_packing():
    games = _random_games(2, seed=5)
    start, plies, result = games[1]
    plies = list(plies)
    plies[3] = (plies[2][0], plies[3][1])           # a move played twice is not legal
    with pytest.raises(ValueError, match="game 1: move 4"):
        chunks.encode_chunk([games[0], (start, plies, result)])


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "other"])
def test_a_damaged_chunk_is_a_clear_error_naming_it(tmp_path, damage):
    blob = bytearray(chunks.encode_chunk(_random_games(5, seed=2)))
    path = tmp_path / "bad.bnc"
    if damage == "truncate":
        blob = blob[:len(blob) // 2]
    elif damage == "flip":
        blob[len(blob) // 2] ^= 0x55
    elif damage == "empty":
        blob = b""
    else:
        import lzma
        blob = lzma.compress(b"BNG1 not a chunk", format=lzma.FORMAT_XZ)
    path.write_bytes(bytes(blob))
    with pytest.raises(chunks.ChunkError, match="bad.bnc"):
        chunks.Chunk(path).positions()


def _folder(tmp_path, games_lists):
    folder = tmp_path / "data"
    folder.mkdir()
    entries = []
    for i, games in enumerate(games_lists):
        name = f"c{i}.bnc"
        (folder / name).write_bytes(chunks.encode_chunk(games))
        c = chunks.Chunk(folder / name)
        entries.append({"file": name, "games": c.games, "positions": c.kept, "plies": c.plies,
                        "bytes": os.path.getsize(folder / name),
                        "sha256": file_sha256(folder / name)})
    chunks.write_manifest(folder, {"format": "BNC1", "chunks": entries})
    return folder


def test_folder_check_finds_every_mismatch(tmp_path):
    folder = _folder(tmp_path, [_random_games(3, seed=1), _random_games(3, seed=2)])
    assert chunks.check_folder(folder) == []
    man = chunks.read_manifest(folder)
    man["chunks"][0]["positions"] += 1
    chunks.write_manifest(folder, man)
    assert chunks.check_folder(folder) == [
        f"{folder}/c0.bnc: {man['chunks'][0]['positions'] - 1} positions, the manifest says "
        f"{man['chunks'][0]['positions']}"]
    (folder / "stray.bnc").write_bytes(b"x")
    (folder / "c1.bnc").write_bytes(b"changed")
    bad = chunks.check_folder(folder)
    assert any("stray.bnc: not in the manifest" in b for b in bad)
    assert any("c1.bnc: 7 bytes" in b for b in bad)


def test_train_reads_a_folder_and_skips_bad_chunks_only_when_asked(tmp_path):
    folder = _folder(tmp_path, [_random_games(3, seed=1), _random_games(3, seed=2)])
    paths = chunks.expand([str(folder)])
    assert [os.path.basename(p) for p in paths] == ["c0.bnc", "c1.bnc"]
    blob = bytearray((folder / "c1.bnc").read_bytes())
    blob[40] ^= 1
    (folder / "c1.bnc").write_bytes(bytes(blob))
    with pytest.raises(chunks.ChunkError, match="c1.bnc: SHA-256"):
        chunks.expand([str(folder)])
    said = []
    assert [os.path.basename(p) for p in chunks.expand([str(folder)], True, said.append)] \
        == ["c0.bnc"]
    assert "c1.bnc" in said[0]
    r = subprocess.run([sys.executable, "-m", "black_numba.frontends.cli", "train", str(folder), "--out",
                        str(tmp_path / "n.bnn"), "--epochs", "1"], capture_output=True,
                       text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2 and "c1.bnc: SHA-256" in r.stderr and "--skip-bad" in r.stderr


@pytest.mark.slow
def test_datagen_games_pack_into_chunks_and_a_seed_continues_from_a_game(tmp_path):
    """A real datagen run (--format games) packed into chunks gives the trainer the positions
    of its game file; a run with --first-game plays the same games as one from game 0, and
    its chunks continue the seed's."""
    from conftest import ENGINE
    recipe = ["--format", "games", "--nodes", "300", "--seed", "5", "--task-games", "2",
              "--jobs", "1"]

    def datagen(out, positions, *extra):
        r = subprocess.run([ENGINE, "datagen", "--positions", str(positions), "--out", str(out)]
                           + recipe + list(extra), capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]

    datagen(tmp_path / "whole", 1)                           # at least one task: games 0, 1
    prog = json.loads((tmp_path / "whole" / "datagen_s5.progress").read_text())
    assert prog["games"] >= 2 and prog["runs"][0]["command"][:2] == ["black-numba", "datagen"]
    datagen(tmp_path / "later", 1, "--first-game", str(prog["games"]))
    data = tmp_path / "data"

    def pack(source, *extra):
        r = subprocess.run([ENGINE, "data", "pack", str(source), "--seed", "5", "--out", str(data),
                            "--chunk-games", "1"] + list(extra), capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        return r

    # the run records the network that played; a resume with another one is refused
    shipped = netfile.load(netfile.DEFAULT_NET)[1]["weights_sha256"]
    assert prog["network"] == shipped
    from test_nnue import random_net
    other = str(tmp_path / "other.bnn")                      # a network of other weights
    netfile.save(other, random_net(64, 7))
    r = subprocess.run([ENGINE, "datagen", "--positions", "2", "--out", str(tmp_path / "whole"),
                        "--evalfile", other] + recipe, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 2 and "played by the network" in r.stderr, r.stderr[-2000:]
    bad = subprocess.run([ENGINE, "data", "pack", str(tmp_path / "whole"), "--seed", "5",
                          "--out", str(data), "--net", other], capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode != 0 and "says the games were played by" in bad.stderr
    assert "Traceback" not in bad.stderr and not data.exists()
    pack(tmp_path / "whole")
    man = chunks.read_manifest(data)
    assert [(e["games_from"], e["games_to"]) for e in man["chunks"]] == \
        [(g, g + 1) for g in range(prog["games"])]
    assert {e["network"] for e in man["chunks"]} == {shipped}
    pack(tmp_path / "whole")                                 # nothing new: nothing written
    assert chunks.read_manifest(data) == man
    pack(tmp_path / "later", "--chunk-games", "5", "--rest")
    man = chunks.read_manifest(data)
    assert man["chunks"][-1]["games_from"] == prog["games"]
    assert chunks.check_folder(data) == []
    r = subprocess.run([ENGINE, "data", "check", str(data)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and "all match" in r.stdout
    # the chunks hold exactly the games of one run from game 0 of the same seed
    datagen(tmp_path / "again", 1, "--first-game", "0")
    more = json.loads((tmp_path / "again" / "datagen_s5.progress").read_text())
    if more["games"] < man["chunks"][-1]["games_to"]:
        datagen(tmp_path / "again", more["positions"] + 1)
    ref = list(gamefile.read_games(tmp_path / "again" / "datagen_s5.bng"))
    got = [g for p in chunks.expand([str(data)]) for g in chunks.Chunk(p).games_iter()]
    assert len(ref) >= len(got) > prog["games"]
    for (fen, ranks, keep, scores, result), (start, plies, res) in zip(got, ref):
        assert (fen, result, list(scores)) == (start, res, [s for _, s in plies if s is not None])
        assert len(ranks) == len(plies) and list(keep) == [s is not None for _, s in plies]
    positions = dataset.load([p for p in chunks.expand([str(data)])], use_cache=False)
    assert len(positions[1]) == sum(e["positions"] for e in man["chunks"])


def test_like_finds_a_nets_chunks_in_a_folder_that_has_grown_since(tmp_path):
    """`train --like NET DATA`: the net's chunks are looked up by name in the folder, so a
    data folder with chunks appended after the net still gives its weights again; a file
    the net names and the folder lacks is a clear error."""
    folder = _folder(tmp_path, [_random_games(40, seed=1), _random_games(40, seed=2)])
    net = tmp_path / "n.bnn"
    train_args = ["--hidden", "8", "--epochs", "1", "--batch", "64", "--holdout", "0.2"]
    cli = [sys.executable, "-m", "black_numba.frontends.cli", "train"]
    r = subprocess.run(cli + [str(folder), "--out", str(net)] + train_args,
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    # a chunk appended to the folder, as the campaign appends them
    extra = chunks.encode_chunk(_random_games(40, seed=3))
    (folder / "c2.bnc").write_bytes(extra)
    c = chunks.Chunk(folder / "c2.bnc")
    man = chunks.read_manifest(folder)
    man["chunks"].append({"file": "c2.bnc", "games": c.games, "positions": c.kept,
                          "plies": c.plies, "bytes": len(extra),
                          "sha256": file_sha256(folder / "c2.bnc")})
    chunks.write_manifest(folder, man)
    assert len(chunks.expand([str(folder)])) == 3
    r = subprocess.run(cli + [str(folder), "--like", str(net), "--out", str(tmp_path / "a.bnn")],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0 and "the same as" in r.stderr, r.stderr[-2000:]
    (folder / "c0.bnc").rename(tmp_path / "c0.bnc")
    r = subprocess.run(cli + [str(folder), "--like", str(net), "--out", str(tmp_path / "b.bnn")],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 2 and "c0.bnc: in none of" in r.stderr and "Traceback" not in r.stderr
