"""The browser board's screenshots in docs/img/: play and analysis on fixed positions, taken
with Debian's Chromium through Playwright (the browser the tests drive).

    python tools/gui_screenshots.py [--out docs/img] [--chromium /usr/bin/chromium]

Play: a game at UCI_Elo 1800 with a 5+3 clock from a fixed middlegame, the person's knight
picked up (its legal moves dotted). Analysis: the Opera Game (Morphy, Paris 1858) annotated,
shown before 16. Qb8+ with three engine lines and the evaluation graph.
"""
import argparse
import os
import shutil
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from board_client import CHROMIUM_ARGS, ELO_MIN, ELO_STEP, GuiServer  # noqa: E402  (bench/)

VIEWPORT = {"width": 1280, "height": 800}
PLAY_FEN = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9"
PLAY_PIECE = "f3"
PLAY_ELO = 1800
OPERA_GAME = """[Event "Paris"]
[Site "Paris FRA"]
[Date "1858.??.??"]
[White "Paul Morphy"]
[Black "Duke Karl / Count Isouard"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6
9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6
15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0
"""
ANALYSE_PLY = 30           # the position before 16. Qb8+
ANNOTATE_TIMEOUT_S = 180
LINES_S = 4.0              # how long the engine analyses before the picture


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "img"))
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright
    os.makedirs(args.out, exist_ok=True)
    server = GuiServer()
    try:
        server.wait_ready()
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium,
                                         args=CHROMIUM_ARGS)
            page = browser.new_page(viewport=VIEWPORT)
            page.emulate_media(color_scheme="light")
            page.goto(server.url)
            page.locator("body[data-ready='1']").wait_for(timeout=15_000)
            # play
            page.select_option("#tc", "300+3")
            page.locator("#elo").focus()
            page.keyboard.press("Home")              # the slider's bottom (UCI_Elo 1350)
            for _ in range((PLAY_ELO - ELO_MIN) // ELO_STEP):
                page.keyboard.press("ArrowRight")
            page.select_option("#start", "fen")
            page.fill("#start-fen", PLAY_FEN)
            page.click("#btn-new")
            page.locator(f'body[data-fen="{PLAY_FEN}"]').wait_for(timeout=5000)
            page.locator(f'#board rect[data-square="{PLAY_PIECE}"]').click()
            page.wait_for_timeout(600)
            page.screenshot(path=os.path.join(args.out, "gui-play.png"))
            # analyse
            page.click("#tab-analyse")
            page.fill("#load-text", OPERA_GAME)
            page.click("#btn-load")
            page.locator("#moves .move", has_text="Rd8#").wait_for(timeout=5000)
            page.fill("#load-text", "")              # the box as a person finds it
            page.click("#btn-annotate")
            page.locator("#eval-graph:not([hidden])").wait_for(timeout=ANNOTATE_TIMEOUT_S * 1000)
            page.locator(f'#moves .move[data-ply="{ANALYSE_PLY}"]').click()
            page.select_option("#multipv", "3")
            page.check("#analysis-on")
            page.locator("#lines .line").nth(2).wait_for(timeout=10_000)
            time.sleep(LINES_S)
            page.screenshot(path=os.path.join(args.out, "gui-analyse.png"))
            browser.close()
    finally:
        server.stop()
    for name in ("gui-play.png", "gui-analyse.png"):
        path = os.path.join(args.out, name)
        print(f"{path}: {os.path.getsize(path):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
