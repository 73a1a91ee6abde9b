"""Strict PGN reading: a typo is an error, never another game.

python-chess's `chess.pgn.read_game` is lenient: its tokenizer skips what it cannot read and
records nothing for it, so `2. nf3` loads 2.f3 and `2. Qxx9 Nc6` drops the rest of the game.
`read_game` here walks the movetext as python-chess does (the same tokens, the same calls to
its GameBuilder, so valid PGN reads to the same game) and also checks the text between the
tokens: every piece of the movetext is a move, a move number, a comment, a variation, a NAG
or a result, and every move is legal and unambiguous where it stands. Otherwise it raises
PgnError naming the move number, the token and why ("2. nf3: piece letters are capitals"),
and nothing is read. `lenient=True` reads as python-chess does (errors in game.errors).
"""
import re

import chess
import chess.pgn

# python-chess's own patterns: the tokens its reader knows
TAG_REGEX = chess.pgn.TAG_REGEX
MOVETEXT_REGEX = chess.pgn.MOVETEXT_REGEX
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
NAG_TOKENS = {"?": chess.pgn.NAG_MISTAKE, "??": chess.pgn.NAG_BLUNDER,
              "!": chess.pgn.NAG_GOOD_MOVE, "!!": chess.pgn.NAG_BRILLIANT_MOVE,
              "!?": chess.pgn.NAG_SPECULATIVE_MOVE, "?!": chess.pgn.NAG_DUBIOUS_MOVE}
# what may stand between tokens: move numbers ("12." "12..."), lone dots, the check
# and mate signs a move carries, and the old en-passant suffix
BETWEEN_WORD = re.compile(r"\d+\.+|\.+|e\.p\.")
SIGNS = re.compile(r"[+#]{1,2}")
MOVE_FOLLOWERS = "+#!?"       # what may stand right after a move, in its word
LOWER_PIECE = re.compile(r"[nrqk][a-h]?[1-8]?[-x]?[a-h][1-8]")


class PgnError(ValueError):
    """A PGN that cannot be read strictly: `number` (e.g. "2." or "6..."; "header" for the
    tag section), the `token` and the reason, in one message."""

    def __init__(self, number, token, message):
        super().__init__(message)
        self.number, self.token = number, token
        self.not_pgn = False        # set where nothing before the fault was PGN
        self.headers = {}           # the game's tags read before the fault


class _StrictBuilder(chess.pgn.GameBuilder):
    """python-chess's GameBuilder that raises what it would record."""

    def handle_error(self, error):
        raise error


class _QuietBuilder(chess.pgn.GameBuilder):
    """python-chess's GameBuilder with its errors kept in game.errors, none logged."""

    def handle_error(self, error):
        self.game.errors.append(error)


def move_number(board):
    return f"{board.fullmove_number}." if board.turn == chess.WHITE else \
        f"{board.fullmove_number}..."


def _continues(line, i, followers):
    """Does the word at line[i] go on past a token (not whitespace, a bracket, a NAG or
    comment, nor one of `followers`)?"""
    return i < len(line) and not line[i].isspace() and line[i] not in "(){};$" + followers


def _word_at(line, i):
    """The whitespace-delimited word of `line` around index i (stopping at brackets)."""
    stops = " \t\r\n(){};"
    a = i
    while a > 0 and line[a - 1] not in stops:
        a -= 1
    b = i
    while b < len(line) and line[b] not in stops:
        b += 1
    return line[a:b]


def _check_between(text, line, offset, board, after_move, phase):
    """Raise PgnError unless `text` (what lies between two tokens, at `offset` of `line`)
    is only whitespace, move numbers, dots and the signs of the move before it."""
    at = offset
    words = text.split()
    glued = bool(text) and not text[-1].isspace() and offset + len(text) < len(line)
    for k, word in enumerate(words):
        at = line.index(word, at)
        last = k == len(words) - 1
        sign = k == 0 and after_move and not text[0].isspace() and SIGNS.fullmatch(word)
        if (sign and not (last and glued)) or \
                (BETWEEN_WORD.fullmatch(word) and not (last and glued and "." not in word)):
            at += len(word)
            phase[1] = True
            continue
        raise _bad_word(board, _word_at(line, at))


def _normal(text):
    """A move's text up to check and mate signs, capture x, promotion = and castles with
    zeros, its promotion letter a capital."""
    text = re.sub(r"[+#x=]", "", text).replace("0", "O")
    return text[:-1] + text[-1].upper() if text[-1:] in "nbrq" and len(text) > 2 else text


def _form_ok(token, board, move):
    """Is the token the move's SAN, up to the signs, x, = and 0-0? python-chess also reads
    long algebraic (B-f4, e2e4), needless or wrong disambiguation (Khh5) and a pawn's file
    on a push ("bb5", meant Bb5, read as b4-b5): a typo must not become a move."""
    return _normal(token) == _normal(board.san(move))


def _bad_word(board, word):
    """PgnError for a word of the movetext that is none of its tokens."""
    number = move_number(board)
    if not word.isascii():
        return PgnError(number, word, f"{number} {word} contains a letter that is not ASCII")
    if LOWER_PIECE.match(word):
        return PgnError(number, word, f"{number} {word}: piece letters are capitals")
    return PgnError(number, word, f"{number} {word} is not a move")


def _san_error(board, token, error):
    number = move_number(board)
    if isinstance(error, chess.AmbiguousMoveError):
        why = "is ambiguous in that position"
    elif isinstance(error, chess.IllegalMoveError):
        why = "is not a legal move in that position"
    else:
        why = "is not a move"
    return PgnError(number, token, f"{number} {token} {why}")


def read_game(handle, *, lenient=False):
    """The next game of a PGN stream as python-chess's Game, None at the stream's end.
    Strict (the default): PgnError at the first token that is not a move, move number,
    comment, variation, NAG or result, or a move not legal and unambiguous in its position.
    lenient: python-chess's reading (what it cannot read is skipped; errors in game.errors)."""
    if lenient:
        return chess.pgn.read_game(handle, Visitor=_QuietBuilder)
    phase = ["headers", False]          # where it is; whether it has read a tag or token
    try:
        return _read_strict(handle, phase)
    except PgnError as e:
        # nothing of PGN before the fault: text that is no PGN at all, not a PGN's typo
        e.not_pgn = not phase[1]
        e.headers = dict(phase[2]) if len(phase) > 2 else {}
        _skip_rest(handle, phase[0])      # the next read starts at the next game
        raise


def _skip_rest(handle, phase):
    """Read past the rest of a game that failed in `phase` ("headers" or "movetext"): up to
    the blank line that ends its movetext."""
    line = handle.readline()
    if phase == "headers":
        while line and not line.isspace():          # the rest of the tags
            line = handle.readline()
        while line and line.isspace():
            line = handle.readline()
        if line.startswith("["):                    # no movetext: the next game's tags
            return                                   # (lost: a stream cannot step back)
    while line and not line.isspace():
        line = handle.readline()


def _read_strict(handle, phase):
    visitor = _StrictBuilder()
    line = handle.readline()
    found_game = False
    empty_lines = 0
    while line:                                     # the tag section (python-chess's loop)
        if line.startswith("%") or line.startswith(";"):
            line = handle.readline()
            continue
        if empty_lines < 1 and line.isspace():
            empty_lines += 1
            line = handle.readline()
            continue
        if not found_game:
            found_game = True
            visitor.begin_game()
            visitor.begin_headers()
            phase.append(visitor.game.headers)      # the tags, for a fault's report
        if not line.startswith("["):
            break
        empty_lines = 0
        tag = TAG_REGEX.match(line)
        if not tag:
            text = line.strip()
            raise PgnError("header", text, f"header {text} is not [Name \"value\"]")
        visitor.visit_header(tag.group(1), tag.group(2))
        phase[1] = True
        line = handle.readline()
    if not found_game:
        return None
    visitor.end_headers()
    headers = visitor.game.headers
    try:
        VariantBoard = headers.variant()
        fen = headers.get("FEN", VariantBoard.starting_fen)
        board = VariantBoard(fen, chess960=headers.is_chess960())
    except ValueError as e:
        raise PgnError("header", headers.get("FEN", headers.get("Variant", "")),
                       f"header: {e}") from None
    board.chess960 = board.chess960 or board.has_chess960_castling_rights()
    phase[0] = "movetext"
    stack = [board]
    visitor.visit_board(board)
    result = None
    fresh_line = True
    while line:
        if fresh_line:
            if line.startswith("%") or line.startswith(";"):
                line = handle.readline()
                continue
            if line.isspace():
                break
            if line.startswith("["):
                number = move_number(stack[-1])
                raise PgnError(number, line.strip(), f"{number} a header line inside the "
                               f"movetext: {line.strip()} (games are separated by a blank "
                               f"line)")
        fresh_line = True
        pos = 0
        after_move = False
        for match in MOVETEXT_REGEX.finditer(line):
            token = match.group(0)
            _check_between(line[pos:match.start()], line, pos, stack[-1], after_move, phase)
            phase[1] = True
            pos = match.end()
            after_move = False
            if token.startswith("{"):
                start = 2 if token.startswith("{ ") else 1
                line = token[start:]
                comment_lines = []
                while line and "}" not in line:
                    comment_lines.append(line)
                    line = handle.readline()
                if not line:
                    number = move_number(stack[-1])
                    raise PgnError(number, "{", f"{number} a comment {{ never closed")
                close = line.find("}")
                end = close - 1 if close > 0 and line[close - 1] == " " else close
                comment_lines.append(line[:end])
                line = line[close + 1:]
                visitor.visit_comment("".join(comment_lines))
                fresh_line = False
                break
            if result is not None:
                number = move_number(stack[-1])
                raise PgnError(number, token, f"{number} {token} after the result {result}")
            if token == "(":
                if not stack[-1].move_stack:
                    number = move_number(stack[-1])
                    raise PgnError(number, token, f"{number} a variation ( before any move")
                visitor.begin_variation()
                board = stack[-1].copy()
                board.pop()
                stack.append(board)
            elif token == ")":
                if len(stack) == 1:
                    number = move_number(stack[-1])
                    raise PgnError(number, token, f"{number} ) closes no variation")
                visitor.end_variation()
                stack.pop()
            elif token.startswith(";"):
                pos = len(line)
                break
            elif token.startswith("$"):
                visitor.visit_nag(int(token[1:]))
            elif token in NAG_TOKENS:
                if _continues(line, match.end(), ""):        # "!c6": a typo, not a NAG
                    raise _bad_word(stack[-1], _word_at(line, match.start()))
                visitor.visit_nag(NAG_TOKENS[token])
            elif token in RESULTS:
                if len(stack) > 1:
                    number = move_number(stack[-1])
                    raise PgnError(number, token, f"{number} the result {token} inside a "
                                   f"variation")
                visitor.visit_result(token)
                result = token
            else:
                word = _word_at(line, match.start())
                try:
                    move = visitor.parse_san(stack[-1], token)
                except ValueError as e:
                    raise _san_error(stack[-1], word, e) from None
                if not _form_ok(token, stack[-1], move) or \
                        _continues(line, match.end(), MOVE_FOLLOWERS):
                    raise _bad_word(stack[-1], word)
                visitor.visit_move(stack[-1], move)
                stack[-1].push(move)
                visitor.visit_board(stack[-1])
                after_move = True
        else:
            _check_between(line[pos:], line, pos, stack[-1], after_move, phase)
        if fresh_line:
            line = handle.readline()
    if len(stack) > 1:
        number = move_number(stack[-1])
        raise PgnError(number, "(", f"{number} a variation ( never closed")
    visitor.end_game()
    return visitor.result()


def read_games(handle, *, lenient=False):
    """Every game of a PGN stream, read as read_game reads one."""
    while True:
        game = read_game(handle, lenient=lenient)
        if game is None:
            return
        yield game
