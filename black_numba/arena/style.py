"""`black_numba.style_report()` (and `black-numba style`, frontends/commands/style.py): how a
player plays, read from its games.

    black-numba style GAMES.pgn ... --player NAME [--engine CMD [--nodes 20000]
        [--option NAME=VALUE]] [--json FILE]

For the player's games: W-D-L, the decisive share, the median length of its wins, the share
of short wins, sacrifices per won game and the share of wins with a sacrifice of at least
1, 2, 3, 5 pawn units, bad draws; with --engine, the opponent's errors per 40 moves against
that engine's best. The measures follow Stefan Pohl's EAS (engine aggressiveness score),
made exact here; docs/style.md, "The style report", defines each:

- Material counts P=1, N=B=3, R=5, Q=9. A *sacrifice episode* begins at a position with the
  player to move whose balance (its material less the opponent's) is above the balance after
  the player's move and the reply, and lasts while that deficit stands in the positions with
  the player to move (its own recapture in between does not end it). Its size is its deepest
  deficit that held SACRIFICE_PLIES positions in a row, or up to a checkmate by the player
  that ended the game; an episode with none is an exchange or a recapture, not a sacrifice.
  A piece the opponent promoted during the episode counts as the pawn it was, so a promotion
  (or a race of two) never makes a deficit. Where the game has scores, only the positions
  before the first move of the player scored below SACRIFICE_FLOOR_CP count (its
  sacrificing move first): a blunder that the player later won is not a sacrifice.
- A win is *short* in at most SHORT_WIN_MOVES moves, and (EAS's measure) when it is shorter
  than the mean length of every win in the games read (the pool).
- A *bad draw* ends before the endgame (a side with more than ENDGAME_PIECES pawn units of
  pieces on the board) or with the player a pawn or more up in both of its last two positions.

Scores come from the moves' PGN comments: ``[%eval 0.35]`` or ``[%eval #-3]`` (White's view,
as lichess and `black-numba annotate` write it) or the mover's ``+0.35/12 0.250s`` (as
`black-numba match` and Cute Chess write it, ``+M3`` a mate). The match runner prints this
report for each engine (match.py).
"""
import os
import re
import statistics

import chess

from black_numba.uci_client import MATE_CP, EngineCrash, EngineHang, UciProcess
from black_numba.board.pgn import PgnError, read_game

# Material in pawn units (EAS's, and the usual): material only, no position
PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
# A deficit is a sacrifice once it holds this many positions in a row (three moves of each
# side): a recapture a move later (an in-between check first) holds 3, one that waits on two
# in-between moves 5.
SACRIFICE_PLIES = 6
SACRIFICE_SIZES = (1, 2, 3, 5)     # the report's thresholds, pawn units
SACRIFICE_FLOOR_CP = -50           # the player's own score must stay at least this
SHORT_WIN_MOVES = 60               # a win in at most this many moves is short
# The endgame: each side has at most this much of pieces besides pawns and the king (a queen
# and a minor piece, two rooks and a minor, a rook and two minors)
ENDGAME_PIECES = 13
ERROR_CP = (100, 200, 300)         # an error loses at least this much against the best move
ERRORS_PER = 40                    # errors are counted per this many moves
ERROR_CAP_CP = 1000                # scores are capped here, a mate counting as the cap
DEFAULT_NODES = 20_000             # the engine's search a position for --engine
ENGINE_STARTUP_S = 120.0           # uciok and readyok (a cold compile cache takes minutes)
ENGINE_MOVE_S = 60.0               # a fixed-node search that takes longer is a hang
RESULTS = ("1-0", "0-1", "1/2-1/2")

# the mover's score as Cute Chess and `black-numba match` write it: +0.35/12, -M3/20
_SCORE_DEPTH = re.compile(r"^\s*([+-]?)(M?)(\d+(?:\.\d+)?)/\d+")


class StyleError(ValueError):
    """Games that cannot be read or reported (a missing file, a broken PGN, no games of the
    player, an engine that cannot analyse)."""


# -- games -----------------------------------------------------------------------------------

class Line:
    """One game as the report reads it: the players, the result, the start position and the
    main line's moves, and each move's score from its mover's view (cp, or None)."""

    __slots__ = ("white", "black", "result", "root", "moves", "scores", "chess960")

    def __init__(self, white, black, result, root, moves, scores, chess960=False):
        self.white, self.black, self.result = white, black, result
        self.root, self.moves, self.scores, self.chess960 = root, moves, scores, chess960

    def board(self):
        return chess.Board(self.root, chess960=self.chess960)


def comment_score(comment, mover):
    """The mover's score in centipawns that a move's comment gives (a mate as
    +-(MATE_CP - n)), or None: [%eval] (White's view) first, else the score/depth form
    (the mover's view)."""
    match = re.search(r"\[%eval\s+([^\]\s,]+)", comment)     # [%eval 0.17,20]: depth
    if match:
        text = match.group(1)
        try:
            if text.startswith("#"):
                n = int(text[1:])              # #3: White mates in 3, #-3: Black does
                if n == 0:                     # mate on the board: the mover gave it
                    return MATE_CP
                white = MATE_CP - n if n > 0 else -MATE_CP - n
            else:
                white = round(float(text) * 100)
        except (ValueError, OverflowError):        # not a number, or nan / inf
            return None
        return white if mover == chess.WHITE else -white
    match = _SCORE_DEPTH.match(comment)
    if not match:
        return None
    sign = -1 if match.group(1) == "-" else 1
    if match.group(2):
        return sign * (MATE_CP - int(float(match.group(3))))
    return sign * round(float(match.group(3)) * 100)


def line_of(game, where="game"):
    """A python-chess Game as a Line; StyleError naming `where` for a game that cannot be
    read (a parse error, a bad start position, an illegal move, a variant)."""
    if game.errors:
        raise StyleError(f"{where}: {game.errors[0]}")
    try:
        board = game.board()
    except ValueError as e:
        raise StyleError(f"{where}: bad FEN: {e}") from None
    if board.uci_variant != "chess":
        raise StyleError(f"{where}: variant {board.uci_variant!r} is not supported")
    if not board.is_valid():
        raise StyleError(f"{where}: illegal start position {board.fen()!r}")
    root = board.fen()
    moves, scores = [], []
    for node in game.mainline():
        if not board.is_legal(node.move):
            raise StyleError(f"{where}: illegal move {node.move.uci()} at ply "
                             f"{len(moves) + 1}")
        scores.append(comment_score(node.comment, board.turn))
        moves.append(node.move)
        board.push(node.move)
    h = game.headers
    return Line(h.get("White", "?"), h.get("Black", "?"), h.get("Result", "*"), root, moves,
                scores, board.chess960)


def read_lines(paths):
    """(lines, left out) from PGN files: every game as a Line; StyleError for a missing
    file, one without games or a game that cannot be read (named by file and number)."""
    lines = []
    for path in paths:
        found = 0
        try:
            with open(path, encoding="utf-8-sig") as f:
                while True:
                    try:
                        game = read_game(f)
                    except PgnError as e:
                        if e.not_pgn and not found:
                            break             # text, not PGN: "no PGN games" below
                        h = e.headers
                        raise StyleError(f"{path}: game {found + 1} ({h.get('White', '?')} - "
                                         f"{h.get('Black', '?')}): {e}") from None
                    if game is None:
                        break
                    found += 1
                    h = game.headers
                    where = f"{path}: game {found} ({h.get('White', '?')} - " \
                            f"{h.get('Black', '?')})"
                    if not game.errors and game.next() is None and \
                            all(h.get(k, "?") in ("?", "*", "????.??.??") for k in h):
                        found -= 1                # text with neither tags nor moves
                        continue
                    lines.append(line_of(game, where))
        except OSError as e:
            raise StyleError(f"{path}: {e.strerror or e}") from None
        except UnicodeDecodeError:
            raise StyleError(f"{path}: not a text (UTF-8) PGN file") from None
        if not found:
            raise StyleError(f"{path}: no PGN games")
    return lines


def match_line(white, black, result, opening, record_moves, comments, chess960=False):
    """A Line from a game of the match runner (its opening (root FEN, [UCI moves]), the
    engines' UCI moves and their comments), as its PGN reads back."""
    board = chess.Board(opening[0], chess960=chess960)
    root = board.fen()
    moves, scores = [], []
    for i, text in enumerate(list(opening[1]) + list(record_moves)):
        move = board.parse_uci(text)
        k = i - len(opening[1])
        scores.append(comment_score(comments[k], board.turn) if k >= 0 else None)
        moves.append(move)
        board.push(move)
    return Line(white, black, result, root, moves, scores, chess960)


# -- one game ---------------------------------------------------------------------------------

def _material(board, color):
    """(all material, pieces besides pawns) of one side, pawn units."""
    pieces = sum(chess.popcount(board.pieces_mask(pt, color)) * v
                 for pt, v in PIECE_VALUES.items() if pt != chess.PAWN)
    return pieces + chess.popcount(board.pieces_mask(chess.PAWN, color)), pieces


class _Walk:
    """A game's positions 0..n (position k after move k): each side's material and pieces,
    the promoted pieces standing (colour, ply promoted, value above a pawn), the end."""

    def __init__(self, line):
        board = line.board()
        self.first = board.turn
        self.material = [self._both(board)]
        self.promoted = [()]
        standing = {}                                     # square -> (colour, ply, extra)
        for ply, move in enumerate(line.moves, 1):
            color = board.turn
            standing.pop(move.to_square, None)            # captured (never by en passant)
            if move.from_square in standing:
                standing[move.to_square] = standing.pop(move.from_square)
            if move.promotion:
                standing[move.to_square] = (color, ply, PIECE_VALUES[move.promotion] - 1)
            board.push(move)
            self.material.append(self._both(board))
            self.promoted.append(tuple(standing.values()))
        self.n = len(line.moves)
        self.mated = board.turn if board.is_checkmate() else None   # the side mated

    def turn(self, t):
        """The side to move in position t."""
        return self.first if t % 2 == 0 else not self.first

    @staticmethod
    def _both(board):
        return {c: _material(board, c) for c in chess.COLORS}

    def balance(self, t, me, since):
        """me's material less the opponent's in position t, a piece the opponent promoted
        after position `since` counted as the pawn it was."""
        own = self.material[t][me][0]
        opp = self.material[t][not me][0]
        opp -= sum(extra for color, ply, extra in self.promoted[t]
                   if color != me and ply > since)
        return own - opp


def _deepest(deficits, to_mate):
    """The deepest deficit that held SACRIFICE_PLIES positions in a row (or, to_mate, to
    the end of the list: the player's mate ended the game)."""
    best = 0
    for a in range(len(deficits)):
        if a + SACRIFICE_PLIES <= len(deficits):
            best = max(best, min(deficits[a:a + SACRIFICE_PLIES]))
        elif to_mate:
            best = max(best, min(deficits[a:]))
    return best


def _below_floor(score):
    return score is not None and score < SACRIFICE_FLOOR_CP


def sacrifices(line, me, walk=None):
    """The sizes (pawn units) of the sacrifice episodes of side `me` in a game, in order.

    An episode starts at a position r with `me` to move whose balance (own material less
    the opponent's) is above the balance after its move and the reply, and lasts while
    that deficit stands in the positions with `me` to move: its own recapture in between
    (a position with the opponent to move) does not end it, the opponent's recapture would
    start it again. The deficits counted are those of every position of the episode up to
    the first move of `me` (its sacrificing move first) scored below SACRIFICE_FLOOR_CP;
    the episode's size is _deepest of them."""
    walk = walk or _Walk(line)
    sizes = []
    r = 0 if walk.turn(0) == me else 1
    while r + 2 <= walk.n:
        before = walk.balance(r, me, r)
        if before - walk.balance(r + 2, me, r) < 1:
            r += 2
            continue
        end = r + 2                         # the first position with me to move, no deficit
        while end <= walk.n and ((end - r) % 2 or before - walk.balance(end, me, r) >= 1):
            end += 1
        deficits = [before - walk.balance(t, me, r) for t in range(r + 2, end)]
        # the floor: a move of mine m (played from position m - 1) scored below it bars
        # that position and every later one of the episode
        cut = next((m for m in range(r + 1, end, 2) if _below_floor(line.scores[m - 1])),
                   None)
        if cut is not None:
            deficits = deficits[:max(0, cut - 1 - (r + 2))]
        to_mate = cut is None and end > walk.n and walk.mated == (not me)
        if to_mate:
            deficits = deficits[:-1]        # the mated position: material no longer counts
        size = _deepest(deficits, to_mate)
        if size >= 1:
            sizes.append(size)
        r = end                             # my move there may begin the next episode
    return sizes


def length_in_moves(line):
    """The number of the game's last move, as the PGN numbers it (0 without moves)."""
    if not line.moves:
        return 0
    board = line.board()
    first_black = board.turn == chess.BLACK
    return board.fullmove_number - 1 + (len(line.moves) + first_black + 1) // 2


def facts(line):
    """What the report needs of one game: its length and result, whether it ended in the
    endgame, and for each colour its sacrifices and whether it ended a pawn or more up."""
    walk = _Walk(line)
    final = walk.material[walk.n]
    last = [final] + ([walk.material[walk.n - 1]] if walk.n else [])
    out = {"length": length_in_moves(line), "result": line.result,
           "endgame": all(final[c][1] <= ENDGAME_PIECES for c in chess.COLORS)}
    for color in chess.COLORS:
        out[color] = {"sacrifices": sacrifices(line, color, walk),
                      "pawn_up": all(m[color][0] - m[not color][0] >= 1 for m in last)}
    return out


# -- the report -------------------------------------------------------------------------------

def _share(part, whole):
    return part / whole if whole else None


def report_from(lines_facts, player, pool_win_lengths):
    """The report (a dict, JSON-ready) of one player from (Line, facts) pairs of its games
    and the lengths of every win in the pool."""
    wins, draws, losses, win_lengths, episodes = 0, 0, 0, [], []
    with_sac = dict.fromkeys(SACRIFICE_SIZES, 0)
    all_episodes = 0
    bad_before = bad_up = bad = 0
    for line, f in lines_facts:
        me = chess.WHITE if line.white == player else chess.BLACK
        mine = f[me]
        all_episodes += len(mine["sacrifices"])
        points = {"1-0": 1, "0-1": 0}.get(line.result, 0.5)
        points = points if me == chess.WHITE else 1 - points
        if points == 1:
            wins += 1
            win_lengths.append(f["length"])
            episodes.append(len(mine["sacrifices"]))
            for size in SACRIFICE_SIZES:
                with_sac[size] += any(s >= size for s in mine["sacrifices"])
        elif points == 0:
            losses += 1
        else:
            draws += 1
            before_endgame, up = not f["endgame"], mine["pawn_up"]
            bad_before += before_endgame
            bad_up += up
            bad += before_endgame or up
    games = wins + draws + losses
    pool_mean = statistics.fmean(pool_win_lengths) if pool_win_lengths else None
    return {
        "player": player, "games": games, "wins": wins, "draws": draws, "losses": losses,
        "score": _share(wins + draws / 2, games),
        "decisive_share": _share(wins + losses, games),
        "wins_length": {
            "median_moves": statistics.median(win_lengths) if win_lengths else None,
            "short_moves": SHORT_WIN_MOVES,
            "short_share": _share(sum(x <= SHORT_WIN_MOVES for x in win_lengths), wins),
            "pool_mean_moves": pool_mean,
            "below_pool_mean_share": None if pool_mean is None else
            _share(sum(x < pool_mean for x in win_lengths), wins)},
        "sacrifices": {
            "plies": SACRIFICE_PLIES, "floor_cp": SACRIFICE_FLOOR_CP,
            "in_wins": sum(episodes), "per_won_game": _share(sum(episodes), wins),
            "wins_with_at_least": {str(k): _share(n, wins) for k, n in with_sac.items()},
            "in_all_games": all_episodes},
        "bad_draws": {
            "count": bad, "share_of_draws": _share(bad, draws),
            "before_endgame": bad_before, "pawn_up": bad_up,
            "endgame_pieces": ENDGAME_PIECES},
        "errors": None,
    }


def _pct(x):
    return "-" if x is None else f"{100 * x:.1f}%"


def report_lines(report):
    """The report as the lines `black-numba style` and the match runner print."""
    r = report
    w, s, b = r["wins_length"], r["sacrifices"], r["bad_draws"]
    median = "-" if w["median_moves"] is None else f"{w['median_moves']:g} moves"
    pool = "-" if w["pool_mean_moves"] is None else f"{w['pool_mean_moves']:.1f}"
    per = "-" if s["per_won_game"] is None else f"{s['per_won_game']:.2f}"
    lines = [f"Style of {r['player']}: {r['games']} games, +{r['wins']} ={r['draws']} "
             f"-{r['losses']} ({_pct(r['score'])}), decisive {_pct(r['decisive_share'])}",
             f"  wins: median {median}, {_pct(w['short_share'])} in at most "
             f"{w['short_moves']} moves, {_pct(w['below_pool_mean_share'])} shorter than the "
             f"pool's mean win ({pool} moves)",
             f"  sacrifices (material held {s['plies']} plies, own score >= "
             f"{s['floor_cp'] / 100:+.2f}): {per} per won game; wins with one of at least "
             + ", ".join(f"{k}: {_pct(v)}" for k, v in s["wins_with_at_least"].items()),
             f"  bad draws: {b['count']} of {r['draws']} draws ({_pct(b['share_of_draws'])}): "
             f"{b['before_endgame']} before the endgame, {b['pawn_up']} a pawn or more up"]
    e = r.get("errors")
    if e:
        for who in ("opponent", "player"):
            x = e[who]
            lines.append(f"  {who}'s errors per {ERRORS_PER} moves ({e['engine']} at "
                         f"{e['nodes']} nodes): " + ", ".join(
                             f">= {cp} cp {x['per_40'][str(cp)]:.2f}" if x["moves"] else
                             f">= {cp} cp -" for cp in ERROR_CP) + f" ({x['moves']} moves)")
    return lines


def _players_games(lines, player):
    mine = [line for line in lines if line.result in RESULTS and player in (line.white,
                                                                            line.black)]
    if not mine:
        names = sorted({n for line in lines for n in (line.white, line.black)})
        shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
        raise StyleError(f"no finished games of {player!r} (players: {shown or 'none'})")
    return mine


def style_report(games, player, *, engine=None, nodes=None, options=(),
                 progress=None):
    """The style report of `player` (a dict; report_lines() prints it) from games: a PGN
    path, a list of paths, or python-chess Games. The pool, whose mean win length defines
    a short win, is every game given. engine: a UCI engine's command line whose search of
    `nodes` nodes a position (default DEFAULT_NODES) scores every move for the errors per
    40 moves; options: its (name, value) UCI options. StyleError for games that cannot be
    read, no games of the player, or an engine that cannot analyse."""
    if isinstance(games, (str, os.PathLike)):
        games = [games]
    games = list(games)
    if games and all(isinstance(g, (str, os.PathLike)) for g in games):
        lines = read_lines(games)
    else:
        lines = [g if isinstance(g, Line) else line_of(g, f"game {i + 1}")
                 for i, g in enumerate(games)]
    mine = _players_games(lines, player)
    done = [(line, facts(line)) for line in lines if line.result in RESULTS]
    pool = [f["length"] for _, f in done if f["result"] != "1/2-1/2"]
    report = report_from([(line, f) for line, f in done if player in (line.white, line.black)],
                         player, pool)
    if engine is not None:
        report["errors"] = engine_errors(mine, player, engine, nodes, options, progress)
    return report


# -- errors against an engine -----------------------------------------------------------------

def _capped(cp):
    return max(-ERROR_CAP_CP, min(ERROR_CAP_CP, cp))


def _position_scores(proc, line, nodes):
    """Each position's score for its side to move (capped cp): a game's end by the rules
    as it stands, else the engine's search of `nodes` nodes."""
    from black_numba.arena.matchgame import rules_outcome
    board = line.board()
    out, ucis = [], []
    proc.new_game(ENGINE_STARTUP_S)
    for k in range(len(line.moves) + 1):
        outcome = rules_outcome(board)
        if outcome is not None:
            out.append(-ERROR_CAP_CP if outcome.winner is not None else 0)
        else:
            position = f"position fen {line.root}" + (" moves " + " ".join(ucis) if ucis
                                                      else "")
            _, score, _, _ = proc.go(position, f"go nodes {nodes}", ENGINE_MOVE_S)
            if score is None:
                raise StyleError(f"{proc.name} gave no score for {board.fen()}")
            out.append(_capped(score))
        if k < len(line.moves):
            ucis.append(board.uci(line.moves[k]))
            board.push(line.moves[k])
    return out


def engine_errors(lines, player, command, nodes=DEFAULT_NODES, options=(), progress=None):
    """The errors of the player's opponents and of the player in these games: moves that lose
    at least ERROR_CP against the engine's best (its score before the move less the score
    after it, both from the mover's view, capped at +-ERROR_CAP_CP), counted and per
    ERRORS_PER moves."""
    nodes = DEFAULT_NODES if nodes is None else nodes
    if nodes < 1:
        raise StyleError(f"--nodes must be at least 1, not {nodes}")
    try:
        proc = UciProcess(command)
    except EngineCrash as e:
        raise StyleError(str(e)) from None
    counts = {who: {"moves": 0, **{str(cp): 0 for cp in ERROR_CP}}
              for who in ("opponent", "player")}
    try:
        proc.handshake(ENGINE_STARTUP_S)
        wanted = list(options)
        if any(line.chess960 for line in lines):
            wanted.append(("UCI_Chess960", "true"))
        for name, value in wanted:
            if name not in proc.options:
                raise StyleError(f"{proc.name} has no option {name!r}")
            proc.set_option(name, value)
        proc.ready(ENGINE_STARTUP_S)
        for i, line in enumerate(lines):
            scores = _position_scores(proc, line, nodes)
            board = line.board()
            for k, move in enumerate(line.moves):
                mover = board.turn
                name = line.white if mover == chess.WHITE else line.black
                who = counts["player" if name == player else "opponent"]
                loss = scores[k] + scores[k + 1]     # best before less (- the reply's view)
                who["moves"] += 1
                for cp in ERROR_CP:
                    who[str(cp)] += loss >= cp
                board.push(move)
            if progress is not None:
                progress(i + 1, len(lines))
    except (EngineCrash, EngineHang) as e:
        raise StyleError(f"the engine cannot analyse: {e}") from None
    finally:
        proc.close()
    for who in counts.values():
        who["per_40"] = {str(cp): ERRORS_PER * who[str(cp)] / who["moves"] if who["moves"]
                         else None for cp in ERROR_CP}
    return {"engine": proc.id_name or proc.name, "command": command, "nodes": nodes,
            "cap_cp": ERROR_CAP_CP, **counts}


# -- the command ------------------------------------------------------------------------------
