"""Exact endgame labels for the trainer: positions the Syzygy tables hold take their verdict.

    black-numba train DATA... --syzygy /tables/3-4-5 --out NET.bnn

Why: our games are played out to adjudication, so about 30% of datagen's kept positions have
five pieces or fewer, each labelled by a 2,000-node search that can call a drawn rook ending
won or a won pawn ending level. The tables know. A position with at most as many pieces as the
largest table, no castling rights (the trainer's data has none to give; en passant is taken as
not possible) and a table for its material gets a label by the tables' WDL (the side to move's
view, fifty-move rule included): a win keeps the search's score when that is at least
``TB_WIN_FLOOR`` and is raised to it otherwise, so the label still says how far along a win is;
a loss mirrors that; a draw, a cursed win or a blessed loss is labelled 0. The game's result
is the game's, as before. Positions without a table keep their label.

The labels are computed once per data file and table set and stored beside the file's parsed
arrays (dataset.Stored), keyed by the tables' names and sizes and by this rule (``RULE``): a
second training run on the same data reads them back.
"""
import hashlib
import os
import sys

import numpy as np
from numba import njit

from black_numba.board.bitboard import TABLES, U1
from black_numba.board.move import code_piece, code_square
from black_numba.board.position import (BOARD, CASTLE, EMPTY, EP, KEY, NO_SQ, OCC, OCC_W,
                                        POS_SIZE, SIDE, compute_key)
from black_numba.tablebase import tbprobe
from black_numba.tablebase.syzygy import Tablebase
from black_numba.training.dataset import MAX_PIECES

TB_WIN_FLOOR = 600      # centipawns: a table's win is labelled at least this (about 97% to win
                        # by the labels' logistic scale), a loss at most its negative
RULE = f"wdl-floor-{TB_WIN_FLOOR}-draw-0"   # in the stored labels' key: a new rule, new labels
BLOCK = 1 << 20         # positions relabelled at a time
# counts returned by _relabel
N_PROBED, N_WIN, N_DRAW, N_LOSS, N_MISSING = range(5)


@njit(cache=True)
def _relabel(T, pieces, stm, score, meta, buf, max_pieces, floor, pos, out, counts):
    """out = score, with the tables' labels (White's view) where they hold the position."""
    for i in range(score.shape[0]):
        s = np.int64(score[i])
        out[i] = s
        n = 0
        while n < MAX_PIECES and pieces[i, n] >= 0:
            n += 1
        if n > max_pieces:
            continue
        pos[:] = 0
        for sq in range(64):
            pos[BOARD + sq] = EMPTY
        for j in range(n):
            p = code_piece(np.int64(pieces[i, j]))
            sq = code_square(np.int64(pieces[i, j]))
            b = U1 << np.uint64(sq)
            pos[BOARD + sq] = p
            pos[p] |= b
            pos[OCC_W + p // 6] |= b
            pos[OCC] |= b
        pos[SIDE] = stm[i]
        pos[EP] = NO_SQ
        pos[CASTLE] = 0
        pos[KEY] = compute_key(T, pos)
        v = tbprobe.probe_wdl(T, pos, meta, buf)
        if v <= tbprobe.TB_ERROR:
            counts[N_MISSING] += 1
            continue
        counts[N_PROBED] += 1
        if stm[i] == 1:
            v = -v                                  # White's view, as the scores are
        if v == 2:
            out[i] = max(s, floor)
            counts[N_WIN] += 1
        elif v == -2:
            out[i] = min(s, -floor)
            counts[N_LOSS] += 1
        else:
            out[i] = 0
            counts[N_DRAW] += 1


def open_tables(path):
    """The Tablebase at path; ValueError when it holds no WDL table or a file is bad."""
    tb = Tablebase(path)
    if tb.errors:
        raise ValueError(f"--syzygy {path}: {tb.errors[0]}")
    if tb.max_pieces == 0:
        raise ValueError(f"--syzygy {path}: no Syzygy WDL table (.rtbw) there")
    return tb


def tables_tag(tb):
    """A short key of the table set (names and sizes of its WDL files) and the rule."""
    h = hashlib.sha256(RULE.encode())
    for name in sorted(tb.tables):
        w = tb.tables[name][0]
        if w is not None:
            h.update(f"|{name}:{os.path.getsize(w.path)}".encode())
    return h.hexdigest()[:16]


class Relabelled:
    """A dataset.Stored whose score column holds the tables' labels (built once, beside it)."""

    def __init__(self, store, tb, log=sys.stderr):
        self.store, self.n, self.path = store, store.n, store.path
        self.file = os.path.join(store.dir, f"score_tb_{tables_tag(tb)}")
        if not os.path.exists(self.file):
            self._build(tb, log)
        self.counts = np.fromfile(self.file + ".counts", dtype=np.int64)

    def _build(self, tb, log):
        tmp = f"{self.file}.{os.getpid()}.tmp"
        pos = np.zeros(POS_SIZE, dtype=np.uint64)
        buf = tbprobe.new_buffer()
        counts = np.zeros(5, dtype=np.int64)
        with open(tmp, "wb") as f:
            for a in range(0, self.n, BLOCK):
                pieces, stm, score, _ = self.store.read(a, min(a + BLOCK, self.n))
                out = np.empty(len(score), dtype=np.int32)
                _relabel(TABLES, pieces, stm, score, tb.meta, buf, tb.max_pieces,
                         TB_WIN_FLOOR, pos, out, counts)
                f.write(out.tobytes())
        counts.tofile(tmp + ".counts")
        os.replace(tmp + ".counts", self.file + ".counts")
        os.replace(tmp, self.file)
        print(f"{self.path}: {counts[N_PROBED]:,} of {self.n:,} positions labelled by the "
              f"tables ({counts[N_WIN]:,} wins for White, {counts[N_DRAW]:,} draws, "
              f"{counts[N_LOSS]:,} wins for Black; {counts[N_MISSING]:,} without a table)",
              file=log)

    def read(self, start, stop):
        """As Stored.read, with the tables' scores."""
        pieces, stm, _, result = self.store.read(start, stop)
        score = np.fromfile(self.file, dtype=np.int32, count=stop - start, offset=start * 4)
        return pieces, stm, score, result

    def take(self, index):
        """As Stored.take, with the tables' scores (through a memory map, dropped after)."""
        pieces, stm, _, result = self.store.take(index)
        m = np.memmap(self.file, dtype=np.int32, mode="r", shape=(self.n,))
        score = np.array(m[index])
        del m
        return pieces, stm, score, result


def relabel_stores(stores, path, log=sys.stderr):
    """(Relabelled stores, a summary for the network's header) for the tables at path."""
    tb = open_tables(path)
    out = [Relabelled(st, tb, log) for st in stores]
    total = np.sum([r.counts for r in out], axis=0)
    summary = {"path": path, "tables": len(tb), "max_pieces": tb.max_pieces,
               "tag": tables_tag(tb), "rule": RULE, "labelled": int(total[N_PROBED]),
               "wins_white": int(total[N_WIN]), "draws": int(total[N_DRAW]),
               "wins_black": int(total[N_LOSS]), "no_table": int(total[N_MISSING])}
    print(f"syzygy: {summary['labelled']:,} positions labelled by {summary['tables']} tables "
          f"of up to {tb.max_pieces} pieces ({RULE})", file=log)
    return out, summary
