"""The browser board in a real browser: Debian's Chromium driven by Playwright for Python
(its executable given, never `playwright install`), against the real `black-numba gui` server
and engine. Every request a page makes is recorded and must go to the loopback. Where
Chromium or Playwright is missing the tests skip, except under CI=true, where they fail."""
import io
import os
import shutil
import time
import urllib.parse

import chess
import chess.pgn
import pytest

from gui_client import CHROMIUM_ARGS, ELO_MIN, ELO_STEP, GuiServer, running_server

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
CHROMIUM_ENV = "BLACK_NUMBA_CHROMIUM"       # a browser executable to use instead
VIEWPORT = {"width": 1280, "height": 860}
SCREEN = {"width": 1280, "height": 800}      # a laptop's: nothing may be pushed off it
PHONE = {"width": 390, "height": 844}        # a phone's (or a narrow window's)
READABLE = 4.5                # the contrast of text on its background, at the least (WCAG AA)
LOST_S = 3.0                  # a stopped server must be said within this
ENGINE_MOVE_S = 10.0          # an engine move at 0.2 s a move must appear within this
LINES_S = 5.0                 # analysis lines must appear within this
ANNOTATE_S = 90.0             # a six-ply annotation at 20,000 nodes a position

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"           # Rd8#
PROMOTION = "7k/P7/8/8/8/8/8/K7 w - - 0 1"                      # a8=N or a8=Q
MATE_IN_TWO = "k7/8/2K5/8/8/8/8/1Q6 w - - 0 1"                  # queen and king against king
HUNG_QUEEN = "1. e4 e5 2. Qh5 Nc6 3. Qxe5+ Nxe5"                  # 3. Qxe5+?? Nxe5


def boxes_overlap(a, b):
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] and \
        a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


# the contrast of an element's text colour on the background it is drawn on (the first
# opaque one among it and its ancestors, translucent ones laid over it)
CONTRAST = """(el) => {
    const rgba = (c) => { const p = c.match(/[\\d.]+/g).map(Number);
                          return p.length > 3 ? p : p.concat([1]) }
    const over = (top, under) => top.slice(0, 3).map((v, i) => v * top[3] + under[i] * (1 - top[3]))
    const layers = []
    for (let e = el; e; e = e.parentElement) {
        const c = rgba(getComputedStyle(e).backgroundColor)
        if (c[3] > 0) layers.push(c)
        if (c[3] >= 1) break
    }
    let bg = [255, 255, 255]
    for (const c of layers.reverse()) bg = over(c, bg)
    const fg = over(rgba(getComputedStyle(el).color), bg)
    const lum = (c) => c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 :
                                      Math.pow((v + 0.055) / 1.055, 2.4) })
                        .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0)
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x)
    return (a + 0.05) / (b + 0.05)
}"""


def chromium_path():
    found = os.environ.get(CHROMIUM_ENV)
    if found:
        return found
    for name in CHROMIUM_CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def unavailable(why):
    """Skip, or under CI fail: the browser tests must run there."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"browser tests cannot run in CI: {why}")
    pytest.skip(why)


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed (python3 bin/bootstrap test installs it)")
    path = chromium_path()
    if path is None:
        unavailable("no Chromium (apt-get install chromium)")
    with sync_playwright() as pw:
        try:
            b = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        except Exception as e:          # noqa: BLE001 - any launch failure is the same news
            unavailable(f"Chromium at {path} does not start: {e}")
        yield b
        b.close()


@pytest.fixture(scope="module")
def server():
    yield from running_server()


class Page:
    """One browser tab on the board, its requests recorded."""

    def __init__(self, browser, server, viewport=VIEWPORT):
        self.context = browser.new_context(viewport=viewport, accept_downloads=True)
        self.page = self.context.new_page()
        self.requests = []
        self.errors = []
        self.console = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.console.append(m.text))
        self.page.goto(server.url)
        self.page.locator("body[data-ready='1']").wait_for(timeout=15_000)

    def __getattr__(self, name):
        return getattr(self.page, name)

    def text(self, selector):
        return self.page.locator(selector).inner_text()

    def moves(self):
        return self.page.locator("#moves .move").all_inner_texts()

    def wait_moves(self, n, timeout_s=ENGINE_MOVE_S):
        self.page.locator("#moves .move").nth(n - 1).wait_for(timeout=timeout_s * 1000)
        return self.moves()

    def wait_text(self, selector, text, timeout_s=10):
        self.page.locator(selector, has_text=text).wait_for(timeout=timeout_s * 1000)

    def square(self, name):
        self.page.locator(f'#board rect[data-square="{name}"]').click()

    def move(self, origin, target):
        """Click a piece, then its square (once the board has drawn the piece there: a click
        while a move is still being animated is not one a person makes)."""
        self.page.locator(f'#board g[data-square="{origin}"][data-piece]').wait_for(
            timeout=5000)
        self.square(origin)
        self.square(target)

    def new_game(self, color="white", fen=None, tc="", movetime_s=0.2, elo=None):
        """A game from the play form; elo "lowest": the slider at its bottom, a number: that
        level (full strength otherwise)."""
        if not self.page.locator("#panel-play").is_visible():
            self.page.click("#tab-play")
        self.page.select_option("#color", color)
        self.page.select_option("#tc", tc)
        if not tc:
            self.page.fill("#movetime", str(movetime_s))
        if elo is not None:
            self.page.locator("#elo").focus()
            self.page.keyboard.press("Home")
            for _ in range(0 if elo == "lowest" else (elo - ELO_MIN) // ELO_STEP):
                self.page.keyboard.press("ArrowRight")
        self.page.select_option("#start", "fen" if fen else "standard")
        if fen:
            self.page.fill("#start-fen", fen)
        self.page.click("#btn-new")
        if fen and chess.Board(fen).is_valid():
            self.page.locator(f'body[data-fen="{chess.Board(fen).fen()}"]').wait_for(
                timeout=5000)

    def load(self, text):
        if not self.page.locator("#panel-analyse").is_visible():
            self.page.click("#tab-analyse")
        self.page.fill("#load-text", text)
        self.page.click("#btn-load")
        self.page.locator("#load-message").wait_for(state="attached")

    def close(self):
        self.context.close()
        foreign = [u for u in self.requests
                   if urllib.parse.urlsplit(u).hostname not in ("127.0.0.1", "localhost")
                   and not u.startswith(("blob:", "data:"))]
        assert not foreign, f"requests off the loopback: {foreign}"
        assert not self.errors, f"errors in the page: {self.errors}"


@pytest.fixture
def page(browser, server):
    p = Page(browser, server)
    yield p
    p.close()


def mating_move(board, plies):
    """A move that mates within plies (1 or 3) whatever the reply, or None."""
    for m in board.legal_moves:
        board.push(m)
        try:
            if board.is_checkmate():
                return m
            if plies >= 3 and not board.is_game_over() and all(
                    _mates_after(board, reply) for reply in list(board.legal_moves)):
                return m
        finally:
            board.pop()
    return None


def _mates_after(board, reply):
    board.push(reply)
    try:
        return mating_move(board, 1) is not None
    finally:
        board.pop()


# -- play ------------------------------------------------------------------------------------
def test_mate_in_one_by_clicks_ends_the_game_with_its_result(page):
    page.new_game(fen=MATE_IN_ONE)
    page.wait_text("#status", "White to move")
    page.move("d1", "d8")
    page.wait_text("#status", "White wins by checkmate")
    assert page.moves() == ["Rd8#"]
    assert page.text("#moves .result") == "1-0"
    assert page.locator("#btn-resign").is_disabled()


def test_the_engine_answers_within_its_time_and_the_page_shows_the_legal_dots(page):
    page.new_game(color="white", movetime_s=0.2)
    page.locator('#board rect[data-square="g1"]').click()
    dots = page.locator("#board .marker-dot")
    dots.first.wait_for(timeout=5000)
    assert dots.count() == 2                    # Nf3 and Nh3
    page.square("f3")
    t0 = time.monotonic()
    moves = page.wait_moves(2)
    assert moves[0] == "Nf3" and time.monotonic() - t0 < ENGINE_MOVE_S
    b = chess.Board()
    b.push_san(moves[0])
    b.parse_san(moves[1])
    page.wait_text("#status", "White to move")


def test_promotion_through_the_dialog(page):
    page.new_game(fen=PROMOTION)
    page.move("a7", "a8")
    knight = page.locator('.promotion-dialog-button-group[data-piece="wn"]')
    knight.wait_for(timeout=5000)
    knight.click()
    assert page.wait_moves(1)[0] == "a8=N"


def test_takeback_and_the_engine_replies_to_the_new_position(page):
    page.new_game(color="white", movetime_s=0.2)
    page.move("e2", "e4")
    page.wait_moves(2)
    page.click("#btn-takeback")
    page.locator("#moves .move").first.wait_for(state="detached", timeout=5000)
    page.wait_text("#status", "White to move")
    page.move("d2", "d4")
    moves = page.wait_moves(2)
    assert moves[0] == "d4"
    b = chess.Board()
    b.push_san("d4")
    b.parse_san(moves[1])                        # a legal answer to 1. d4, not to 1. e4


def test_a_whole_game_with_clocks_then_analysis_and_its_pgn(page):
    """A game at a chosen level and a 1+0 clock to its end, a takeback on the way, then the
    finished game analysed and its PGN downloaded."""
    page.new_game(color="white", fen=MATE_IN_TWO, tc="60+0", elo="lowest")
    page.locator("#clock-bottom .time").wait_for()
    assert page.text("#clock-bottom .time") in ("1:00", "0:59")
    board = chess.Board(MATE_IN_TWO)
    first = mating_move(board, 3)
    page.move(chess.square_name(first.from_square), chess.square_name(first.to_square))
    page.wait_moves(2)
    page.click("#btn-takeback")                  # and the same move again
    page.locator("#moves .move").first.wait_for(state="detached", timeout=5000)
    page.move(chess.square_name(first.from_square), chess.square_name(first.to_square))
    moves = page.wait_moves(2)
    board.push_san(moves[0])
    board.push_san(moves[1])
    mate = mating_move(board, 1)
    page.move(chess.square_name(mate.from_square), chess.square_name(mate.to_square))
    page.wait_text("#status", "White wins by checkmate")
    assert page.text("#clock-bottom .time") != "1:00"       # the person's clock ran
    assert page.locator("#clock-top.running, #clock-bottom.running").count() == 0

    page.click("#btn-analyse-game")
    page.locator("#panel-analyse").wait_for(state="visible")
    assert page.moves() == [moves[0], moves[1], board.san(mate)]
    page.keyboard.press("ArrowLeft")
    page.check("#analysis-on")
    page.locator("#lines .line").first.wait_for(timeout=LINES_S * 1000)
    assert "#" in page.text("#lines .line .score")          # mate in one is found

    with page.expect_download() as download:
        page.click("#btn-pgn")
    text = open(download.value.path(), encoding="utf-8").read()
    game = chess.pgn.read_game(io.StringIO(text))
    assert game.headers["White"] == "Player"
    assert game.headers["Black"].endswith("(UCI_Elo 1350)")
    assert game.headers["TimeControl"] == "60+0" and game.headers["Result"] == "1-0"
    assert [m.uci() for m in game.mainline_moves()][-1] == mate.uci()


# -- analysis --------------------------------------------------------------------------------
def test_analysis_lines_appear_update_and_follow_the_position(page):
    page.load("1. e4 e5 2. Nf3 Nc6")
    page.wait_text("#moves", "Nc6")
    page.select_option("#multipv", "3")
    page.check("#analysis-on")
    lines = page.locator("#lines .line")
    lines.nth(2).wait_for(timeout=LINES_S * 1000)
    first = page.text("#lines .line:first-child .info")
    page.locator("#lines .line:first-child .info").filter(
        has_not_text=first).wait_for(timeout=LINES_S * 1000)       # the lines update
    assert page.locator("#evalbar").is_visible()
    assert page.locator("#board .arrow, #board [class*=arrow]").count() >= 1
    white_move = page.text("#lines .line:first-child .pv").split()[0]
    page.keyboard.press("ArrowLeft")                                # the position changes
    b = chess.Board()
    for san in ("e4", "e5", "Nf3"):
        b.push_san(san)
    page.locator(f'body[data-fen="{b.fen()}"]').wait_for(timeout=5000)
    page.locator("#lines .line").first.wait_for(timeout=LINES_S * 1000)
    black_move = page.text("#lines .line:first-child .pv").split()[0]
    b.parse_san(black_move)                     # a line of the position now shown
    assert white_move != black_move
    page.uncheck("#analysis-on")
    page.locator("#lines .line").first.wait_for(state="detached", timeout=5000)
    page.wait_text("#engine-status", "ready")


def test_the_analysis_box_keeps_a_tick_made_before_a_load_is_answered(page):
    """A box ticked while the page waits on a load stays ticked: the load's answer (an older
    state) must not flip it back (CI caught it doing so, 1 run in about 20)."""
    def slow(route):
        time.sleep(0.5)               # the analysis request answered late, every time
        route.continue_()
    page.load("1. e4")
    page.wait_text("#moves", "e4")
    page.route("**/api/analysis", slow)
    seen = page.evaluate("""async () => {
        document.getElementById('load-text').value = '1. d4 d5'
        document.getElementById('btn-load').click()
        const box = document.getElementById('analysis-on')
        box.click()
        const seen = []
        for (const end = performance.now() + 1500; performance.now() < end;) {
            seen.push(box.checked)
            await new Promise((r) => setTimeout(r, 5))
        }
        return seen }""")
    assert len(seen) > 50 and all(seen)
    assert page.moves() == ["d4", "d5"]
    page.locator("#lines .line").first.wait_for(timeout=LINES_S * 1000)
    page.uncheck("#analysis-on")
    page.locator("#lines .line").first.wait_for(state="detached", timeout=5000)


def test_a_click_on_a_line_plays_its_first_move_and_a_shift_click_the_whole_line(page):
    """As lichess does (issue 75 item 7): a click is one move, not sixteen."""
    # the line read and clicked in one step: lines are redrawn as the search deepens
    click = ("(el, shift) => { const pv = el.querySelector('.pv').textContent; "
             "el.dispatchEvent(new MouseEvent('click', {bubbles: true, shiftKey: shift})); "
             "return pv }")
    long_line = ("() => { const pv = document.querySelector('#lines .line .pv'); "
                 "return pv !== null && pv.textContent.split(' ').length >= 4 }")
    page.load("1. d4 d5")
    page.check("#analysis-on")
    page.wait_for_function(long_line, timeout=LINES_S * 1000)
    line = page.locator("#lines .line").first
    pv = line.evaluate(click, False).split()
    assert len(pv) >= 4
    page.wait_moves(3)
    page.wait_for_timeout(500)
    assert page.moves() == ["d4", "d5", pv[0]]
    page.wait_for_function(long_line, timeout=LINES_S * 1000)
    pv = page.locator("#lines .line").first.evaluate(click, True).split()
    assert len(pv) >= 4
    page.wait_moves(3 + len(pv))
    assert page.moves()[3:] == pv


def test_bad_fens_and_pgns_are_said_in_a_persons_words_and_the_board_stays(page):
    """The FEN field that is wrong, the move number and move that failed; never a library's
    words nor a FEN thrown back (issue 75 item 11)."""
    page.load("1. e4 e5")
    page.wait_text("#moves", "e5")
    for text, says in [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
             "'X' on rank 1 is not a piece"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
             "the side to move (field 2) is 'x': it must be w or b"),
            ("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
             "give 9 ranks: a board has 8"),
            ("1. e4 e5 2. Ke3", "2. Ke3 is not a legal move in that position")]:
        page.fill("#load-text", text)
        page.click("#btn-load")
        page.wait_text("#load-message", says)
        message = page.text("#load-message")
        assert "san" not in message and "rnbqkbnr" not in message and "part of fen" not in message
        assert page.moves() == ["e4", "e5"]
    page.new_game(fen="8/8/8/8/8/8/8/8 w - - 0 1")
    page.wait_text("#play-message", "illegal position")


def test_start_from_a_fen_with_the_box_empty_is_refused(page):
    """Not the standard position without a word (issue 75 item 10)."""
    page.click("#tab-play")
    page.select_option("#start", "fen")
    page.fill("#start-fen", "")
    before = page.locator("body").get_attribute("data-fen")
    page.click("#btn-new")
    page.wait_text("#play-message", "The FEN box is empty")
    assert page.locator("body").get_attribute("data-fen") == before


def test_annotation_marks_a_hung_queen(page):
    page.load(HUNG_QUEEN)
    page.wait_text("#moves", "Nxe5")
    page.click("#btn-annotate")
    page.locator("#moves .mark.blunder").wait_for(timeout=ANNOTATE_S * 1000)
    marked = page.locator("#moves .move", has=page.locator(".mark.blunder"))
    assert marked.first.inner_text().startswith("Qxe5+")
    assert page.locator("#eval-graph").is_visible()
    summary = page.text("#annotate-summary")
    assert "1 blunder" in summary and "1 blunders" not in summary      # issue 75 item 12


# -- keys and safety -----------------------------------------------------------------------------
def test_keys_navigate_and_flip(page):
    page.load("1. e4 e5 2. Nf3")
    page.wait_text("#moves", "Nf3")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("Home")
    page.locator(f'body[data-fen="{chess.STARTING_FEN}"]').wait_for(timeout=5000)
    assert page.locator("#moves .current").count() == 0
    page.keyboard.press("ArrowRight")
    page.wait_text("#moves .current", "e4")
    page.keyboard.press("End")
    page.wait_text("#moves .current", "Nf3")
    page.keyboard.press("ArrowLeft")
    page.wait_text("#moves .current", "e5")
    files = page.locator("#board text").all_text_contents()
    assert "a" in files and files.index("a") < files.index("h")
    page.keyboard.press("f")
    page.wait_for_timeout(500)
    files = page.locator("#board text").all_text_contents()
    assert files.index("a") > files.index("h")                       # the board turned


def test_quick_key_presses_end_on_the_last_one_asked(page):
    # each press is a request to the server; they must not overtake one another
    page.load("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7")
    page.wait_text("#moves", "Be7")
    page.locator("body").click(position={"x": 5, "y": 5})
    for _ in range(7):
        page.keyboard.press("ArrowLeft")                 # ten plies back seven: after 2. Nf3
    page.wait_text("#moves .current", "Nf3")
    page.wait_for_timeout(1000)                          # and it stays there
    assert page.locator("#moves .current").inner_text().startswith("Nf3")
    after = chess.Board()
    for san in ["e4", "e5", "Nf3"]:
        after.push_san(san)
    assert page.locator("body").get_attribute("data-fen") == after.fen()


def test_a_reload_keeps_the_game_and_the_page_refuses_what_is_foreign(page, server):
    page.new_game(fen=MATE_IN_ONE)
    page.move("d1", "d8")
    page.wait_text("#status", "White wins")
    page.reload()
    page.locator("body[data-ready='1']").wait_for(timeout=15_000)
    page.wait_text("#status", "White wins by checkmate")
    api = page.context.request
    r = api.post(server.base + "api/tab", headers={"Content-Type": "application/json"},
                 data="{}")
    assert r.status == 403 and "token" in r.json()["error"]
    r = api.get(server.url, headers={"Host": f"evil.example:{server.port}"})
    assert r.status == 403
    r = api.get(server.base)                      # the cookie of this page's context
    assert r.status == 200 and "black_numba" in r.text()


def test_a_piece_dragged_to_its_square_moves(page):
    page.load("1. e4 e5")
    page.wait_text("#moves", "e5")
    start = page.locator('#board rect[data-square="g1"]').bounding_box()
    end = page.locator('#board rect[data-square="f3"]').bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    for step in range(1, 11):          # a drag, not a click: the pointer moves while down
        page.mouse.move(start["x"] + (end["x"] - start["x"]) * step / 10 + start["width"] / 2,
                        start["y"] + (end["y"] - start["y"]) * step / 10 + start["height"] / 2)
    page.mouse.up()
    assert page.wait_moves(3) == ["e4", "e5", "Nf3"]


def test_play_from_an_analysed_position(page):
    page.click("#tab-play")                           # the Play panel's settings apply
    page.select_option("#tc", "")
    page.fill("#movetime", "0.2")
    page.load("1. e4 e5 2. Nf3 Nc6")
    page.wait_text("#moves", "Nc6")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")                  # after 1... e5: White to move
    page.wait_text("#moves .current", "e5")
    page.click("#btn-play-here")
    page.locator("#panel-play").wait_for(state="visible")
    page.wait_text("#players", "Player")
    assert page.moves() == ["e4", "e5"]
    page.move("d2", "d4")
    moves = page.wait_moves(4)
    b = chess.Board()
    for san in moves:
        b.push_san(san)                               # the engine answered 2. d4 legally


# -- the board as a person meets it (issue 75) --------------------------------------------------
def test_a_stopped_server_is_said_within_seconds_and_failed_actions_say_so(browser):
    """Item 1: the page follows the server. Analysing with 3 lines, the server stopped: within
    LOST_S a notice says what to do, the header no longer claims analysing, the lines go, and
    Load says why it did nothing; the notice leaves the board's buttons on a 1280x800 screen."""
    own = GuiServer()
    page = None
    try:
        own.wait_ready()
        page = Page(browser, own, viewport=SCREEN)
        page.load("1. e4 e5 2. Nf3 Nc6")
        page.wait_text("#moves", "Nc6")
        page.select_option("#multipv", "3")
        page.check("#analysis-on")
        page.locator("#lines .line").nth(2).wait_for(timeout=LINES_S * 1000)
        page.wait_text("#engine-status", "analysing")
        own.stop()
        stopped = time.monotonic()
        page.locator("#notice", has_text="start `black-numba gui` again and open the address "
                                          "it prints").wait_for(timeout=LOST_S * 1000)
        assert time.monotonic() - stopped < LOST_S
        assert "analysing" not in page.text("#engine-status")
        assert page.locator("#lines .line").count() == 0
        page.fill("#load-text", "1. d4")
        page.click("#btn-load")
        page.wait_text("#load-message", "server stopped")
        assert page.moves() == ["e4", "e5", "Nf3", "Nc6"]
        page.click("#btn-annotate")                     # each button says so beside it
        page.wait_text("#analyse-message", "server stopped")
        page.click("#btn-pgn")
        page.wait_text("#moves-message", "server stopped")
        flip = page.locator("#btn-flip").bounding_box()
        notice = page.locator("#notice").bounding_box()
        assert flip["y"] + flip["height"] <= SCREEN["height"]
        assert not boxes_overlap(notice, page.locator("#board").bounding_box())
        assert not boxes_overlap(notice, flip)
    finally:
        if page is not None:
            page.close()
        own.stop()


def test_a_fresh_page_is_a_game_ready_to_play_with_the_panels_settings(page):
    """Item 2: no New game pressed, 1. e4 gets an answer; settings changed before the first
    move apply to that game."""
    assert page.locator("#panel-play").is_visible()
    page.wait_text("#play-hint", "make your first move")
    page.select_option("#tc", "")
    page.locator("#clock-bottom.off").wait_for(state="attached", timeout=5000)   # no clocks
    page.fill("#movetime", "0.2")
    page.keyboard.press("Tab")                          # the field is left: it changed
    page.move("e2", "e4")
    moves = page.wait_moves(2)
    b = chess.Board()
    b.push_san(moves[0])
    b.parse_san(moves[1])
    page.wait_text("#status", "White to move")
    assert page.text("#play-hint") == ""


def test_a_reload_shows_the_games_own_settings(page):
    """Item 3: a game at UCI_Elo 1600 and 3+2 reloaded: the form says so, and the next New
    game keeps them."""
    page.new_game(tc="180+2", elo=1600)
    page.wait_text("#players", "UCI_Elo 1600")
    page.reload()
    page.locator("body[data-ready='1']").wait_for(timeout=15_000)
    assert page.text("#elo-label") == "UCI_Elo 1600"
    assert page.locator("#tc").input_value() == "180+2"
    page.click("#btn-new")
    page.wait_text("#players", "UCI_Elo 1600")
    assert page.text("#clock-bottom .time") == "3:00"


def test_a_closed_tabs_game_is_listed_and_a_new_page_goes_back_to_it(browser, server):
    """Item 4: a game going on is not lost with its tab: another page lists it and takes it
    up, the engine answering there."""
    first = Page(browser, server)
    first.new_game(movetime_s=0.2)
    first.move("e2", "e4")
    moves = first.wait_moves(2)
    tab = first.evaluate("sessionStorage.getItem('black_numba.tab')")
    first.close()
    second = Page(browser, server)
    try:
        entry = second.locator(f'#games-list button[data-tab="{tab}"]')
        entry.wait_for(timeout=10_000)
        assert f"1... {moves[1]}" in entry.inner_text()
        entry.click()
        second.wait_text("#moves", moves[1])
        assert second.moves() == moves
        second.move("d2", "d4")
        assert second.wait_moves(4)[:3] == moves + ["d4"]
    finally:
        second.close()


def test_stepping_back_in_a_game_says_so_and_offers_the_way_back(page):
    """Item 9: an earlier position during a game is said, with a button to the last move."""
    page.new_game(movetime_s=0.2)
    page.move("e2", "e4")
    moves = page.wait_moves(2)
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("ArrowLeft")
    page.wait_text("#review", "moves are made at the last one")
    page.click("#btn-live")
    page.locator("#review").wait_for(state="hidden", timeout=5000)
    page.wait_text("#moves .current", moves[1])
    page.move("d2", "d4")
    page.wait_moves(4)


def test_copy_fen_says_it_copied(page):
    """Item 12: a sign that it copied."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.load("1. e4")
    page.wait_text("#moves", "e4")
    page.click("#btn-fen")
    page.wait_text("#btn-fen", "Copied")
    assert page.evaluate("navigator.clipboard.readText()") == \
        page.locator("body").get_attribute("data-fen")


def test_a_tab_whose_analysis_another_took_does_not_claim_to_analyse(browser, server):
    """Item 13: the header follows the notice."""
    a, b = Page(browser, server), Page(browser, server)
    try:
        a.load("1. e4 c5")
        a.check("#analysis-on")
        a.locator("#lines .line").first.wait_for(timeout=LINES_S * 1000)
        b.load("1. d4 d5")
        b.check("#analysis-on")
        a.wait_text("#engine-note", "another tab")
        a.wait_text("#engine-status", "another tab")
        assert "analysing" not in a.text("#engine-status")
        b.uncheck("#analysis-on")
        a.wait_text("#engine-status", "analysing")
    finally:
        a.close()
        b.close()


def test_a_decided_game_disables_take_back_and_keeps_the_buttons_on_screen(browser, server):
    """Item 8: resigned, Take back is off; at 1280x800 with clocks, the result and a notice,
    the board's buttons stay on the screen."""
    page = Page(browser, server, viewport=SCREEN)
    try:
        page.new_game(fen=MATE_IN_TWO, tc="60+0")
        board = chess.Board(MATE_IN_TWO)
        first = mating_move(board, 3)
        page.move(chess.square_name(first.from_square), chess.square_name(first.to_square))
        page.wait_moves(2)
        page.once("dialog", lambda d: d.accept())
        page.click("#btn-resign")
        page.wait_text("#status", "wins by resignation")
        assert page.locator("#btn-takeback").is_disabled()
        assert page.locator("#btn-resign").is_disabled()
        page.fill("#start-fen", "")
        page.click("#btn-new")                          # a refusal, said beside the form
        page.wait_text("#play-message", "empty")
        for selector in ("#btn-flip", "#clock-bottom", "#btn-takeback"):
            box = page.locator(selector).bounding_box()
            assert box["y"] + box["height"] <= SCREEN["height"], selector
    finally:
        page.close()


def test_the_eval_bars_number_is_whole_and_legible(page):
    """Item 6: "+0.31", not "+0.3", at a readable size on its own background."""
    page.load("1. e4")
    page.check("#analysis-on")
    page.locator("#lines .line").first.wait_for(timeout=LINES_S * 1000)
    text = page.locator("#evalbar .evalbar-text")
    text.wait_for(timeout=5000)
    fit = text.evaluate("e => [e.scrollWidth, e.clientWidth, "
                        "parseFloat(getComputedStyle(e).fontSize), getComputedStyle(e).color]")
    assert fit[0] <= fit[1] and fit[2] >= 11 and fit[3] == "rgb(255, 255, 255)"
    bar, box = page.locator("#evalbar").bounding_box(), text.bounding_box()
    assert box["x"] >= bar["x"] and box["x"] + box["width"] <= bar["x"] + bar["width"]
    assert "." in text.inner_text() and len(text.inner_text().split(".")[1]) == 2


def test_the_board_keeps_its_place_and_its_dialog_and_coordinates_sit_right(page):
    """Item 16: the board does not jump when clocks or the bar come and go; the promotion
    dialog covers the promotion square and the three beyond; the coordinates never cover a
    piece (a Chess960 start); no "setOrientation" warning in the console."""
    page.load("1. e4")
    page.wait_text("#moves", "e4")
    analysed = page.locator("#board").bounding_box()
    page.new_game(fen=PROMOTION, tc="60+0")
    page.locator("#clock-bottom .time").wait_for()
    assert page.locator("#board").bounding_box() == analysed
    page.move("a7", "a8")
    buttons = page.locator(".promotion-dialog-button-group")
    buttons.first.wait_for(timeout=5000)
    a8 = page.locator('#board rect[data-square="a8"]').bounding_box()
    a5 = page.locator('#board rect[data-square="a5"]').bounding_box()
    first, last = buttons.first.bounding_box(), buttons.last.bounding_box()
    assert abs(first["x"] - a8["x"]) < 1 and abs(first["y"] - a8["y"]) < 1
    assert abs(last["y"] - a5["y"]) < 1
    page.locator('.promotion-dialog-button-group[data-piece="wq"]').click()
    page.wait_moves(1)
    page.click("#tab-play")
    page.select_option("#color", "black")
    page.select_option("#start", "chess960")
    page.select_option("#tc", "")
    page.fill("#movetime", "0.2")
    page.click("#btn-new")
    page.wait_moves(1)                                  # the engine, White, moved first
    page.wait_for_timeout(500)                          # the board turned, moves drawn
    pieces, labels = page.evaluate(
        "() => ['#board g[data-piece]', '#board .coordinates text'].map((s) => "
        "[...document.querySelectorAll(s)].map((e) => { const b = e.getBoundingClientRect(); "
        "return {x: b.x, y: b.y, width: b.width, height: b.height} }))")
    assert len(labels) == 16 and pieces
    assert not any(boxes_overlap(t, p) for t in labels for p in pieces)
    files = page.locator("#board .coordinates text").all_text_contents()
    assert files.index("a") > files.index("h")          # Black at the bottom
    assert not [m for m in page.console if "setOrientation" in m]


# -- the page's layout at several sizes, light and dark ------------------------------------------
def test_at_phone_width_the_board_and_its_controls_fit_the_screen(browser, server):
    """At 390 px the board, its bar, clocks and buttons are all on the screen: nothing is
    cut off at the right, and the board's buttons are above the fold."""
    page = Page(browser, server, viewport=PHONE)
    try:
        page.locator("#clock-bottom:not(.off)").wait_for(timeout=5000)   # 5+3: clocks shown
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        for selector in ("#evalbar", "#board", "#clock-top", "#clock-bottom", "#btn-flip",
                         "#btn-new", "#btn-resign", "#btn-pgn"):
            box = page.locator(selector).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], selector
        flip = page.locator("#btn-flip").bounding_box()
        assert flip["y"] + flip["height"] <= PHONE["height"]
        board = page.locator("#board").bounding_box()
        assert board["width"] >= 0.75 * PHONE["width"]                 # and still a big board
    finally:
        page.close()


def test_an_earlier_position_keeps_its_way_back_on_one_line_and_the_clocks_in_line(
        browser, server):
    """At 1280x800 during a game with clocks, an earlier position shown: "Back to the game
    »" is one line, the board's buttons stay on the screen, and each clock's name is
    centred with its time."""
    page = Page(browser, server, viewport=SCREEN)
    try:
        page.new_game(tc="60+0", elo="lowest")
        page.move("e2", "e4")
        page.wait_moves(2)
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("ArrowLeft")
        page.locator("#review").wait_for(timeout=5000)
        lines = page.locator("#btn-live").evaluate(
            "(b) => { const r = document.createRange(); r.selectNodeContents(b); "
            "return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size }")
        assert lines == 1
        board = page.locator("#board").bounding_box()
        review = page.locator("#review").bounding_box()
        assert review["x"] + review["width"] <= board["x"] + board["width"] + 1
        flip = page.locator("#btn-flip").bounding_box()
        assert flip["y"] + flip["height"] <= SCREEN["height"]
        for clock in ("#clock-top", "#clock-bottom"):      # the texts' own boxes, centred
            who, time_ = (page.locator(f"{clock} {part}").evaluate(
                "(e) => { const r = document.createRange(); r.selectNodeContents(e); "
                "const b = r.getBoundingClientRect(); return b.y + b.height / 2 }")
                for part in (".who", ".time"))
            assert abs(who - time_) <= 1, clock
    finally:
        page.close()


def test_the_pages_words_read_in_light_and_dark(page):
    """The muted, warning, result and error colours read on their backgrounds in either
    colour scheme: the move numbers, the earlier-position line, the engine's status, a
    game's result and a refusal."""
    def readable(selectors):
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            for selector in selectors:
                # found and measured in one turn of the page's loop: the analysis lines
                # are redrawn with every report, and a line found before a redraw is gone
                ratio = page.evaluate(f"(sel) => ({CONTRAST})(document.querySelector(sel))",
                                      selector)
                assert ratio >= READABLE, (scheme, selector, round(ratio, 2))

    page.new_game(movetime_s=0.2)
    page.move("e2", "e4")
    page.wait_moves(2)
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("ArrowLeft")
    page.locator("#review").wait_for(timeout=5000)
    readable(["#review-text", "#moves .move-number", "#engine-status", "header .sound"])
    page.keyboard.press("End")
    page.locator("#review").wait_for(state="hidden", timeout=5000)
    page.once("dialog", lambda d: d.accept())
    page.click("#btn-resign")
    page.wait_text("#status", "wins by resignation")
    page.select_option("#start", "fen")
    page.fill("#start-fen", "")
    page.click("#btn-new")
    page.wait_text("#play-message", "empty")
    readable(["#status.over", "#play-message"])
    page.load("1. e4 e5")
    page.check("#analysis-on")
    page.locator("#lines .line").first.wait_for(timeout=LINES_S * 1000)
    page.wait_text("#engine-status", "analysing")
    readable(["#engine-status.busy", "#lines .line .info"])


# -- nothing lost by a click, as lichess does it (issue 109) ------------------------------------
def test_new_game_during_a_game_keeps_it_going_on_in_the_list(page):
    """New game while a game goes on starts the new one beside it: the old game is listed
    under the games going on, a click takes it up again; once decided, New game replaces it
    with nothing to keep."""
    page.new_game(movetime_s=0.2)
    page.move("e2", "e4")
    moves = page.wait_moves(2)
    kept = page.evaluate("sessionStorage.getItem('black_numba.tab')")
    page.click("#btn-new")
    page.wait_text("#play-kept", "goes on")
    page.locator("#moves .move").first.wait_for(state="detached", timeout=5000)
    page.locator(f'body[data-fen="{chess.STARTING_FEN}"]').wait_for(timeout=5000)
    entry = page.locator(f'#games-list button[data-tab="{kept}"]', has_text=f"1... {moves[1]}")
    entry.wait_for(timeout=5000)
    assert "open in another tab" not in entry.inner_text()     # this page left it
    entry.click()
    page.wait_text("#moves", moves[1])
    assert page.moves() == moves and page.text("#play-kept") == ""
    page.once("dialog", lambda d: d.accept())
    page.click("#btn-resign")
    page.wait_text("#status", "wins by resignation")
    page.click("#btn-new")
    page.locator("#moves .move").first.wait_for(state="detached", timeout=5000)
    assert page.text("#play-kept") == ""


def test_abort_before_both_sides_moved_then_resign_in_the_persons_colours(page):
    """As lichess: Abort (no result, no question) until both sides have moved, Resign after;
    a lost game's line is red, not green."""
    page.new_game(color="black", movetime_s=0.2)
    page.wait_moves(1)                                  # the engine, White, moved
    button = page.locator("#btn-resign")
    assert button.inner_text() == "Abort"
    button.click()
    page.wait_text("#status", "Game aborted")
    assert button.is_disabled() and page.locator("#btn-takeback").is_disabled()
    assert page.locator("#status.won, #status.lost").count() == 0
    assert page.locator("#moves .result").count() == 0
    page.new_game(color="white", movetime_s=0.2)
    page.wait_text("#btn-resign", "Abort")             # a game no side has moved in
    page.move("e2", "e4")
    page.wait_moves(2)
    page.wait_text("#btn-resign", "Resign")
    page.once("dialog", lambda d: d.accept())
    button.click()
    page.wait_text("#status", "Black wins by resignation")
    colour, bad = page.evaluate(
        "() => [getComputedStyle(document.getElementById('status')).color, "
        "getComputedStyle(document.querySelector('.message')).color]")
    assert page.locator("#status.lost").count() == 1 and colour == bad


def test_the_clocks_start_after_both_first_moves(page):
    """The engine's first move as White and the person's answer cost no time; then White's
    clock runs."""
    page.new_game(color="black", tc="60+0")
    page.wait_moves(1)
    page.wait_for_timeout(1200)
    assert page.text("#clock-top .time") == "1:00" == page.text("#clock-bottom .time")
    assert page.locator("#clock-top.running, #clock-bottom.running").count() == 0
    page.move("e7", "e5")
    page.wait_moves(3)                                  # the engine answered on its clock
    page.locator("#clock-bottom.running").wait_for(timeout=5000)
    assert page.text("#clock-top .time") != "1:00"


def test_an_analysed_game_keeps_its_result_and_an_unnamed_pgn_its_sides(page):
    """Analyse this game after a resignation keeps 0-1 at the end of the moves; a PGN with no
    headers shows White – Black, as lichess."""
    page.new_game(movetime_s=0.2)
    page.move("e2", "e4")
    page.wait_moves(2)
    page.once("dialog", lambda d: d.accept())
    page.click("#btn-resign")
    page.wait_text("#status", "wins by resignation")
    page.click("#btn-analyse-game")
    page.locator("#panel-analyse").wait_for(state="visible")
    assert page.text("#moves .result") == "0-1"
    page.load("1. d4 d5")
    page.wait_text("#moves", "d5")
    assert page.text("#players") == "White – Black"
    assert page.locator("#moves .result").count() == 0


def test_at_phone_width_coordinates_read_the_moves_follow_the_board_and_lines_are_whole(
        browser, server):
    """390x844: the board's coordinates at 10 px or more, the move list right under the
    board's buttons (not below the whole panel), and engine lines wrapped, never cut."""
    page = Page(browser, server, viewport=PHONE)
    try:
        sizes = page.evaluate("() => [...document.querySelectorAll('#board .coordinates "
                              "text')].map((e) => parseFloat(getComputedStyle(e).fontSize))")
        assert len(sizes) == 16 and min(sizes) >= 10, sizes
        page.load("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7")
        page.wait_text("#moves", "Be7")
        flip = page.locator("#btn-flip").bounding_box()
        moves = page.locator("#moves").bounding_box()
        assert 0 <= moves["y"] - (flip["y"] + flip["height"]) <= 120, (flip, moves)
        page.select_option("#multipv", "3")
        page.check("#analysis-on")
        page.locator("#lines .line").nth(2).wait_for(timeout=LINES_S * 1000)
        page.wait_for_timeout(1500)                     # deeper, longer lines
        cut = page.evaluate("() => [...document.querySelectorAll('#lines .pv')].filter((e) =>"
                            " e.scrollWidth > e.clientWidth + 1 || "
                            "e.scrollHeight > e.clientHeight + 1).length")
        assert cut == 0
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    finally:
        page.close()
