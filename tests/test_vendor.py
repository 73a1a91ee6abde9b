"""The browser board's vendored chessboard (static/vendor/cm-chessboard, by
tools/vendor_board.py): an MIT cm-chessboard 8, byte for byte what VENDOR.json records, nothing
else in its folder, every relative import present, nothing loaded from outside the package."""
import hashlib
import json
import os
import re
import subprocess
import sys

from conftest import ROOT

VENDOR = os.path.join(ROOT, "black_numba", "frontends", "gui", "static", "vendor")
TARGET = os.path.join(VENDOR, "cm-chessboard")
# a remote reference: a scheme or a protocol-relative //; the brief's concern is http(s)
REMOTE = re.compile(r"^(?:https?:)?//", re.I)
# what a browser loads: ES-module imports/re-exports and import(); CSS url() and @import
JS_IMPORT = re.compile(r"""^\s*import\s*["']([^"']+)["']"""
                       r"""|^\s*(?:import|export)\b[^;'"]*?\bfrom\s*["']([^"']+)["']"""
                       r"""|\bimport\s*\(\s*["']([^"']+)["']""", re.M)
CSS_URL = re.compile(r"""url\(\s*["']?([^"')\s]+)|@import\s+["']([^"']+)["']""")


def manifest():
    with open(os.path.join(VENDOR, "VENDOR.json"), encoding="utf-8") as f:
        return json.load(f)


def read(rel):
    with open(os.path.join(TARGET, *rel.split("/")), encoding="utf-8") as f:
        return f.read()


def references(rel):
    text = read(rel)
    pattern = JS_IMPORT if rel.endswith(".js") else CSS_URL
    return ["".join(groups) for groups in pattern.findall(text)]


def test_version_8_under_mit_with_its_licence_file():
    m = manifest()
    assert m["name"] == "cm-chessboard"
    assert m["version"].startswith("8.")
    assert m["license"] == "MIT"
    assert re.fullmatch(r"[0-9a-f]{64}", m["tarball_sha256"])
    licence = read("LICENSE")
    assert licence.startswith("MIT License") and "Permission is hereby granted" in licence


def test_files_are_exactly_the_recorded_ones():
    files = manifest()["files"]
    assert "src/Chessboard.js" in files and "assets/chessboard.css" in files
    for rel, digest in files.items():
        with open(os.path.join(TARGET, *rel.split("/")), "rb") as f:
            assert hashlib.sha256(f.read()).hexdigest() == digest, rel
    present = {os.path.relpath(os.path.join(d, n), TARGET).replace(os.sep, "/")
               for d, _, names in os.walk(TARGET) for n in names}
    assert present == set(files)


def test_the_page_needs_are_there_and_every_import_resolves():
    files = manifest()["files"]
    for rel in ["src/extensions/markers/Markers.js", "src/extensions/arrows/Arrows.js",
                "src/extensions/promotion-dialog/PromotionDialog.js",
                "src/extensions/accessibility/Accessibility.js", "assets/pieces/standard.svg",
                "assets/extensions/markers/markers.svg", "assets/extensions/arrows/arrows.svg"]:
        assert rel in files
    imports = 0
    for rel in files:
        if rel.endswith(".js"):
            for ref in references(rel):
                target = os.path.normpath(os.path.join(os.path.dirname(rel), ref))
                assert target.replace(os.sep, "/") in files, f"{rel} imports {ref}"
                imports += 1
    assert imports > 20


def test_nothing_is_loaded_from_outside_the_package():
    checked = [rel for rel in manifest()["files"] if rel.endswith((".js", ".css"))]
    assert len(checked) > 10
    for rel in checked:
        remote = [ref for ref in references(rel) if REMOTE.match(ref)]
        assert remote == [], rel


def test_the_checks_catch_a_remote_import_and_a_remote_url():
    js = 'import {a} from "https://cdn.example/x.js"\n// import b from "https://c.d/e.js"\n'
    assert ["".join(g) for g in JS_IMPORT.findall(js)] == ["https://cdn.example/x.js"]
    css = '@import "https://fonts.example/f.css";\n.a { background: url( "//x.org/i.png") }'
    assert [a or b for a, b in CSS_URL.findall(css)] == ["https://fonts.example/f.css",
                                                          "//x.org/i.png"]


def test_piece_set_licence_recorded_as_the_sprite_states_it():
    pieces = manifest()["pieces"]
    assert pieces["file"] in manifest()["files"]
    assert pieces["license"] == "Attribution-ShareAlike 3.0 Unported (CC BY-SA 3.0)"
    assert pieces["source"].startswith("https://commons.wikimedia.org/")
    assert any("Cburnett" in a for a in pieces["authors"])
    assert pieces["notice"] in read(pieces["file"])


def test_the_vendoring_tool_checks_the_copy_offline():
    """tools/vendor_board.py --check: every vendored file against VENDOR.json, offline."""
    tool = os.path.join(ROOT, "tools", "vendor_board.py")
    r = subprocess.run([sys.executable, tool, "--check"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert f"{len(manifest()['files'])} files match VENDOR.json" in r.stdout
