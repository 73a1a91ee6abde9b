#!/usr/bin/env python3
"""The run log: bench/results/runs.jsonl holds one record a run; RUNS.md beside it is made
from the records by this script and never edited by hand.

    python3 tools/runs.py                  write RUNS.md from runs.jsonl
    python3 tools/runs.py --check          exit 1 when RUNS.md is not what the records make,
                                           or a record breaks the rules below
    python3 tools/runs.py show ID          print one run's record in full
    python3 tools/runs.py set ID FIELD TEXT [--append]
                                           set a field of a run's record (--append: add TEXT
                                           to a list field such as "slices"), then write RUNS.md

A record is one JSON object on one line:

    id          the run's name, unique ("GA8", "N2 vs 46cc")
    section     the key of its RUNS.md section (SECTIONS below)
    date        the day it ran, "YYYY-MM-DD" (a span or a list may follow the first day)
    commit      the commits its text cites, in order (the build's first)
    conditions  what was played and how (time control, openings, opponents, the declared rules)
    command     the command that ran it, or null
    result      its figures
    verdict     what was decided from it, or null
    log         the logs or records in bench/results that hold it, or where they are

and, where its section shows them, "build" and "games". Those fields are the table's cells:
each at most MAX_CELL characters. A run whose full account is longer keeps the whole text in
"details" (field -> text) and its cell gives the short form, ending in " ..." in RUNS.md.
A run played in slices across sessions lists each slice's report in "slices" and keeps
"result" at its standing so far.
"""
import argparse
import json
import os
import re
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")
RECORDS = os.path.join(RESULTS, "runs.jsonl")
RUNS_MD = os.path.join(RESULTS, "RUNS.md")

MAX_CELL = 300               # characters of one table cell; the record holds the rest
MORE = " ..."                # ends a cell whose record has the full text in "details"
WIDTH = 92                   # the prose of RUNS.md is wrapped at this many characters
REQUIRED = ("id", "section", "date", "commit", "conditions", "command", "result", "verdict",
            "log")
DATE = re.compile(r"\d{4}-\d\d-\d\d\b")
HEX = re.compile(r"[0-9a-f]{7,40}")

# Each section of RUNS.md: its key, heading, the text under the heading, the table's columns
# after "run" and "date" (heading, record field) and the text after the table.
STANDARD = (("build", "build"), ("conditions", "conditions"), ("result", "result"),
            ("log", "log"))
GAUNTLET = (("builds", "build"), ("conditions", "conditions"), ("result", "result"),
            ("records", "log"))
CALIBRATION = (("command", "command"), ("games", "games"), ("result", "result"),
               ("records", "log"))
SECTIONS = [
    {"key": "strength", "title": "Strength of the shipped build", "columns": STANDARD},
    {"key": "gauntlets", "title": "Gauntlets (issue 74): builds against the foreign pool",
     "intro": "`black-numba match --build ... --opponent ...` ([docs/testing.md]"
              "(../../docs/testing.md#gauntlet)); records (one line a game pair) in this "
              "folder, resumed with the same command.",
     "columns": GAUNTLET},
    {"key": "pool", "title": "The pool (issue 107): engines of other authors",
     "intro": "`python3 tools/pool.py build` then `tools/pool.py gauntlet` ([docs/testing.md]"
              "(../../docs/testing.md#the-pool)). Members frozen in `tools/pool.py`; binaries "
              "and SHA-256 in the pool's manifest. A run played in slices keeps each slice's "
              "report in its record's \"slices\" (`tools/runs.py set GP1 slices TEXT "
              "--append`) and its standing in \"result\".",
     "columns": GAUNTLET},
    {"key": "levers", "title": "Levers (issue 107): each declared before it runs",
     "intro": "A lever that keeps the search's tree (the bench signature unchanged) is "
              "measured by its nodes/s against its parent (`bench/nps_pairs.py`, pinned "
              "pairs, nothing else running); one that changes the tree by a screen "
              "(self-play at 50,000 nodes, SPRT (0, 10), at most 2,000 games), then the pool "
              "(docs/testing.md).",
     "columns": STANDARD},
    {"key": "reports", "title": "What the engine reports (issue 109)", "columns": STANDARD},
    {"key": "final23", "title": "Issue 23's final tests (the search against its starting build)",
     "intro": "Both sides play the network 46cc2f2b; the start is commit 5dd411e "
              "(bench 1,293,276).",
     "columns": STANDARD,
     "outro": "The inventory's tests (H1-H26, C1) and its two SPSA runs are summarised "
              "with their results in [docs/search.md](../../docs/search.md); their logs are "
              "in the history."},
    {"key": "network", "title": "The network",
     "columns": (("network", "build"),) + STANDARD[1:]},
    {"key": "styles", "title": "Playing styles (issue 65, network f641bb63)",
     "intro": "`bench/matches.py style RUN`, whose conditions are fixed in that script: the "
              "held-out openings (all 500, each with both colours, seed 65), black_numba "
              "Threads 1 Hash 16 told `UCI_Opponent` as lichess-bot tells it, the runner's "
              "resign and draw adjudication in every arm, the style report of each engine "
              "beside its Elo. The build is commit 440d6ca's (the code of commit 1e84998, "
              "bench 1,038,483; `Aggressive` 1,123,418, `Hustler` 1,039,614). Declared "
              "2026-11-29 at 17:42 UTC (the commit that declares them, 17:42:10), before any "
              "ran, in this order, each reported whatever it shows: ST1-ST4 at fixed nodes "
              "with datagen at nice 19 beside them (node limits make them independent of the "
              "CPU), then ST5 and ST6 on the clock with datagen paused and nothing else "
              "running; concurrency 2 for all (two games at once on the two cores, as "
              "V10-V15). Stop rule: a run not finished by 20:10 UTC is abandoned whole and "
              "reported as such; for ST6, 20:22 UTC (amended at 18:26, before ST4 ended, so "
              "that the longest run has the session's end).",
     "columns": (("command", "command"), ("games", "games"), ("result", "result"),
                 ("log", "log"))},
    {"key": "validation", "title": "Strength levels (validation, network 0ece2822)",
     "intro": "The levels of the provisional table validated for the shipped engine of GA8 "
              "(issue 74): 100 games a label at its level against Stockfish 15.1 at that "
              "`UCI_Elo`, Threads 1, Hash 16, 10+0.1, held-out openings.",
     "columns": (("command and conditions", "conditions"), ("games", "games"),
                 ("result", "result"), ("log", "log"))},
    {"key": "calibration-f641", "title": "Strength levels (calibration, network f641bb63)",
     "intro": "`black-numba calibrate` in parts for the network f641bb63 (bench 1,038,483), "
              "each part's records kept (`--table /work/calib_n9/PART.json` writes "
              "`PART.games.json`) and fitted together at the end (`--fit-only --include "
              "...`); Stockfish 15.1 Threads 1 Hash 16, 10+0.1, held-out openings, "
              "concurrency 2, datagen paused. F4 and F5 above are full strength's games.",
     "columns": CALIBRATION},
    {"key": "calibration-27c8", "title": "Strength levels (calibration, network 27c8d9d1)",
     "intro": "`black-numba calibrate` in parts, each adding its games to the records of the "
              "parts before (`--include`); the newest records file holds every part's games. "
              "Commit 2f5c48a (bench 1,160,501), Stockfish 15.1 Threads 1 Hash 16, 10+0.1, "
              "held-out openings, concurrency 2, nothing else running.",
     "columns": CALIBRATION},
    {"key": "calibration-384d", "title": "Strength levels (calibration, network 384d585c)",
     "columns": STANDARD},
    {"key": "other", "title": "Other figures", "columns": STANDARD},
]
SECTION = {s["key"]: s for s in SECTIONS}

HEADER = """# Runs behind today's figures

Generated by `python3 tools/runs.py` from [`runs.jsonl`](runs.jsonl), one record a run: do
not edit this file, edit the records and run the script again (`tools/runs.py --check`, a
step of CI, fails when the two differ). A cell ending in "{more}" is cut short: the record
holds the whole account (`python3 tools/runs.py show ID`).

The runs whose results the README and `docs/` quote, one line each: what it was, its build,
its conditions, its result and its log in this folder (each log headed by its commit, bench
signature, time control, openings and opponent). Unless a line says otherwise: Stockfish 15.1
is Debian's SSE2-only build, 10+0.1, Threads 1, Hash 16, the 2-move openings with each opening
played with both colours, on a 2-core machine otherwise idle. "Faults" counts illegal moves,
time losses, crashes and hangs.

**Recording a run**: declare it before it runs by adding its line to `runs.jsonl` (the fields
are listed in `tools/runs.py`; copy a run of the same section), report it by setting its
`result`, `verdict` and `log` (`tools/runs.py set ID result TEXT`), and run
`python3 tools/runs.py`; commit the records, RUNS.md and the logs together. New match logs and
PGNs are written outside the repository, in `~/.local/share/black_numba/matches/` (see
[bench/README.md](../README.md)); a run that changes a figure gets its record, with the log
it cites, and the docs cite its id. The full notebook of earlier runs (every declaration, the
inventory's SPRT logs, PGNs, SPSA traces) is in the history:
`git show 3f6e87c:bench/results/RUNS.md`, and the same for any file that was in this folder
at commit 3f6e87c; a log named here with "(history)" is in the history at commit bdf78f0
(`git show bdf78f0:` and its path), moved out to keep this folder small.
"""


class RecordError(ValueError):
    """A record that breaks the rules of this file."""


def load(path=None):
    """The records of a runs.jsonl (default: this repository's), in file order."""
    path = path or RECORDS
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise RecordError(f"{os.path.basename(path)} line {n}: not JSON: {e}") from e
    return out


def dump(records, path=None):
    with open(path or RECORDS, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def cell(record, field):
    """A table cell: the record's field, marked when the record holds more."""
    text = record.get(field)
    if text is None:
        return ""
    return text + MORE if field in record.get("details", {}) else text


def problems(records):
    """What is wrong with the records, one line each naming the run: [] when nothing."""
    out, seen = [], set()
    for n, r in enumerate(records, 1):
        name = f"run {r.get('id')!r} (line {n})"
        missing = [k for k in REQUIRED if k not in r]
        if missing:
            out.append(f"{name}: no {', '.join(missing)}")
            continue
        if not isinstance(r["id"], str) or not r["id"].strip():
            out.append(f"{name}: the id must be a non-empty string")
        if r["id"] in seen:
            out.append(f"{name}: a second record with this id")
        seen.add(r["id"])
        section = SECTION.get(r["section"])
        if section is None:
            out.append(f"{name}: no section {r['section']!r} (one of "
                       f"{', '.join(SECTION)})")
            continue
        if not isinstance(r["date"], str) or not DATE.match(r["date"]):
            out.append(f"{name}: the date {r['date']!r} does not start with YYYY-MM-DD")
        if not isinstance(r["commit"], list) or \
                not all(isinstance(c, str) and HEX.fullmatch(c) for c in r["commit"]):
            out.append(f"{name}: commit must be a list of hashes")
        fields = [field for _, field in section["columns"]]
        for field in sorted(set(fields) | {"conditions", "command", "verdict"}):
            value = r.get(field)
            if value is None and field not in fields:
                continue
            if not isinstance(value, str):
                out.append(f"{name}: {field} must be text" +
                           (" (its section shows it)" if field in fields else " or null"))
                continue
            if "\n" in value or "|" in value:
                out.append(f"{name}: {field} holds a line break or a '|'")
            if field in fields and len(cell(r, field)) > MAX_CELL:
                out.append(f"{name}: its {field} cell is {len(cell(r, field))} characters, "
                           f"over {MAX_CELL}: keep the full text in details.{field} and a "
                           "short one in the cell")
        details = r.get("details", {})
        if not isinstance(details, dict) or \
                not all(isinstance(v, str) for v in details.values()):
            out.append(f"{name}: details must map fields to text")
        if "slices" in r and not (isinstance(r["slices"], list) and
                                  all(isinstance(v, str) for v in r["slices"])):
            out.append(f"{name}: slices must be a list of text")
    return out


def wrap(text):
    return textwrap.fill(text, WIDTH, break_long_words=False, break_on_hyphens=False)


def render(records):
    """RUNS.md as the records make it."""
    by_section = {}
    for r in records:
        by_section.setdefault(r["section"], []).append(r)
    parts = [HEADER.format(more=MORE.strip())]
    for s in SECTIONS:
        rows = by_section.get(s["key"], [])
        if not rows:
            continue
        lines = [f"## {s['title']}", ""]
        if s.get("intro"):
            lines += [wrap(s["intro"]), ""]
        heads = ["run", "date"] + [h for h, _ in s["columns"]]
        lines.append("| " + " | ".join(heads) + " |")
        lines.append("| " + " | ".join("---" for _ in heads) + " |")
        for r in rows:
            cells = [r["id"], r["date"]] + [cell(r, f) for _, f in s["columns"]]
            lines.append("| " + " | ".join(cells) + " |")
        if s.get("outro"):
            lines += ["", wrap(s["outro"])]
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def check(records_path=None, runs_md=None):
    """Every problem of the records and of RUNS.md against them: [] when none."""
    records_path, runs_md = records_path or RECORDS, runs_md or RUNS_MD
    try:
        records = load(records_path)
    except (OSError, RecordError) as e:
        return [str(e)]
    found = problems(records)
    if found:
        return found
    want = render(records)
    try:
        with open(runs_md, encoding="utf-8") as f:
            have = f.read()
    except OSError as e:
        return [f"{os.path.basename(runs_md)}: {e}"]
    if have != want:
        have_lines, want_lines = have.splitlines(), want.splitlines()
        first = next((i for i, (a, b) in enumerate(zip(have_lines, want_lines)) if a != b),
                     min(len(have_lines), len(want_lines)))
        return [f"{os.path.basename(runs_md)} is not what runs.jsonl makes (first "
                f"difference at line {first + 1}): run `python3 tools/runs.py` and commit "
                "both"]
    return []


def write(records, runs_md=None):
    with open(runs_md or RUNS_MD, "w", encoding="utf-8") as f:
        f.write(render(records))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true",
                   help="fail when RUNS.md is not what the records make")
    p.add_argument("action", nargs="?", choices=("show", "set"))
    p.add_argument("id", nargs="?")
    p.add_argument("field", nargs="?")
    p.add_argument("text", nargs="?")
    p.add_argument("--append", action="store_true", help="set: add TEXT to a list field")
    a = p.parse_args(argv)
    if a.check:
        found = check()
        for line in found:
            print(f"runs: {line}", file=sys.stderr)
        return 1 if found else 0
    records = load()
    if a.action:
        found = [r for r in records if r["id"] == a.id]
        if not found:
            p.error(f"no run {a.id!r} in {os.path.relpath(RECORDS, ROOT)}")
        record = found[0]
        if a.action == "show":
            print(json.dumps(record, ensure_ascii=False, indent=1))
            return 0
        if a.field is None or a.text is None:
            p.error("set needs ID FIELD TEXT")
        if a.append:
            record.setdefault(a.field, []).append(a.text)
        else:
            record[a.field] = a.text
    found = problems(records)
    if found:
        print("\n".join(f"runs: {line}" for line in found), file=sys.stderr)
        return 1
    if a.action == "set":
        dump(records)
    write(records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
