"""Fuzzing the files the engine reads: network files, training-data chunks and manifests.

Each damaged file is either read as it was (a harmless change) or refused with the reader's
own error naming the file; nothing else escapes, nothing hangs, and what was loaded before
stays in place. Cases are seeded (tests/fuzzing.py: FUZZ_SEED, FUZZ_SCALE)."""
import json
import lzma
import os
import random

import chess
import numpy as np
import pytest

from black_numba.evaluation import netfile

from black_numba.provenance import file_sha256
from black_numba.training import chunks, gamefile
from black_numba.board.movegen import parse_uci_move
from black_numba.board.position import TABLES, from_fen, make_move
from fuzzing import cases, mutate, rng, where


def _games(n, seed):
    r = random.Random(seed)
    out = []
    for _ in range(n):
        board = chess.Board()
        pos = from_fen()
        plies = []
        while not board.is_game_over() and board.ply() < 120:
            mv = r.choice(list(board.legal_moves))
            m = parse_uci_move(pos, mv.uci())
            plies.append((m, None if r.random() < 0.3 else r.randint(-900, 900)))
            make_move(TABLES, pos, m)
            board.push(mv)
        out.append((chess.STARTING_FEN, plies, r.choice(gamefile.RESULT_VALUES)))
    return out


def test_damaged_network_files_are_refused_naming_the_file():
    base = open(netfile.DEFAULT_NET, "rb").read()
    NN, _ = netfile.loads(base)
    r = rng("network files")
    refused = 0
    for i in range(cases(300)):
        kind, data = mutate(base, r)
        try:
            got, _ = netfile.loads(data, "fuzzed.bnn")
        except netfile.NetError as e:
            assert "fuzzed.bnn" in str(e), where("network files", i)
            refused += 1
            continue
        # read as it was: the weights hash guards every weight byte
        assert np.array_equal(got, NN), (where("network files", i), kind)
    assert refused > cases(300) // 2


def test_damaged_chunks_are_refused_naming_the_file(tmp_path):
    """Damage to the xz stream (its checksum catches it) and to the columns inside a valid
    stream (the reader's own checks): ChunkError naming the file, or a readable chunk."""
    games = _games(6, 1)
    blob = chunks.encode_chunk(games)
    raw = lzma.decompress(blob)
    want = chunks.Chunk(_write(tmp_path / "good.bnc", blob)).positions()
    r = rng("chunks")
    refused = same = 0
    for i in range(cases(300)):
        if i % 2:
            kind, data = mutate(blob, r)
        else:
            kind, payload = mutate(raw, r)
            data = lzma.compress(payload, format=lzma.FORMAT_XZ)
        path = _write(tmp_path / "bad.bnc", data)
        try:
            got = chunks.Chunk(path).positions()
        except chunks.ChunkError as e:
            assert "bad.bnc" in str(e), (where("chunks", i), kind, str(e))
            refused += 1
            continue
        # a column changed inside a valid stream can still be a readable chunk: its
        # positions are legal ones of other games (the manifest's SHA-256 tells them apart)
        assert len(got[1]) == int(got[0].shape[0]), where("chunks", i)
        assert np.all((got[0] >= -1) & (got[0] < 768)), where("chunks", i)
        same += all(np.array_equal(a, b) for a, b in zip(got, want))
    assert refused > cases(300) // 2


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def test_damaged_manifests_are_reported_never_raised(tmp_path):
    """A manifest damaged as text or as JSON values: read_manifest refuses it with
    ChunkError naming it, or check_folder lists what does not match; nothing else."""
    folder = tmp_path / "data"
    folder.mkdir()
    blob = chunks.encode_chunk(_games(2, 2))
    _write(folder / "a.bnc", blob)
    c = chunks.Chunk(folder / "a.bnc")
    entry = {"file": "a.bnc", "games": c.games, "positions": c.kept, "plies": c.plies,
             "bytes": len(blob), "sha256": file_sha256(folder / "a.bnc")}
    good = json.dumps({"format": "BNC1", "chunks": [entry]}).encode()
    r = rng("manifests")
    junk = [None, -1, 0, 2 ** 70, 1.5, "", "../a.bnc", "a.bnc", [], {}, True, "x" * 300]
    for i in range(cases(300)):
        if i % 2:
            kind, text = mutate(good, r)
        else:
            man = json.loads(good)
            target = man["chunks"][0] if r.random() < 0.8 else man
            key = r.choice(sorted(target) + ["extra"])
            target[key] = r.choice(junk)
            kind, text = f"value {key}", json.dumps(man).encode()
        (folder / "manifest.json").write_bytes(text)
        try:
            bad = chunks.check_folder(str(folder))
        except chunks.ChunkError as e:
            assert "manifest.json" in str(e), (where("manifests", i), kind, str(e))
            continue
        assert isinstance(bad, list), where("manifests", i)
        for line in bad:
            assert isinstance(line, str) and line, where("manifests", i)


SYZYGY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "syzygy")


def test_damaged_syzygy_files_are_refused_or_probe_cleanly(tmp_path):
    """A table truncated, with bytes flipped, inserted or deleted, or named for other
    material: loading refuses it with TablebaseError naming the file and keeps the others,
    or probing it answers a value in range or raises TablebaseError / KeyError naming what
    is wrong; never a crash or a hang. The engine keeps searching with what loaded."""
    from black_numba.tablebase import positions, syzygy
    names = ("KRvK", "KPvK", "KRvKR")
    pristine = syzygy.Tablebase(SYZYGY)
    r = rng("syzygy files")
    boards = {n: [b for b in (positions.random_board(n, random.Random(i)) for i in range(40))
                  if b is not None] for n in names}
    refused = probed = 0
    for i in range(cases(60)):
        folder = tmp_path / f"c{i}"
        folder.mkdir()
        name = r.choice(names)
        ext = r.choice((".rtbw", ".rtbz"))
        data = open(os.path.join(SYZYGY, name + ext), "rb").read()
        if r.random() < 0.15:
            # a good file under another material's name
            other = r.choice([n for n in ("KQvK", "KBvK", "KNvK") if n != name])
            kind, path = "renamed", folder / (other + ext)
        else:
            kind, data = mutate(data, r)
            path = folder / (name + ext)
        path.write_bytes(data)
        if kind != "renamed":
            # the table's other file, undamaged: probes reach the damaged one
            sibling = name + (".rtbz" if ext == ".rtbw" else ".rtbw")
            (folder / sibling).write_bytes(open(os.path.join(SYZYGY, sibling), "rb").read())
        tb = syzygy.Tablebase(str(folder))
        if tb.errors:
            assert all(path.name in str(e) for e in tb.errors), (where("syzygy files", i), kind)
            refused += 1
            continue
        for board in boards[name]:
            try:
                v = tb.probe_wdl(board) if ext == ".rtbw" else tb.probe_dtz(board)
            except (syzygy.TablebaseError, KeyError, ValueError) as e:
                assert str(e), where("syzygy files", i)
                continue
            probed += 1
            assert -2 <= v <= 2 if ext == ".rtbw" else abs(v) < 1100, \
                (where("syzygy files", i), kind, v)
        tb.close()
    print(f"\nsyzygy files: {cases(60)} damaged files, {refused} refused, {probed} probes "
          f"answered")
    assert refused > cases(60) // 3
    # after it all, the pristine tables still answer as python-chess's
    import chess.syzygy
    oracle = chess.syzygy.open_tablebase(SYZYGY)
    for board in boards["KPvK"]:
        assert pristine.probe_wdl(board) == oracle.probe_wdl(board)
