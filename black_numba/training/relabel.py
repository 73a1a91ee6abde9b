"""Endgame labels from a stronger engine: the kept positions of data chunks in a phase, scored
again by a reference UCI engine at fixed nodes, written as chunks of their own.

    black-numba data relabel data/datagen_s24_g00000000-00010000.bnc [MORE.bnc | data] \
        [--engine /usr/games/stockfish] [--nodes 5000] [--max-non-pawn 13] [--jobs 2] \
        [--out data]

Why: our own search labels our own games, and a blind spot both players share is never
corrected in self-play; on positions from games against Stockfish the network is farthest
from Stockfish's opinion in level endgames (docs/results.md, "What the foreign games
punish"). The endgame is where a small slice of foreign labels can change most.

A relabel chunk holds the same games as its source chunk (start FEN, moves as ranks, result),
each cut after its last relabelled position and left out when it has none; its kept positions
are the source's kept positions whose non-pawn material (both sides, N = B = 3, R = 5, Q = 9)
is at most --max-non-pawn, each with the reference engine's score (centipawns, White's view);
positions the engine scores as mate are not kept. The engine searches each game's positions in
order after a `ucinewgame` (refengine.py), so the labels do not depend on --jobs. The manifest
entry says `"source": "relabel"`, the source chunk and its SHA-256, the engine and nodes and
the selection; a chunk already relabelled with the same settings is skipped (resume), and a
source without such positions gives no chunk. A data folder given to `train` yields its
datagen chunks only: relabelled chunks are trained on when named (`data/relabel_*.bnc`).
"""
import multiprocessing as mp
import os
import time

import chess
import numpy as np

from black_numba.provenance import file_sha256, git_commit
from black_numba.training import chunks
from black_numba.training.refengine import RefEngine

DEFAULT_ENGINE = "/usr/games/stockfish"
DEFAULT_NODES = 5000
ENDGAME_NON_PAWN = 13           # non-pawn material at or below which a position is an endgame
NON_PAWN_VALUES = {chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
GAMES_PER_TASK = 16             # games a worker labels per task (one engine, in order)
PREFIX = "relabel_"


def non_pawn_material(board):
    """Both sides' knights and bishops 3, rooks 5, queens 9."""
    return sum(NON_PAWN_VALUES[pt] * chess.popcount(board.pieces_mask(pt, c))
               for pt in NON_PAWN_VALUES for c in chess.COLORS)


def ranked_moves(board):
    """The legal moves in the chunk format's order: (from, to, promotion n < b < r < q),
    castling as the king's two-square move (python-chess's form in standard chess)."""
    return sorted(board.legal_moves,
                  key=lambda m: (m.from_square, m.to_square, m.promotion or 0))


def selected_positions(fen, ranks, keep, max_non_pawn):
    """(ply, FEN) of a game's kept positions with non-pawn material <= max_non_pawn."""
    board = chess.Board(fen)
    out = []
    for i, r in enumerate(ranks):
        if keep[i] and non_pawn_material(board) <= max_non_pawn:
            out.append((i, board.fen()))
        moves = ranked_moves(board)
        if r >= len(moves):
            raise chunks.ChunkError(f"ply {i}: rank {int(r)} of {len(moves)} moves")
        board.push(moves[r])
    return out


def chunk_name(source, nodes, max_non_pawn):
    stem = os.path.basename(source)[:-len(chunks.SUFFIX)]
    return f"{PREFIX}{stem}_n{nodes}_np{max_non_pawn}{chunks.SUFFIX}"


# ---------------------------------------------------------------------------------------
# Labelling, one engine a worker process

_ENGINE = None


def _start(engine_path):
    global _ENGINE
    _ENGINE = RefEngine(engine_path, {"Threads": 1, "Hash": 16})


def _label_games(task):
    """[(ply, white-view score or None for a mate)] for each game of the task."""
    nodes, games = task
    out = []
    for gid, picks in games:
        labels = []
        for ply, fen in picks:
            s = _ENGINE.score(fen, nodes, gid)
            if s is not None and fen.split()[1] == "b":
                s = -s
            labels.append((ply, s))
        out.append(labels)
    return out


def relabel_chunk(source, engine, nodes, max_non_pawn, jobs, log=print):
    """The relabelled games of one source chunk: (games for chunks.encode_ranked, positions
    selected, positions kept)."""
    c = chunks.Chunk(source)
    games, picks = [], []
    for g, (fen, ranks, keep, _, result) in enumerate(c.games_iter()):
        try:
            sel = selected_positions(fen, ranks, keep, max_non_pawn)
        except chunks.ChunkError as e:
            raise chunks.ChunkError(f"{source}: game {g}: {e}") from None
        if sel:
            games.append((fen, ranks, result))
            picks.append((f"{os.path.basename(source)}#{g}", sel))
    if not picks:
        return [], 0, 0
    tasks = [(nodes, picks[i:i + GAMES_PER_TASK]) for i in range(0, len(picks), GAMES_PER_TASK)]
    selected = sum(len(p[1]) for p in picks)
    log(f"relabel: {os.path.basename(source)}: {selected} positions in {len(games)} of "
        f"{c.games} games to label")
    with mp.Pool(jobs, initializer=_start, initargs=(engine,)) as pool:
        labelled = [lab for part in pool.imap(_label_games, tasks) for lab in part]
    out = []
    for (fen, ranks, result), labels in zip(games, labelled):
        labels = [(ply, s) for ply, s in labels if s is not None]
        if not labels:
            continue
        last = labels[-1][0]
        keep = np.zeros(last + 1, dtype=bool)
        scores = []
        for ply, s in labels:
            keep[ply] = True
            scores.append(s)
        out.append((fen, ranks[:last + 1], keep, scores, result))
    return out, selected, sum(len(g[3]) for g in out)


def relabel(sources, out, engine=DEFAULT_ENGINE, nodes=DEFAULT_NODES,
            max_non_pawn=ENDGAME_NON_PAWN, jobs=2, command=None, log=print):
    """Relabel each source chunk into a chunk of out (its manifest updated after each);
    returns the new manifest entries."""
    probe = RefEngine(engine)
    name = probe.name
    probe.close()
    os.makedirs(out, exist_ok=True)
    try:
        man = chunks.read_manifest(out)
    except chunks.ChunkError:
        if os.path.exists(os.path.join(out, chunks.MANIFEST)):
            raise
        man = {"format": "BNC1 (docs/data.md)", "chunks": []}
    added = []
    for source in sources:
        target = chunk_name(source, nodes, max_non_pawn)
        digest = file_sha256(source)
        done = [e for e in man["chunks"] if e["file"] == target]
        if done:
            if (done[0].get("from_sha256"), done[0].get("labeller")) != (digest, name):
                raise chunks.ChunkError(
                    f"{target} is in the manifest from another source or engine "
                    f"({done[0].get('labeller')}): relabel into another folder")
            log(f"relabel: {target} is in the manifest already: skipped")
            continue
        t0 = time.time()
        games, selected, kept = relabel_chunk(source, engine, nodes, max_non_pawn, jobs, log)
        if not games:
            log(f"relabel: {os.path.basename(source)}: no position to relabel, no chunk")
            continue
        blob = chunks.encode_ranked(games)
        if len(blob) > chunks.MAX_CHUNK_BYTES:
            raise chunks.ChunkError(f"{target}: {len(blob)} bytes, over the chunk limit")
        path = os.path.join(out, target)
        with open(path, "wb") as f:
            f.write(blob)
        back = chunks.Chunk(path)
        if back.games != len(games) or back.kept != kept:
            raise chunks.ChunkError(f"{path}: does not read back")
        commit = git_commit()
        entry = {"file": target, "games": back.games, "positions": back.kept,
                 "plies": back.plies, "bytes": len(blob), "sha256": file_sha256(path),
                 "source": "relabel", "from": os.path.basename(source),
                 "from_sha256": digest, "labeller": name, "nodes": nodes,
                 "select": f"kept positions with non-pawn material <= {max_non_pawn}",
                 "command": command, "commit": commit, "packed_by": commit}
        man["chunks"].append(entry)
        chunks.write_manifest(out, man)
        added.append(entry)
        log(f"relabel: {target}: {kept} of {selected} positions labelled (the rest mates), "
            f"{back.games} games, {len(blob)} bytes, {time.time() - t0:.0f} s")
    return added
