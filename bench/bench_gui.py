"""Timings of the browser board (`black-numba gui`), the figures docs/gui.md gives:

- page: from navigation to a usable page (the board drawn, the tab's game loaded) in Chromium,
  warm cache, median of PAGE_LOADS loads;
- cold: with an empty compile cache, how soon the page is served and says "compiling", the
  longest answer of the server while it compiles, and when the engine is ready;
- first line: from asking for analysis to the first engine line on the event stream, median
  and worst over the FIRST_LINE_FENS positions;
- answers: the server's answer time (GET /api/state) while an analysis runs on 2 search
  threads: median, 95th percentile and worst of ANSWERS requests.

    python bench/bench_gui.py [--no-cold] [--chromium /usr/bin/chromium] [--loads 10]
                              [--positions 5] [--answers 200]

Pause datagen first (tools/campaign.sh pause DIR): the figures are wall-clock times.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

from board_client import CHROMIUM_ARGS, GuiServer
from common import ROOT, use_checkout

use_checkout()
from black_numba.provenance import git_commit  # noqa: E402  (this checkout's package)

PAGE_LOADS = 10
ANSWERS = 200
ANSWER_GAP_S = 0.02
FIRST_LINE_FENS = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9",
    "8/5pk1/6p1/3R4/7P/6P1/r4PK1/8 b - - 0 40",
    "2r3k1/1q3ppp/p2p4/1p1Pp3/1P2P3/P4Q1P/5PP1/2R3K1 w - - 0 30",
)


def ms(seconds):
    return f"{seconds * 1000:.0f} ms"


def page_load(server, chromium, loads=PAGE_LOADS):
    from playwright.sync_api import sync_playwright
    times = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium,
                                     args=CHROMIUM_ARGS)
        for _ in range(loads):
            context = browser.new_context()
            page = context.new_page()
            t0 = time.perf_counter()
            page.goto(server.url)
            page.locator("body[data-ready='1']").wait_for(timeout=30_000)
            times.append(time.perf_counter() - t0)
            context.close()
        browser.close()
    return times


def first_lines(server, positions=len(FIRST_LINE_FENS)):
    times = []
    for fen in FIRST_LINE_FENS[:positions]:
        tab = server.new_tab()
        log = server.events(tab)
        try:
            state = server.post("/api/load", tab=tab, text=fen)["state"]
            t0 = time.monotonic()
            server.post("/api/analysis", tab=tab, on=True, multipv=1)
            e = log.wait(lambda e: e[1] == "lines" and e[2]["tag"] == state["tag"], timeout=30)
            times.append(e[0] - t0)
            server.post("/api/analysis", tab=tab, on=False)
        finally:
            log.close()
    return times


def answers_while_searching(server, answers=ANSWERS):
    tab = server.new_tab()
    log = server.events(tab)
    try:
        state = server.post("/api/load", tab=tab, text=FIRST_LINE_FENS[2])["state"]
        server.post("/api/analysis", tab=tab, on=True, multipv=1)
        log.wait(lambda e: e[1] == "lines" and e[2]["tag"] == state["tag"], timeout=30)
        times = []
        for _ in range(answers):
            t0 = time.perf_counter()
            server.state(tab)
            times.append(time.perf_counter() - t0)
            time.sleep(ANSWER_GAP_S)
        assert server.state(tab)["engine"]["analysing"]
        server.post("/api/analysis", tab=tab, on=False)
        return times
    finally:
        log.close()


def cold_start():
    """An empty cache: the page served while the engine compiles."""
    cache = tempfile.mkdtemp(prefix="black_numba_cold_")
    env_before = os.environ.get("BLACK_NUMBA_CACHE")
    os.environ["BLACK_NUMBA_CACHE"] = cache
    try:
        t0 = time.monotonic()
        server = GuiServer()
        try:
            served = time.monotonic() - t0
            tab = server.new_tab()
            compiling = server.state(tab)["engine"]["compiling"]
            worst = 0.0
            while True:
                t1 = time.perf_counter()
                ready = server.state(tab)["engine"]["ready"]
                worst = max(worst, time.perf_counter() - t1)
                if ready:
                    break
                time.sleep(0.2)
            return served, compiling, worst, time.monotonic() - t0
        finally:
            server.stop()
    finally:
        if env_before is None:
            del os.environ["BLACK_NUMBA_CACHE"]
        else:
            os.environ["BLACK_NUMBA_CACHE"] = env_before
        shutil.rmtree(cache, ignore_errors=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-cold", action="store_true", help="skip the cold-cache start")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--loads", type=int, default=PAGE_LOADS, help="page loads timed")
    ap.add_argument("--positions", type=int, default=len(FIRST_LINE_FENS),
                    help="positions timed to their first analysis line")
    ap.add_argument("--answers", type=int, default=ANSWERS,
                    help="server answers timed during an analysis")
    args = ap.parse_args(argv)
    commit = git_commit(ROOT, short=True) or "unknown"
    print(f"black_numba gui timings at {commit} ({os.cpu_count()} cores)")
    if not args.no_cold:
        served, compiling, worst, ready = cold_start()
        print(f"cold cache: page served after {served:.1f} s, says compiling: {compiling}, "
              f"longest answer while compiling {ms(worst)}, engine ready after {ready:.0f} s")
    server = GuiServer("--threads", "2")
    try:
        server.wait_ready()
        t = page_load(server, args.chromium, args.loads)
        print(f"page usable (warm): median {ms(statistics.median(t))}, worst {ms(max(t))} "
              f"({len(t)} loads)")
        t = first_lines(server, args.positions)
        print(f"first analysis line: median {ms(statistics.median(t))}, worst {ms(max(t))} "
              f"({len(t)} positions)")
        t = sorted(answers_while_searching(server, args.answers))
        print(f"answers during a 2-thread analysis: median {ms(statistics.median(t))}, "
              f"95% {ms(t[int(0.95 * len(t)) - 1])}, worst {ms(t[-1])} ({len(t)} requests)")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
