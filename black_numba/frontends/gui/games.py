"""One tab's game: the rules with python-chess (legal moves, SAN, results with their reasons,
Chess960, PGN), the moves played, the position shown, the players and their clocks. The page
computes no rule: it shows what `state()` says and sends the squares a move went between."""
import datetime
import io
import itertools
import random
import re

import chess
import chess.pgn

from black_numba.board.pgn import PgnError
from black_numba.frontends.annotation import read_game
from black_numba.frontends.gui.clock import Clock

PLAY, ANALYSIS = "play", "analysis"
COLOR_NAMES = {chess.WHITE: "white", chess.BLACK: "black"}
COLORS = {name: color for color, name in COLOR_NAMES.items()}
# how a game ended, as the page says it (python-chess's terminations, then ours)
REASONS = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient material",
    chess.Termination.SEVENTYFIVE_MOVES: "seventy-five-move rule",
    chess.Termination.FIVEFOLD_REPETITION: "fivefold repetition",
    chess.Termination.FIFTY_MOVES: "fifty-move rule",
    chess.Termination.THREEFOLD_REPETITION: "threefold repetition",
}
TIME, RESIGNATION, ABORTED = "time", "resignation", "aborted"
DECIDED = (TIME, RESIGNATION, ABORTED)    # ended by a person or a flag, not by the board
CLOCK_START_PLIES = 2            # as lichess: the clocks run once both sides have moved
UNNAMED = {"white": "White", "black": "Black"}   # players a PGN leaves unnamed, as lichess
CHESS960_POSITIONS = 960
MAX_PLIES = 2000                 # a loaded game longer than this is refused (no real game is)
_SERIALS = itertools.count(1)    # every Game its own number: engine work is tagged with it
# why python-chess finds a position illegal (chess.STATUS_* flags), as the page says it
STATUS_TEXT = (
    (chess.STATUS_NO_WHITE_KING, "White has no king"),
    (chess.STATUS_NO_BLACK_KING, "Black has no king"),
    (chess.STATUS_TOO_MANY_KINGS, "too many kings"),
    (chess.STATUS_TOO_MANY_WHITE_PAWNS, "White has more than 8 pawns"),
    (chess.STATUS_TOO_MANY_BLACK_PAWNS, "Black has more than 8 pawns"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "a pawn stands on the first or last rank"),
    (chess.STATUS_TOO_MANY_WHITE_PIECES, "White has more than 16 pieces"),
    (chess.STATUS_TOO_MANY_BLACK_PIECES, "Black has more than 16 pieces"),
    (chess.STATUS_BAD_CASTLING_RIGHTS, "castling rights without king and rook at home"),
    (chess.STATUS_INVALID_EP_SQUARE, "impossible en passant square"),
    (chess.STATUS_OPPOSITE_CHECK, "the side not to move is in check"),
    (chess.STATUS_EMPTY, "the board is empty"),
    (chess.STATUS_TOO_MANY_CHECKERS, "too many pieces give check"),
    (chess.STATUS_IMPOSSIBLE_CHECK, "an impossible check"),
)


class GameError(ValueError):
    """An action the game refuses (an illegal move, a bad FEN or PGN): the game is unchanged."""


def illegal_reason(board):
    """Why board is not a legal position, or None."""
    status = board.status()
    if status == chess.STATUS_VALID:
        return None
    return ", ".join(text for flag, text in STATUS_TEXT if status & flag) or "illegal position"


FEN_FIELDS = "the pieces, the side to move, castling, en passant, the halfmove clock and " \
    "the move number"
# python-chess's complaints about a move of a PGN (its text has the move and the position)
SAN_ERROR = re.compile(r"^(illegal|ambiguous|invalid|missing promotion piece type:?)"
                       r"(?: san)?:? (['\"])(.*)\2(?: in (.+))?$")
SAN_WHY = {"illegal": "is not a legal move in that position",
           "ambiguous": "is ambiguous: more than one piece can make it (name the piece's file "
                        "or rank, as in Nbd2)",
           "invalid": "is not a move in chess notation",
           "missing": "needs the piece it promotes to (as in e8=Q)"}


def fen_problem(fen):
    """What is wrong with a FEN's fields, in a person's words, or None (the position itself
    may still be illegal: illegal_reason)."""
    parts = fen.split()
    if not parts:
        return "the FEN is empty: paste one"
    if len(parts) > 6:
        return f"a FEN has at most 6 fields ({FEN_FIELDS}), this one has {len(parts)}"
    ranks = parts[0].split("/")
    if len(ranks) != 8:
        return (f"the pieces (field 1) give {len(ranks)} rank{'s' if len(ranks) != 1 else ''}:"
                " a board has 8, separated by /")
    for i, rank in enumerate(ranks):
        squares, digit = 0, False
        for ch in rank:
            if ch.isdigit():
                if digit:
                    return f"rank {8 - i} ({rank}) has two digits in a row: write 8, not 44"
                squares += int(ch)
                digit = True
                continue
            digit = False
            if ch.lower() in "pnbrqk":
                squares += 1
            elif ch != "~":
                return (f"{ch!r} on rank {8 - i} is not a piece: KQRBNP for White, kqrbnp "
                        "for Black, a digit for empty squares")
        if squares != 8:
            return f"rank {8 - i} ({rank}) has {squares} squares, not 8"
    if len(parts) > 1 and parts[1] not in ("w", "b"):
        return f"the side to move (field 2) is {parts[1]!r}: it must be w or b"
    if len(parts) > 2 and not re.fullmatch(r"-|[KQkqA-Ha-h]+", parts[2]):
        return (f"castling (field 3) is {parts[2]!r}: it must be - or letters of KQkq "
                "(Chess960: the rooks' files)")
    if len(parts) > 3 and not re.fullmatch(r"-|[a-h][36]", parts[3]):
        return (f"the en passant square (field 4) is {parts[3]!r}: it must be - or a square "
                "on rank 3 or 6")
    if len(parts) > 4 and not parts[4].isdigit():
        return f"the halfmove clock (field 5) is {parts[4]!r}: it must be a whole number"
    if len(parts) > 5 and not parts[5].isdigit():
        return f"the move number (field 6) is {parts[5]!r}: it must be a whole number"
    return None


def board_of_fen(fen, chess960=False):
    """A legal chess.Board of a FEN (X-FEN or Shredder-FEN castling; Chess960 when asked or
    when the castling letters name files), or GameError saying what is wrong in a person's
    words (never python-chess's own text)."""
    fen = " ".join(fen.split())
    if not fen:
        raise GameError("the FEN is empty: paste one")
    problem = fen_problem(fen)
    if problem:
        raise GameError(f"bad FEN: {problem}")
    castling = fen.split(" ")[2] if fen.count(" ") >= 2 else "-"
    chess960 = chess960 or any(c not in "KQkq-" for c in castling)
    try:
        board = chess.Board(fen, chess960=chess960)
    except ValueError:
        raise GameError(f"bad FEN: it cannot be read; check its fields ({FEN_FIELDS})") \
            from None
    why = illegal_reason(board)
    if why:
        raise GameError(f"illegal position: {why}")
    if not chess960 and board.clean_castling_rights() != board.castling_rights:
        raise GameError("illegal position: castling rights without king and rook at home")
    return board


def looks_like_fen(text):
    """Is text one line whose first word has the ranks of a FEN (rather than a PGN)?"""
    first = text.strip().split()[0] if text.strip() else ""
    return "\n" not in text.strip() and "/" in first and "[" not in text and \
        re.fullmatch(r"[A-Za-z0-9/~]+", first) is not None


def move_name(board, san):
    """ "2. Ke3" or "2... Ke7": a move as a person names it, in the position board."""
    dots = "." if board.turn == chess.WHITE else "..."
    return f"{board.fullmove_number}{dots} {san}"


def pgn_problem(game):
    """Why a PGN's game cannot be loaded, in a person's words (the move number and the move
    that failed, the FEN header's field), or None."""
    if game.errors and isinstance(game.errors[0], PgnError):
        e = game.errors[0]
        if e.number == "header" and "/" in e.token:      # the FEN tag's value
            return f"its FEN header: {fen_problem(e.token) or 'cannot be read'}"
        return str(e)
    if game.errors:
        text = str(game.errors[0])
        found = SAN_ERROR.match(text)
        if found:
            kind, san, fen = found.group(1).split()[0], found.group(3), found.group(4)
            try:
                where = chess.Board(fen) if fen else game.end().board()
            except ValueError:
                where = game.end().board()
            return f"{move_name(where, san)} {SAN_WHY[kind]}"
        if "fen" in text.lower() and "FEN" in game.headers:
            return f"its FEN header: {fen_problem(game.headers['FEN']) or 'cannot be read'}"
        return "it cannot be read as a PGN (check the move text and the [Tag \"value\"] lines)"
    try:
        board = game.board()
    except ValueError:
        return f"its FEN header: {fen_problem(game.headers.get('FEN', '')) or 'cannot be read'}"
    if board.uci_variant != "chess":
        return (f"the variant {game.headers.get('Variant', board.uci_variant)} is not "
                "supported: standard chess and Chess960 only")
    why = illegal_reason(board)
    if why:
        return f"its start position is illegal: {why}"
    for move in game.mainline_moves():
        if not board.is_legal(move):
            return f"{move_name(board, move.uci())} is not a legal move in that position"
        board.push(move)
    return None


def parse_game_text(text, chess960=False):
    """(root board, moves, PGN headers) of pasted or uploaded text: a FEN or a PGN's first
    game. GameError with the reason for anything else: a bad FEN, an illegal position, a PGN
    that python-chess cannot read or with an illegal move, no game at all."""
    if not isinstance(text, str) or not text.strip():
        raise GameError("paste or upload a FEN or a PGN")
    if looks_like_fen(text):
        return board_of_fen(text, chess960), [], {}
    game = read_game(io.StringIO(text))
    if game is None:
        raise GameError("no game found: paste a FEN or a PGN")
    moves = list(game.mainline_moves())
    # text whose first word is no PGN ("hello") is no PGN at all
    unread = bool(game.errors) and isinstance(game.errors[0], PgnError) and \
        game.errors[0].not_pgn
    if not moves and "FEN" not in game.headers and (not game.errors or unread):
        raise GameError("no chess moves or position found: this is not a PGN or a FEN "
                        "(a FEN reads rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1,"
                        " a PGN 1. e4 e5 2. Nf3)")
    problem = pgn_problem(game)
    if problem:
        raise GameError(f"bad PGN: {problem}")
    if len(moves) > MAX_PLIES:
        raise GameError(f"the game has {len(moves)} plies, more than {MAX_PLIES}")
    root = game.board()
    return root, moves, {k: v for k, v in game.headers.items()
                         if k not in ("FEN", "SetUp", "Variant")}


def chess960_board(number=None):
    """A Chess960 start position (a random one of the 960 unless numbered)."""
    if number is None:
        number = random.randrange(CHESS960_POSITIONS)
    return chess.Board.from_chess960_pos(number)


def castle_targets(board, move):
    """The squares a castling move may be dropped on: the king's destination and its rook's
    square (both mean castling on any board; python-chess writes standard castling as the
    king's destination, Chess960 castling as the rook's square)."""
    rank = chess.square_rank(move.from_square)
    if board.chess960:
        rook = move.to_square
        king_file = 6 if chess.square_file(rook) > chess.square_file(move.from_square) else 2
        return {chess.square(king_file, rank), rook}
    rook_file = 7 if chess.square_file(move.to_square) == 6 else 0
    return {move.to_square, chess.square(rook_file, rank)}


def parse_squares(origin, target):
    """The square numbers of two square names ("e2", "e4"), or GameError."""
    try:
        return chess.parse_square(origin), chess.parse_square(target)
    except (ValueError, TypeError):
        raise GameError(f"bad squares {origin!r} {target!r}") from None


def resolve_move(board, origin, target, promotion=None):
    """The legal move of board from square origin to target (names such as "e2"), with the
    promotion piece letter (q, r, b, n) for a pawn reaching the last rank; a king dropped on
    its castling square or on its rook castles. GameError when there is none."""
    a, b = parse_squares(origin, target)
    piece = None
    if promotion:
        try:
            piece = chess.Piece.from_symbol(promotion).piece_type
        except (ValueError, TypeError):
            raise GameError(f"bad promotion piece {promotion!r}") from None
    exact = [m for m in board.legal_moves
             if m.from_square == a and m.to_square == b and m.promotion == piece]
    if exact:
        return exact[0]
    for m in board.legal_moves:
        if m.from_square == a and board.is_castling(m) and b in castle_targets(board, m) \
                and not piece:
            return m
    raise GameError(f"{origin}-{target}{'=' + promotion.upper() if promotion else ''} is not a "
                    "legal move in this position")


def legal_targets(board):
    """({from square: [to squares]}, [promotions as from+to]) of board, square names as the
    page writes them (castling to both of castle_targets)."""
    targets, promotions = {}, set()
    for m in board.legal_moves:
        to = castle_targets(board, m) if board.is_castling(m) else {m.to_square}
        targets.setdefault(chess.square_name(m.from_square), set()).update(
            chess.square_name(s) for s in to)
        if m.promotion:
            promotions.add(chess.square_name(m.from_square) + chess.square_name(m.to_square))
    return {k: sorted(v) for k, v in targets.items()}, sorted(promotions)


def shown_move_squares(board, move):
    """(from, to) square names of a move as the board draws it (castling: the king's path)."""
    if board.is_castling(move):
        to = min(castle_targets(board, move) - {move.to_square} or {move.to_square}) \
            if board.chess960 else move.to_square
        return chess.square_name(move.from_square), chess.square_name(to)
    return chess.square_name(move.from_square), chess.square_name(move.to_square)


def outcome_of(board):
    """(result, reason) of a finished position ("1-0", "checkmate"), None while it goes on;
    threefold repetition and the fifty-move rule end the game once they stand on the board
    (claimed at once). Not python-chess's claim_draw, which also counts a draw that a legal
    move would bring about: the game is not over until that move is played."""
    outcome = board.outcome(claim_draw=False)
    if outcome is not None:
        return outcome.result(), REASONS[outcome.termination]
    if board.is_repetition(3):
        return "1/2-1/2", REASONS[chess.Termination.THREEFOLD_REPETITION]
    if board.is_fifty_moves():
        return "1/2-1/2", REASONS[chess.Termination.FIFTY_MOVES]
    return None


class Game:
    """A game from a root position: its moves, the ply shown (cursor), and in play mode the
    engine's colour, level and clock. `serial` names the game and `generation` counts changes
    of its moves, so that an engine answer to another game or an older position is recognised
    and dropped. The clocks start once both sides have made their first move (as lichess's):
    the first moves, and the engine's first load, cost no time and add no increment; until
    then the game may be aborted."""

    def __init__(self, root=None, moves=(), mode=ANALYSIS, engine_color=None, elo=None,
                 style=None, clock=None, movetime_ms=None, headers=None, engine_name="engine"):
        self.root = (root or chess.Board()).copy(stack=False)
        self.board = self.root.copy()
        for m in moves:
            self.board.push(m)
        self.mode = mode
        self.engine_color = engine_color if mode == PLAY else None
        self.elo, self.style = elo, style
        self.clock = clock if mode == PLAY else None
        self.movetime_ms = movetime_ms
        self.person_rating = None        # the person's rating where they gave one
        self.headers = dict(headers or {})
        self.engine_name = engine_name
        self.cursor = len(self.board.move_stack)
        self.result, self.reason = "*", None
        self.generation = 0
        self.serial = next(_SERIALS)
        self.start_ply = self.cursor     # moves before this came with the game
        self.date = datetime.date.today()
        self._update_result()

    # -- reading ---------------------------------------------------------------------------
    @property
    def moves(self):
        return list(self.board.move_stack)

    def shown(self):
        """The board at the ply shown (its moves from the root on its stack)."""
        if self.cursor == len(self.board.move_stack):
            return self.board.copy()
        b = self.root.copy()
        for m in self.board.move_stack[:self.cursor]:
            b.push(m)
        return b

    def over(self):
        return self.result != "*" or self.reason == ABORTED

    def plies_played(self):
        """Moves made in this game (not those it started with)."""
        return len(self.board.move_stack) - self.start_ply

    def abortable(self):
        """A game going on in which a side has not yet moved: lichess offers Abort, not
        Resign."""
        return self.mode == PLAY and not self.over() and \
            self.plies_played() < CLOCK_START_PLIES

    def shown_result(self):
        """The result written at the end of the move list: a played game's once it is
        decided; an analysed game's where its last position ends it, else its PGN's result
        while its moves are still those it came with (its result no longer holds once they
        change)."""
        if self.mode == PLAY:
            return None if self.result == "*" else self.result
        found = outcome_of(self.board)
        if found:
            return found[0]
        given = self.headers.get("Result")
        if self.generation == 0 and given in ("1-0", "0-1", "1/2-1/2"):
            return given
        return None

    def engine_to_move(self):
        """Is it the engine's turn in a game going on?"""
        return self.mode == PLAY and not self.over() and self.board.turn == self.engine_color

    def may_move_shown(self):
        """May the person move in the position shown?"""
        if self.mode == ANALYSIS:
            return not self.shown().is_game_over()
        return not self.over() and self.cursor == len(self.board.move_stack) and \
            self.board.turn != self.engine_color

    def tag(self):
        """The position shown, as engine lines for it are tagged: game, generation and ply."""
        return f"{self.serial}:{self.generation}:{self.cursor}"

    # -- changing ----------------------------------------------------------------------------
    def _changed(self):
        self.generation += 1

    def _update_result(self):
        """The result of the position at the end of the moves (play mode: the clock stops)."""
        if self.reason in DECIDED:
            return
        found = outcome_of(self.board)
        self.result, self.reason = found if found else ("*", None)
        if self.clock is not None and found:
            self.clock.stop()

    def move(self, origin, target, promotion=None):
        """The person's move from the position shown. Analysis: a move that is the next one
        of the game only steps forward; any other cuts the game there and plays it. Play: only
        at the end of the game, on the person's turn. GameError when refused (a flag that has
        fallen first ends the game on time)."""
        parse_squares(origin, target)
        if self.mode == PLAY:
            if self.check_flag():
                raise GameError(f"time is up ({result_text(self.result, self.reason)})")
            if self.over():
                raise GameError(f"the game is over ({self.result}, {self.reason})")
            if self.cursor != len(self.board.move_stack):
                raise GameError("go to the last move to play on")
            if self.board.turn == self.engine_color:
                raise GameError("it is the engine's turn")
        board = self.shown()
        if self.mode == ANALYSIS and board.is_game_over():
            raise GameError("the game is over in this position")
        self._play_from_cursor([resolve_move(board, origin, target, promotion)])

    def play_line(self, ucis):
        """Analysis: play moves (UCI text in the game's notation, as an engine line writes
        them) from the position shown. GameError for a move that is not legal there."""
        if self.mode != ANALYSIS:
            raise GameError("engine lines are played onto the board in analysis only")
        board = self.shown()
        line = []
        for text in ucis:
            try:
                m = board.parse_uci(text)
            except (ValueError, TypeError):
                raise GameError(f"the line's move {text!r} is not a move") from None
            if not board.is_legal(m):
                raise GameError(f"the line's move {text!r} is not legal in this position")
            line.append(m)
            board.push(m)
        if not line:
            raise GameError("no moves given")
        self._play_from_cursor(line)

    def _play_from_cursor(self, line):
        stack = self.board.move_stack
        rest = stack[self.cursor:]
        if self.mode == ANALYSIS and rest[:len(line)] == line:
            self.cursor += len(line)           # the game's own next moves: only step on
            return
        if self.cursor != len(stack):
            self.board = self.shown()
        self._push(line)

    def _push(self, line):
        """Play moves at the end of the game, each pressing its mover's clock (the clocks
        start after both first moves)."""
        for m in line:
            mover = self.board.turn
            self.board.push(m)
            if self.clock is None or self.plies_played() < CLOCK_START_PLIES:
                continue
            if self.plies_played() == CLOCK_START_PLIES:
                self.clock.start(self.board.turn)
            else:
                self.clock.press(mover)
        self.cursor = len(self.board.move_stack)
        self._changed()
        self._update_result()

    def engine_move(self, uci, generation):
        """The engine's answer (UCI text) to the game of `generation`: played when the game is
        still that one and the engine's turn; False when dropped."""
        if generation != self.generation or not self.engine_to_move() or self.check_flag():
            return False
        try:
            m = self.board.parse_uci(uci)
        except (ValueError, TypeError):
            return False
        self._push([m])
        return True

    def takeback(self):
        """Play: take back the person's last move (and the engine's answer to it), so that it
        is the person's turn again; a game lost on time or resigned stays over. Analysis: take
        back the last move. GameError when there is nothing to take back."""
        stack = self.board.move_stack
        if self.mode == ANALYSIS:
            if not stack:
                raise GameError("no move to take back")
            self.board.pop()
        else:
            if self.reason in DECIDED or self.check_flag():
                raise GameError(f"the game was {self.reason}" if self.reason == ABORTED
                                else f"the game was decided by {self.reason}")
            human = not self.engine_color
            # the person's moves are the plies whose mover is not the engine
            plies = [i for i in range(len(stack))
                     if (self.root.turn if i % 2 == 0 else not self.root.turn) == human]
            if not plies:
                raise GameError("no move of yours to take back")
            while len(self.board.move_stack) > plies[-1]:
                self.board.pop()
            self.result, self.reason = "*", None
        self.cursor = len(self.board.move_stack)
        self._changed()
        self._update_result()
        if self.clock is not None:
            if self.over() or self.plies_played() < CLOCK_START_PLIES:
                self.clock.stop()                 # back before both first moves: none runs
            else:
                self.clock.start(self.board.turn)

    def goto(self, ply):
        """Show the position after ply plies (0: the root)."""
        if isinstance(ply, bool) or not isinstance(ply, int) or \
                not 0 <= ply <= len(self.board.move_stack):
            raise GameError(f"no ply {ply!r} in a game of {len(self.board.move_stack)}")
        self.cursor = ply

    def resign(self):
        if self.mode != PLAY or self.over():
            raise GameError("no game going on to resign")
        human = not self.engine_color
        self.result = "0-1" if human == chess.WHITE else "1-0"
        self.reason = RESIGNATION
        self.clock and self.clock.stop()
        self.cursor = len(self.board.move_stack)     # the end shown, with its result
        self._changed()

    def abort(self):
        """End a game before both sides have moved, with no result (as lichess's Abort)."""
        if not self.abortable():
            raise GameError("a game is aborted only before both sides have moved: resign it")
        self.reason = ABORTED
        self.clock and self.clock.stop()
        self.cursor = len(self.board.move_stack)
        self._changed()

    def check_flag(self):
        """Has a flag fallen? The game then ends on time (a draw where the other side cannot
        mate with any moves, as FIDE's rule 6.9 says). True when the result changed."""
        if self.clock is None or self.over():
            return False
        loser = self.clock.flagged()
        if loser is None:
            return False
        self.clock.stop()
        if self.board.has_insufficient_material(not loser):
            self.result = "1/2-1/2"
        else:
            self.result = "0-1" if loser == chess.WHITE else "1-0"
        self.reason = TIME
        self.cursor = len(self.board.move_stack)     # the end shown, with its result
        self._changed()
        return True

    # -- what the page shows ------------------------------------------------------------------
    def status(self, board):
        """One line about the position shown: whose turn, check, or how the game ended."""
        if self.mode == PLAY and self.over() and self.cursor == len(self.board.move_stack):
            return result_text(self.result, self.reason)
        found = outcome_of(board)
        if found:
            return result_text(*found)
        side = "White" if board.turn else "Black"
        return f"{side} to move" + (", in check" if board.is_check() else "")

    def state(self):
        """The game as the page draws it."""
        board = self.shown()
        moves, replay = [], self.root.copy()
        for m in self.board.move_stack:
            san = replay.san(m)
            frm, to = shown_move_squares(replay, m)
            moves.append({"san": san, "uci": replay.uci(m), "from": frm, "to": to})
            replay.push(m)
            moves[-1]["fen"] = replay.fen()
        legal, promotions = legal_targets(board) if self.may_move_shown() else ({}, [])
        check = board.king(board.turn) if board.is_check() else None
        return {
            "mode": self.mode, "game": self.serial, "generation": self.generation,
            "tag": self.tag(),
            "start_fen": self.root.fen(), "chess960": self.root.chess960,
            "start_turn": COLOR_NAMES[self.root.turn], "start_number": self.root.fullmove_number,
            "fen": board.fen(), "ply": self.cursor, "turn": COLOR_NAMES[board.turn],
            "check": None if check is None else chess.square_name(check),
            "last_move": [moves[self.cursor - 1]["from"], moves[self.cursor - 1]["to"]]
            if self.cursor else None,
            "legal": legal, "promotions": promotions, "moves": moves,
            "result": self.result, "reason": self.reason, "status": self.status(board),
            "engine_color": COLOR_NAMES.get(self.engine_color),
            "elo": self.elo, "style": self.style, "movetime_ms": self.movetime_ms,
            "rating": self.person_rating,
            "clock": None if self.clock is None else self.clock.snapshot(),
            "players": self.players(), "over": self.over(), "start_ply": self.start_ply,
            "abortable": self.abortable(), "shown_result": self.shown_result(),
        }

    def engine_label(self):
        """The engine and its level as PGN's player tag names it."""
        level = "full strength" if self.elo is None else f"UCI_Elo {self.elo}"
        if self.style:
            level += f", Style {self.style}"
        return f"{self.engine_name} ({level})"

    def players(self):
        if self.mode != PLAY:
            given = {side: self.headers.get(side.capitalize(), "").strip() for side in UNNAMED}
            return {side: name if given[side] in ("", "?") else given[side]
                    for side, name in UNNAMED.items()}
        engine, human = self.engine_label(), "Player"
        return {"white": engine if self.engine_color == chess.WHITE else human,
                "black": engine if self.engine_color == chess.BLACK else human}

    def pgn_game(self):
        """The game as a python-chess Game, with its headers: event, date, players and
        levels, time control, result and termination."""
        game = chess.pgn.Game.from_board(self.board)
        h = game.headers
        for k, v in self.headers.items():
            if k not in h or h[k] in ("?", "????.??.??"):
                h[k] = v
        if self.mode == PLAY:
            h["Event"] = "black_numba board"
            h["Site"] = "local"
            h["Date"] = self.date.strftime("%Y.%m.%d")
            players = self.players()
            h["White"], h["Black"] = players["white"], players["black"]
            if self.elo is not None:
                h["WhiteElo" if self.engine_color == chess.WHITE else "BlackElo"] = str(self.elo)
            if self.person_rating is not None:
                h["BlackElo" if self.engine_color == chess.WHITE else "WhiteElo"] = \
                    str(self.person_rating)
            h["TimeControl"] = self.clock.control() if self.clock else "-"
            h["Result"] = self.result
            if self.over():
                h["Termination"] = {TIME: "time forfeit", ABORTED: "abandoned"}.get(
                    self.reason, "normal")
                game.end().comment = result_text(self.result, self.reason)
        else:
            found = outcome_of(self.board)
            h["Result"] = found[0] if found else self.headers.get("Result", "*")
        return game


def result_text(result, reason):
    """ "White wins by checkmate", "Draw by stalemate", "Black wins on time"."""
    if reason == ABORTED:
        return "Game aborted"
    if result == "1/2-1/2":
        return f"Draw by {reason}" if reason != TIME else "Draw: time out, no mating material"
    winner = "White" if result == "1-0" else "Black"
    if reason == TIME:
        return f"{winner} wins on time"
    return f"{winner} wins by {reason}"


def new_clock(base_s, inc_s):
    return Clock(int(round(base_s * 1000)), int(round(inc_s * 1000)))
