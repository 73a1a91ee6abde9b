"""`black-numba style` (arena/style.py): known answers on hand-made games, written here as
PGN. A queen sacrifice that mates counts; a plain exchange, a recapture a move later, a
promotion race and a blunder (the player's own score falls first) do not. Bad draws, the
decisive share, win lengths, the comments' scores, bad input, and the opponent's errors
against black_numba itself (a UCI subprocess at a small node count)."""
import io
import json
import subprocess

import chess
import chess.pgn
import pytest

from conftest import ENGINE
import black_numba
from black_numba.arena import style
from black_numba.arena.style import StyleError, comment_score, sacrifices
from black_numba.uci_client import MATE_CP

W, B = chess.WHITE, chess.BLACK

# -- the games --------------------------------------------------------------------------

# Legal's mate: White gives its queen (5.Nxe5 Bxd1) and mates two moves later
LEGAL = "1.e4 e5 2.Nf3 Nc6 3.Bc4 d6 4.Nc3 Bg4 5.Nxe5 Bxd1 6.Bxf7+ Ke7 7.Nd5# 1-0"
# Philidor's smothered mate: the queen given for nothing, a knight mates
SMOTHERED = '[FEN "5r1k/6pp/1q5N/3Q4/8/8/5PPP/6K1 w - - 0 1"]\n\n1. Qg8+ Rxg8 2. Nf7# 1-0'
# Morphy's Opera Game: a knight, the exchange twice and the queen, in one combination whose
# own recaptures (13.Rxd7, 15.Bxd7+) restore the balance only for a ply
OPERA = ("1.e4 e5 2.Nf3 d6 3.d4 Bg4 4.dxe5 Bxf3 5.Qxf3 dxe5 6.Bc4 Nf6 7.Qb3 Qe7 8.Nc3 c6 "
         "9.Bg5 b5 10.Nxb5 cxb5 11.Bxb5+ Nbd7 12.O-O-O Rd8 13.Rxd7 Rxd7 14.Rd1 Qe6 "
         "15.Bxd7+ Nxd7 16.Qb8+ Nxb8 17.Rd8# 1-0")
# the Danish gambit: two pawns down from move 3 to the end (Black resigns)
DANISH = ("1. e4 e5 2. d4 exd4 3. c3 dxc3 4. Bc4 cxb2 5. Bxb2 d6 6. Nf3 Nc6 7. O-O Be6 "
          "8. Bxe6 fxe6 9. Qb3 Qd7 10. Nbd2 O-O-O 11. Rfe1 Nf6 1-0")
# a plain exchange (4.Bxc6 dxc6), then more of them
EXCHANGE = ("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6 6. d4 exd4 7. Nxd4 c5 "
            "8. Nb3 Qxd1 9. Rxd1 1/2-1/2")
# Black recaptures a move later, after an in-between check (5.Bxc6 Bb4+ 6.Bd2 dxc6)
INBETWEEN = "1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 4. d3 Bc5 5. Bxc6 Bb4+ 6. Bd2 dxc6 7. O-O O-O 1/2-1/2"
# a promotion race: Black queens first, White four moves later
RACE = ('[FEN "8/5k2/8/8/8/P7/7p/2K5 w - - 0 50"]\n\n50. a4 h1=Q+ 51. Kd2 Kg7 52. a5 Kh7 '
        '53. a6 Kg7 54. a7 Kh7 55. a8=Q Qh6+ 56. Kc2 Qg6+ 57. Kb2 1/2-1/2')
# White hangs its queen (2.Qg4?? Bxg4) and wins all the same (Black resigns); {SCORES}
# takes the comments of White's moves 2 and 3
BLUNDER = ("1. e4 d5 2. Qg4 {%s} Bxg4 3. Nf3 {%s} Bxf3 4. gxf3 dxe4 5. fxe4 e5 6. Bc4 Nf6 "
           "7. Nc3 Nc6 8. d3 Bb4 9. Bd2 O-O 1-0")


def line(pgn):
    game = chess.pgn.read_game(io.StringIO(pgn))
    assert not game.errors, game.errors
    return style.line_of(game)


def pgn_file(tmp_path, games, name="games.pgn"):
    """A PGN file of (white, black, movetext) games (movetext may start with a FEN tag)."""
    text = ""
    for white, black, body in games:
        result = body.split()[-1]
        tags = f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n'
        if body.startswith("[FEN"):
            head, body = body.split("\n\n", 1)
            tags += head + '\n[SetUp "1"]\n'
        text += tags + "\n" + body + "\n\n"
    path = tmp_path / name
    path.write_text(text)
    return path


def raw_deficit_held(pgn, me):
    """The deepest raw material deficit of `me` (against the start, promotions at full
    value) that stood SACRIFICE_PLIES positions in a row: what a test is guarded against."""
    board = line(pgn).board()
    balance = []
    for move in [None] + list(chess.pgn.read_game(io.StringIO(pgn)).mainline_moves()):
        if move is not None:
            board.push(move)
        material = {c: sum(len(board.pieces(pt, c)) * v for pt, v in style.PIECE_VALUES.items())
                    for c in chess.COLORS}
        balance.append(material[me] - material[not me])
    n = style.SACRIFICE_PLIES
    return max(balance[0] - max(balance[a:a + n]) for a in range(len(balance) - n + 1))


# -- sacrifices -------------------------------------------------------------------------

def test_a_queen_sacrifice_that_mates_counts():
    # Legal's mate: 0 before 5.Nxe5, +1 after it, -8 after Bxd1, -7 from 6.Bxf7+ to the mate
    assert sacrifices(line(LEGAL), W) == [7] and sacrifices(line(LEGAL), B) == []
    # the smothered mate: the whole queen, held to the mate (two positions, not six)
    assert sacrifices(line(SMOTHERED), W) == [9]
    # the Opera Game: one episode from 10.Nxb5, 10 pawn units down at the mate
    assert sacrifices(line(OPERA), W) == [10] and sacrifices(line(OPERA), B) == []


def test_a_gambit_held_to_the_end_counts_its_held_depth():
    # -1 after 2...exd4, -2 after 3...dxc3, -3 for one position (4...cxb2), then -2 to the end
    assert sacrifices(line(DANISH), W) == [2] and sacrifices(line(DANISH), B) == []


def test_exchanges_recaptures_and_a_promotion_race_are_not_sacrifices():
    for pgn in (EXCHANGE, INBETWEEN, RACE):
        assert sacrifices(line(pgn), W) == [] and sacrifices(line(pgn), B) == []
    # the in-between check keeps Black a piece down three positions in a row, not six
    assert raw_deficit_held(INBETWEEN, B) == 0
    inbetween = line(INBETWEEN)
    walk = style._Walk(inbetween)
    assert [walk.balance(t, B, 0) for t in range(8, 13)] == [0, -3, -3, -3, 0]
    # the race: by raw material White is a queen down for seven positions (h1=Q to a8=Q);
    # counted as the pawn it was, Black's new queen makes no deficit
    assert raw_deficit_held(RACE, W) == 8


def test_a_blunder_that_was_won_is_not_a_sacrifice_where_the_game_has_scores():
    no_scores = BLUNDER % ("", "")
    assert sacrifices(line(no_scores), W) == [9]               # material only: it counts
    # lichess's [%eval] (White's view) falls at the blunder itself
    assert sacrifices(line(BLUNDER % ("[%eval -8.40]", "[%eval -8.60]")), W) == []
    # an engine's own score (Cute Chess form) falls a move later, when it sees the loss
    assert sacrifices(line(BLUNDER % ("+0.20/12 0.100s", "-8.75/14 0.120s")), W) == []
    # the floor is -50 cp and inclusive
    assert sacrifices(line(BLUNDER % ("-0.50/12 0.1s", "-0.50/12 0.1s")), W) == [9]
    assert sacrifices(line(BLUNDER % ("-0.50/12 0.1s", "-0.51/12 0.1s")), W) == []
    # a sound sacrifice keeps its score and counts
    legal = LEGAL.replace("5.Nxe5", "5.Nxe5 {[%eval 2.10]}").replace(
        "6.Bxf7+", "6.Bxf7+ {[%eval #2]}")
    assert sacrifices(line(legal), W) == [7]


# -- scores in comments -----------------------------------------------------------------

@pytest.mark.parametrize("comment, mover, cp", [
    ("[%eval 0.35]", W, 35), ("[%eval 0.35]", B, -35), ("[%eval -1.5]", W, -150),
    ("[%clk 0:01:00] [%eval -1.5]", B, 150), ("[%eval 0.17,20]", W, 17),
    ("[%eval #-3]", W, -(MATE_CP - 3)), ("[%eval #-3]", B, MATE_CP - 3),
    ("[%eval #2]", W, MATE_CP - 2), ("[%eval #0]", B, MATE_CP),
    ("+0.35/12 0.250s", W, 35), ("+0.35/12 0.250s", B, 35), ("-1.20/9", B, -120),
    ("-M3/20", W, -(MATE_CP - 3)), ("+M1/1 0.010s", B, MATE_CP - 1),
    ("0.00/30 1.5s, the game ended", W, 0),
    ("book", W, None), ("-", W, None), ("a fine move", W, None), ("", B, None),
    ("[%eval nan]", W, None), ("[%eval inf]", W, None), ("[%eval #x]", W, None)])
def test_comment_scores_in_both_forms(comment, mover, cp):
    assert comment_score(comment, mover) == cp


def test_a_match_records_scores_read_as_the_pgn_would():
    got = style.match_line("a", "b", "1-0", (chess.STARTING_FEN, ["e2e4"]),
                           ["e7e5", "g1f3"], ["-0.20/10 0.1s", "+0.40/11 0.1s"])
    assert got.scores == [None, -20, 40] and len(got.moves) == 3
    assert (got.white, got.black, got.result) == ("a", "b", "1-0")


# -- the report -------------------------------------------------------------------------

POOL = [("Hero", "Opp", LEGAL),                    # won, 7 moves, a 7-pawn sacrifice
        ("Opp", "Hero", "1. f3 e5 2. g4 Qh4# 0-1"),  # won, 2 moves
        ("Hero", "Opp", '[FEN "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 80"]\n\n80. Rd8# 1-0'),
        ("Hero", "Opp", DANISH),                   # won, 11 moves, a 2-pawn sacrifice
        ("Opp", "Hero", "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0"),     # lost, 4 moves
        # drawn by repetition with every piece on the board: before the endgame
        ("Hero", "Opp", "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2"),
        # drawn a pawn up (Black), in the endgame
        ("Opp", "Hero", '[FEN "8/8/4k3/4p3/8/8/8/4K3 w - - 0 60"]\n\n'
                        '60. Ke2 Kd5 61. Kd3 1/2-1/2'),
        # drawn level in a rook ending: not a bad draw
        ("Hero", "Opp", '[FEN "8/8/4k3/8/8/4K3/8/R6r w - - 0 70"]\n\n70. Kd3 Kd5 1/2-1/2'),
        # two others' game: in the pool of win lengths only
        ("X", "Y", '[FEN "6k1/5ppp/8/8/8/8/5PPP/2R3K1 w - - 0 100"]\n\n100. Rc8# 1-0')]


def test_the_report_on_known_games(tmp_path):
    path = pgn_file(tmp_path, POOL)
    r = black_numba.style_report(str(path), "Hero")
    assert (r["games"], r["wins"], r["draws"], r["losses"]) == (8, 4, 3, 1)
    assert r["score"] == pytest.approx(5.5 / 8) and r["decisive_share"] == pytest.approx(5 / 8)
    w = r["wins_length"]
    assert w["median_moves"] == 9                              # wins of 2, 7, 11, 80 moves
    assert w["short_share"] == pytest.approx(3 / 4)            # at most 60 moves
    # every decisive game is in the pool: 7, 2, 80, 11, 4 and the others' 100
    assert w["pool_mean_moves"] == pytest.approx(204 / 6)
    assert w["below_pool_mean_share"] == pytest.approx(3 / 4)
    s = r["sacrifices"]
    assert s["in_wins"] == 2 and s["per_won_game"] == pytest.approx(0.5)
    assert s["wins_with_at_least"] == {"1": 0.5, "2": 0.5, "3": 0.25, "5": 0.25}
    b = r["bad_draws"]
    assert (b["count"], b["before_endgame"], b["pawn_up"]) == (2, 1, 1)
    assert b["share_of_draws"] == pytest.approx(2 / 3)
    assert r["errors"] is None
    # the opponent's view of the same games: three sacrifice-free draws, one win
    opp = style.style_report(path, "Opp")
    assert (opp["wins"], opp["draws"], opp["losses"]) == (1, 3, 4)
    assert opp["bad_draws"]["count"] == 1 and opp["bad_draws"]["before_endgame"] == 1
    assert opp["sacrifices"]["per_won_game"] == 0
    # python-chess games give the same report as the file
    with open(path) as f:
        games = list(iter(lambda: chess.pgn.read_game(f), None))
    assert style.style_report(games, "Hero") == r


def test_the_command_prints_and_writes_the_report(tmp_path):
    path = pgn_file(tmp_path, POOL)
    out = tmp_path / "r.json"
    r = subprocess.run([ENGINE, "style", str(path), "--player", "Hero", "--json", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "Style of Hero: 8 games, +4 =3 -1 (68.8%), decisive 62.5%",
        "  wins: median 9 moves, 75.0% in at most 60 moves, 75.0% shorter than the pool's "
        "mean win (34.0 moves)",
        "  sacrifices (material held 6 plies, own score >= -0.50): 0.50 per won game; wins "
        "with one of at least 1: 50.0%, 2: 50.0%, 3: 25.0%, 5: 25.0%",
        "  bad draws: 2 of 3 draws (66.7%): 1 before the endgame, 1 a pawn or more up"]
    assert json.loads(out.read_text())["sacrifices"]["in_wins"] == 2


# -- bad input --------------------------------------------------------------------------

def test_bad_input_is_a_style_error(tmp_path):
    good = pgn_file(tmp_path, POOL[:1])
    with pytest.raises(StyleError, match=r"missing\.pgn: No such file"):
        style.style_report(str(tmp_path / "missing.pgn"), "Hero")
    binary = tmp_path / "engine.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(StyleError, match=r"engine\.bin: not a text \(UTF-8\) PGN file"):
        style.style_report(str(binary), "Hero")
    notes = tmp_path / "notes.txt"
    notes.write_text("this is not a chess game\n")
    with pytest.raises(StyleError, match=r"notes\.txt: no PGN games"):
        style.style_report([str(good), str(notes)], "Hero")
    illegal = tmp_path / "illegal.pgn"
    illegal.write_text('[White "Hero"]\n[Black "Opp"]\n[Result "1-0"]\n\n1. e4 e5 2. Ke3 1-0\n')
    with pytest.raises(StyleError, match=r"illegal\.pgn: game 1 \(Hero - Opp\): .*Ke3"):
        style.style_report(str(illegal), "Hero")
    with pytest.raises(StyleError, match=r"no finished games of 'Nobody' \(players: Hero, "
                                         r"Opp\)"):
        style.style_report(str(good), "Nobody")
    with pytest.raises(StyleError, match="no finished games"):
        style.style_report([], "Hero")


@pytest.mark.parametrize("args, words", [
    (["missing.pgn", "--player", "Hero"], "missing.pgn: No such file or directory"),
    (["notes.txt", "--player", "Hero"], "notes.txt: no PGN games"),
    (["games.pgn", "--player", "Nobody"], "no finished games of 'Nobody'"),
    (["games.pgn", "--player", "Hero", "--nodes", "100"], "--nodes and --option need --engine"),
    (["games.pgn", "--player", "Hero", "--engine", "/nonexistent/engine"], "cannot start"),
    (["games.pgn", "--player", "Hero", "--engine", ENGINE, "--nodes", "0"],
     "--nodes must be at least 1")])
def test_the_command_says_what_is_wrong_in_one_line(tmp_path, args, words):
    pgn_file(tmp_path, POOL[:2])
    (tmp_path / "notes.txt").write_text("this is not a chess game\n")
    r = subprocess.run([ENGINE, "style", *args], capture_output=True, text=True,
                       timeout=120, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("style: "), r.stderr
    assert words in r.stderr


# -- errors against an engine -----------------------------------------------------------

@pytest.mark.slow
def test_the_opponents_errors_against_black_numba(tmp_path):
    """The opponent hangs its queen (2.Qg4?? Bxg4) and walks into the fool's mate (2.g4??):
    two errors of at least 300 cp in its four moves, 20 per 40 moves."""
    path = pgn_file(tmp_path, [("Opp", "Hero", "1. e4 d5 2. Qg4 Bxg4 0-1"),
                               ("Opp", "Hero", "1. f3 e5 2. g4 Qh4# 0-1")])
    out = tmp_path / "r.json"
    r = subprocess.run([ENGINE, "style", str(path), "--player", "Hero", "--engine", ENGINE,
                        "--nodes", "2000", "--option", "Threads=1", "--json", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    e = json.loads(out.read_text())["errors"]
    assert e["nodes"] == 2000 and e["engine"].startswith("black_numba")
    assert e["opponent"]["moves"] == 4 and e["player"]["moves"] == 4
    assert e["opponent"]["300"] == 2 and e["opponent"]["per_40"]["300"] == 20.0
    assert e["opponent"]["100"] >= e["opponent"]["200"] >= 2
    assert e["player"]["300"] == 0                   # it took the queen and mated
    assert "opponent's errors per 40 moves" in r.stdout and ">= 300 cp 20.00" in r.stdout
    bad = subprocess.run([ENGINE, "style", str(path), "--player", "Hero", "--engine", ENGINE,
                          "--option", "NoSuchOption=1"], capture_output=True, text=True,
                         timeout=600)
    assert bad.returncode == 2 and "has no option 'NoSuchOption'" in bad.stderr
    assert bad.stderr.count("\n") == 1
