"""tools/check_records.py and tools/runs.py: each kind of broken record fails, naming the
record and why. Every check runs on a small copy in a temporary folder, never on the
repository's own records (CI checks those as a step of its own)."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import check_records  # noqa: E402
import runs  # noqa: E402

RUN = {"id": "X1", "section": "other", "date": "2026-12-01", "commit": [],
       "build": "the engine of one commit", "conditions": "100 games at 10+0.1",
       "command": "bench/matches.py glaurung --games 100", "result": "55 - 30 - 15, 62.5%",
       "verdict": None, "log": "`x1.txt`"}


def _git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   timeout=60)


def _repo(root):
    """A git repository with one commit; its hash."""
    _git(root, "init", "-q")
    (root / "f").write_text("x\n")
    _git(root, "add", "f")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()


def _write(root, name, text):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _results(root, records):
    """bench/results with these run records and the RUNS.md they make."""
    folder = root / "bench" / "results"
    folder.mkdir(parents=True, exist_ok=True)
    runs.dump(records, folder / "runs.jsonl")
    runs.write(records, folder / "RUNS.md")
    return folder


def test_the_scanners_find_what_they_should():
    text = ("Kept in commit 7666e37, as\ncommit 3f6e87c says; `git show 5dd411e:x` and "
            "[log](../bench/results/sf_dc2e2ec.txt) are commands and files; the net 8ff53fad; "
            "Commit ABCDEF0 is not a hash; 0831086 is bare.")
    assert [h for _, h in check_records.commit_refs(text)] == ["7666e37", "3f6e87c"]
    assert [t for _, t in check_records.bare_hashes(text)] == ["8ff53fad", "0831086"]


def test_slugs_as_github_makes_them():
    assert check_records.slug("The final tests (2026-11-25)") == "the-final-tests-2026-11-25"
    assert check_records.slug("`black-numba style`: the report") == \
        "black-numba-style-the-report"
    assert check_records.anchors("# A\n## A\n```\n# not\n```\n## B, c.") == {"a", "a-1", "b-c"}


def test_a_cited_commit_must_be_in_the_repository(tmp_path):
    head = _repo(tmp_path)
    _write(tmp_path, "README.md", f"Made in commit {head[:7]}.\n")
    assert check_records.check_commits(str(tmp_path)) == []
    _write(tmp_path, "docs/a.md", f"# A\n\nAs in commit 0000000, and {head[:9]} bare, "
                                  "from cand/x today.\n")
    _results(tmp_path, [dict(RUN, commit=["1234567"])])
    found = check_records.check_commits(str(tmp_path))
    assert "docs/a.md:3: commit 0000000 is not in this repository" in found[0]
    assert any(f"docs/a.md:3: {head[:9]} names a commit: write it" in p for p in found)
    assert any("docs/a.md:3: cand/x is a branch" in p for p in found)
    assert any(p.startswith("bench/results/runs.jsonl:1 (run X1): its \"commit\" list names "
                            "1234567") for p in found)


def test_the_commits_need_a_checkout(tmp_path):
    _write(tmp_path, "README.md", "commit 1234567\n")
    found = check_records.check_commits(str(tmp_path))
    assert len(found) == 1 and "is not a git checkout" in found[0]


def test_links_files_and_anchors_must_exist(tmp_path):
    _write(tmp_path, "README.md", "See [a](docs/a.md#usage).\n")
    _write(tmp_path, "docs/a.md", "# A\n\n## Usage\n\n[back](../README.md), "
                                  "`bench/results/x1.txt`\n")
    _results(tmp_path, [dict(RUN, result="see [a](../../docs/a.md#usage)")])
    _write(tmp_path, "bench/results/x1.txt", "log\n")
    _write(tmp_path, "bench/README.md", "# bench\n")      # RUNS.md links it
    assert check_records.check_links(str(tmp_path)) == []
    _write(tmp_path, "README.md", "See [a](docs/a.md#usage) and [b](docs/b.md).\n")
    _write(tmp_path, "docs/a.md", "# A\n\n## Use\n\n[back](../README.md), "
                                  "`bench/results/x2.txt`\n")
    found = check_records.check_links(str(tmp_path))
    assert "README.md:1: the link docs/a.md#usage finds no heading #usage in docs/a.md" in found
    assert "README.md:1: the link docs/b.md finds no file" in found
    assert "docs/a.md:5: bench/results/x2.txt is not in the repository" in found
    assert any(p.startswith("bench/results/runs.jsonl:1 (run X1): the link "
                            "../../docs/a.md#usage finds no heading") for p in found)


def test_runs_md_must_be_what_the_records_make(tmp_path):
    folder = _results(tmp_path, [RUN])
    _write(tmp_path, "bench/results/x1.txt", "log\n")
    assert check_records.check_runs(str(tmp_path)) == []
    text = (folder / "RUNS.md").read_text()
    (folder / "RUNS.md").write_text(text.replace("62.5%", "63.5%"))
    found = check_records.check_runs(str(tmp_path))
    assert len(found) == 1 and "RUNS.md is not what runs.jsonl makes" in found[0]
    assert "python3 tools/runs.py" in found[0]


@pytest.mark.parametrize("change, why", [
    ({"result": "x" * 301}, "its result cell is 301 characters, over 300"),
    ({"date": "Dec 1"}, "the date 'Dec 1' does not start with YYYY-MM-DD"),
    ({"section": "nowhere"}, "no section 'nowhere'"),
    ({"commit": "abc1234"}, "commit must be a list of hashes"),
    ({"build": "a | b"}, "build holds a line break or a '|'"),
    ({"verdict": 3}, "verdict must be text"),
])
def test_a_record_that_breaks_the_rules_is_named(tmp_path, change, why):
    folder = _results(tmp_path, [RUN])
    runs.dump([RUN, dict(RUN, id="X2", **change)], folder / "runs.jsonl")
    found = check_records.check_runs(str(tmp_path))
    assert any(p.startswith("run 'X2' (line 2): ") and why in p for p in found), found


def test_a_missing_field_a_second_id_and_a_missing_log_are_named(tmp_path):
    folder = _results(tmp_path, [RUN])
    lacking = {k: v for k, v in RUN.items() if k != "verdict"}
    runs.dump([RUN, dict(RUN), dict(lacking, id="X3")], folder / "runs.jsonl")
    found = check_records.check_runs(str(tmp_path))
    assert "run 'X1' (line 2): a second record with this id" in found
    assert "run 'X3' (line 3): no verdict" in found
    (folder / "runs.jsonl").write_text("{not json\n")
    assert "not JSON" in check_records.check_runs(str(tmp_path))[0]
    _results(tmp_path, [dict(RUN, details={"result": "and `x9.log` too"})])
    found = check_records.check_runs(str(tmp_path))
    assert any(p.startswith("bench/results/runs.jsonl:1 (run X1): names the log x1.txt")
               for p in found)
    assert any("names the log x9.log" in p for p in found)


def test_the_run_log_tool_writes_shows_and_sets(tmp_path, monkeypatch):
    folder = _results(tmp_path, [RUN, dict(RUN, id="X2", section="strength",
                                           result="short", details={"result": "long"})])
    monkeypatch.setattr(runs, "RECORDS", str(folder / "runs.jsonl"))
    monkeypatch.setattr(runs, "RUNS_MD", str(folder / "RUNS.md"))
    text = (folder / "RUNS.md").read_text()
    assert text.index("## Strength of the shipped build") < text.index("## Other figures")
    assert "| X2 | 2026-12-01 | the engine of one commit | 100 games at 10+0.1 | short ... |" \
        in text
    assert runs.main(["set", "X1", "slices", "slice 1: 10 games", "--append"]) == 0
    assert runs.main(["set", "X1", "result", "60 - 30 - 10, 65.0%"]) == 0
    assert runs.load(folder / "runs.jsonl")[0]["slices"] == ["slice 1: 10 games"]
    assert "| 60 - 30 - 10, 65.0% |" in (folder / "RUNS.md").read_text()
    assert runs.main(["--check"]) == 0
    assert runs.main(["set", "X1", "result", "y" * 400]) == 1      # refused, nothing written
    assert runs.load(folder / "runs.jsonl")[0]["result"] == "60 - 30 - 10, 65.0%"


def test_the_results_folder_holds_no_pgn_and_stays_small(tmp_path, monkeypatch):
    folder = _results(tmp_path, [RUN])
    assert check_records.check_results(str(tmp_path)) == []
    _write(tmp_path, "bench/results/games.pgn", "[Event \"x\"]\n")
    _write(tmp_path, "bench/results/moves.jsonl", '{"ply": 1}\n')
    monkeypatch.setattr(check_records, "RESULTS_MAX_BYTES", 100)
    found = check_records.check_results(str(tmp_path))
    assert found[0].startswith("bench/results: ") and "over 100" in found[0]
    assert "bench/results/games.pgn: a PGN or per-game log" in found[1]
    assert "bench/results/moves.jsonl: a PGN or per-game log" in found[2]
    assert os.path.isfile(folder / "runs.jsonl")                   # the run records pass


def test_the_readme_stays_short(tmp_path):
    _write(tmp_path, "README.md", "x" * check_records.README_MAX_BYTES)
    assert check_records.check_readme(str(tmp_path)) == []
    _write(tmp_path, "README.md", "x" * (check_records.README_MAX_BYTES + 1))
    assert check_records.check_readme(str(tmp_path)) == ["README.md: 12,289 bytes, over "
                                                         "12,288: move the how-to into docs/"]


def _data(tmp_path):
    """data/ with two datagen chunks of one seed and a relabelled one, as the manifest of a
    repository lists them."""
    from black_numba.provenance import file_sha256
    from black_numba.training import chunks
    from test_chunks import _folder, _random_games
    folder = _folder(tmp_path, [_random_games(3, seed=1), _random_games(2, seed=2),
                                _random_games(2, seed=3)])
    man = chunks.read_manifest(folder)
    first, second, third = man["chunks"]
    for e, (a, b) in ((first, (0, 3)), (second, (3, 5))):
        e.update(source="datagen", command="datagen ...", commit="abc1234", seed=7,
                 games_from=a, games_to=b, network="0ece2822")
    third.update(source="relabel", command="data relabel ...", commit="abc1234",
                 labeller="stockfish", nodes=5000, select="endgames", **{"from": "c0.bnc"},
                 from_sha256=file_sha256(folder / "c0.bnc"), games=2)
    chunks.write_manifest(folder, man)
    return folder, man


def test_data_must_match_its_manifest(tmp_path):
    from black_numba.training import chunks
    folder, man = _data(tmp_path)
    assert check_records.check_data(str(tmp_path)) == []
    first, second, third = man["chunks"]
    del first["network"]
    second["games_from"] = 4
    third["from_sha256"] = "0" * 64
    chunks.write_manifest(folder, man)
    (folder / "stray.bnc").write_bytes(b"x")
    found = check_records.check_data(str(tmp_path))
    assert "data/manifest.json: c0.bnc: no network" in found
    assert "data/manifest.json: c1.bnc: games 4-5 is not 2 games" in found
    assert "data/manifest.json: c2.bnc: labels another version of c0.bnc (SHA-256 differs)" \
        in found
    assert any(p.startswith("data/: ") and "stray.bnc: not in the manifest" in p for p in found)


def test_data_within_its_budget_and_its_seeds_unbroken(tmp_path, monkeypatch):
    from black_numba.training import chunks
    folder, man = _data(tmp_path)
    man["chunks"][1].update(games_from=4, games_to=6)
    chunks.write_manifest(folder, man)
    monkeypatch.setattr(check_records, "DATA_BUDGET_BYTES", 10)
    found = check_records.check_data(str(tmp_path))
    assert any(p.startswith("data/: ") and "over the budget 10" in p for p in found)
    assert "data/manifest.json: c1.bnc (seed 7) starts at game 4, not where c0.bnc ends (3)" \
        in found


def _strength(tmp_path, bench=None):
    """A copy of the shipped table, network and the pinned bench signature."""
    from black_numba.search import strength
    table = json.loads(open(strength.TABLE_FILE, encoding="utf-8").read())
    _write(tmp_path, "black_numba/search/strength_table.json", json.dumps(table))
    (tmp_path / "black_numba" / "nets").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "black_numba", "nets", "default.bnn"),
                tmp_path / "black_numba" / "nets" / "default.bnn")
    pinned = table["stamp"]["bench"] if bench is None else bench
    _write(tmp_path, "tests/test_bench.py", f"BENCH_SIGNATURE = {pinned}\n")
    return table


def test_the_strength_table_must_be_stamped_for_the_shipped_engine(tmp_path):
    table = _strength(tmp_path)
    name = os.path.join("black_numba", "search", "strength_table.json")
    table["stamp"]["network"] = "f" * 64
    table["stamp"]["date"] = "yesterday"
    _write(tmp_path, name, json.dumps(table))
    found = check_records.check_strength(str(tmp_path))
    assert any(p.startswith(f"{name}: the stamp's network ffffffffffffffff is not the shipped")
               for p in found)
    assert f"{name}: the stamp's date 'yesterday' is not YYYY-MM-DD" in found


def test_the_strength_table_must_name_the_pinned_bench(tmp_path):
    table = _strength(tmp_path, bench=1)
    found = check_records.check_strength(str(tmp_path))
    assert len(found) == 1 and found[0].startswith(
        f"black_numba/search/strength_table.json: the stamp's bench {table['stamp']['bench']} "
        "is not the signature tests/test_bench.py pins (1)")
    _write(tmp_path, "black_numba/search/strength_table.json", "{}")
    assert "not a format 1 table" in check_records.check_strength(str(tmp_path))[0]


def test_the_command_names_each_problem_and_fails(tmp_path):
    _write(tmp_path, "README.md", "x" * (check_records.README_MAX_BYTES + 1))
    tool = os.path.join(ROOT, "tools", "check_records.py")
    r = subprocess.run([sys.executable, tool, "--root", str(tmp_path), "--only", "readme"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert r.stdout.startswith("check-records: readme: README.md: 12,289 bytes")
    _write(tmp_path, "README.md", "short\n")
    r = subprocess.run([sys.executable, tool, "--root", str(tmp_path), "--only", "readme"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "no problem" in r.stdout
