#!/usr/bin/env python3
"""Vendor the browser board's chessboard (cm-chessboard, MIT, ES modules, no build step) into
black_numba/frontends/gui/static/vendor/cm-chessboard/, and check the vendored copy.

    python3 tools/vendor_board.py             # re-vendor VENDOR.json's version (npm pack)
    python3 tools/vendor_board.py --update [--version 8.15.1]  # another version: new hash
    python3 tools/vendor_board.py --check     # offline: every file against VENDOR.json

Re-vendoring runs `npm pack cm-chessboard@VERSION` in a temporary folder, refuses a tarball
whose SHA-256 differs from VENDOR.json's (unless --update), copies FILES (what the page loads:
the board, its markers, arrows, promotion-dialog and accessibility extensions with everything
they import, their CSS and SVG sprites, the licence) straight out of the tarball and rewrites
VENDOR.json: the package's licence, each file's SHA-256, and the licence notices the SVG
sprites carry (the piece set is Wikimedia's, CC BY-SA 3.0, not MIT). Exit status 1 on any
mismatch, with the reason.
"""
import argparse
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from black_numba.provenance import file_sha256  # noqa: E402  (this checkout's package)

VENDOR_DIR = os.path.join(ROOT, "black_numba", "frontends", "gui", "static", "vendor")
MANIFEST = os.path.join(VENDOR_DIR, "VENDOR.json")
PACKAGE = "cm-chessboard"
TARGET = os.path.join(VENDOR_DIR, PACKAGE)
TAR_PREFIX = "package/"                  # npm pack puts every file under package/
MAJOR = "8."                             # the board is written against cm-chessboard 8's API
NPM_TIMEOUT_S = 300
PIECES = "assets/pieces/standard.svg"    # the sprite the board's default props name
# the page's run-time files, paths inside the npm package; a relative import in one of the
# .js files must name another (checked on every vendoring)
FILES = [
    "LICENSE",
    "src/Chessboard.js",
    "src/lib/Svg.js",
    "src/lib/Utils.js",
    "src/model/ChessboardState.js",
    "src/model/Extension.js",
    "src/model/Position.js",
    "src/view/ChessboardView.js",
    "src/view/PositionAnimationsQueue.js",
    "src/view/VisualMoveInput.js",
    "src/extensions/accessibility/Accessibility.js",
    "src/extensions/accessibility/I18n.js",
    "src/extensions/arrows/Arrows.js",
    "src/extensions/markers/Markers.js",
    "src/extensions/promotion-dialog/PromotionDialog.js",
    "assets/chessboard.css",
    "assets/extensions/arrows/arrows.css",
    "assets/extensions/arrows/arrows.svg",
    "assets/extensions/markers/markers.css",
    "assets/extensions/markers/markers.svg",
    "assets/extensions/promotion-dialog/promotion-dialog.css",
    PIECES,
]
# what a browser fetches from a .js file: static imports (`import X from "p"`, `import "p"`),
# re-exports (`export X from "p"`) and dynamic `import("p")`; a line comment never starts
# with `import`, so commented-out imports do not count
JS_IMPORT = re.compile(r"""^\s*import\s*["']([^"']+)["']"""
                       r"""|^\s*(?:import|export)\b[^;'"]*?\bfrom\s*["']([^"']+)["']"""
                       r"""|\bimport\s*\(\s*["']([^"']+)["']""", re.M)
# what a browser fetches from a .css file: url(...) and @import "..."
CSS_URL = re.compile(r"""url\(\s*["']?([^"')\s]+)|@import\s+["']([^"']+)["']""")
REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)   # a scheme or protocol-relative
SVG_NOTICE = re.compile(r"<!--(.*?)-->", re.S)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def fail(text):
    sys.exit(f"vendor_board: {text}")


def load_manifest():
    try:
        with open(MANIFEST, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        fail(f"no {os.path.relpath(MANIFEST, ROOT)}: run with --update --version 8.X.Y first")
    except json.JSONDecodeError as e:
        fail(f"{os.path.relpath(MANIFEST, ROOT)} is not JSON: {e}")


def npm_pack(version, folder):
    """The npm registry's tarball of PACKAGE@version, as bytes."""
    try:
        r = subprocess.run(["npm", "pack", "--json", f"{PACKAGE}@{version}"], cwd=folder,
                           capture_output=True, text=True, timeout=NPM_TIMEOUT_S)
    except FileNotFoundError:
        fail("npm is not installed (re-vendoring needs it; --check does not)")
    except subprocess.TimeoutExpired:
        fail(f"npm pack {PACKAGE}@{version}: no answer in {NPM_TIMEOUT_S} s")
    if r.returncode != 0:
        fail(f"npm pack {PACKAGE}@{version} failed:\n{r.stderr.strip()}")
    try:
        name = json.loads(r.stdout)[0]["filename"]
    except (ValueError, LookupError, TypeError):
        fail(f"npm pack {PACKAGE}@{version}: unexpected output:\n{r.stdout.strip()}")
    with open(os.path.join(folder, name), "rb") as f:
        return f.read()


def js_imports(text):
    return ["".join(groups) for groups in JS_IMPORT.findall(text)]


def remote_references(path, text):
    """The URLs outside the package that `path` (a .js or .css) would load at run time."""
    if path.endswith(".js"):
        refs = js_imports(text)
    elif path.endswith(".css"):
        refs = [a or b for a, b in CSS_URL.findall(text)]
    else:
        return []
    return [r for r in refs if REMOTE.match(r) and not r.startswith("data:")]


def unresolved_imports(contents):
    """(file, import) for each relative import of a vendored .js that names no vendored file."""
    missing = []
    for path, data in contents.items():
        if path.endswith(".js"):
            for ref in js_imports(data.decode("utf-8")):
                target = os.path.normpath(os.path.join(os.path.dirname(path), ref))
                if not REMOTE.match(ref) and target.replace(os.sep, "/") not in contents:
                    missing.append((path, ref))
    return missing


def svg_notice(data):
    """The licence comment an SVG sprite opens with, verbatim ('' when it has none)."""
    text = data.decode("utf-8")
    m = SVG_NOTICE.search(text, 0, max(text.find("<svg"), 0))
    return m.group(1).strip() if m else ""


def pieces_entry(notice):
    """VENDOR.json's "pieces": what the piece sprite's own notice says, parsed and verbatim."""
    lic = re.search(r"^License:\s*(.+)$", notice, re.M)
    if not lic:
        fail(f"{PIECES} states no licence: check the piece set's terms by hand before "
             "vendoring it")
    urls = re.findall(r"https?://\S+", notice)
    authors = re.findall(r"^-\s*(\S+)", notice.split("Authors:", 1)[-1], re.M)
    return {"file": PIECES, "license": lic.group(1).strip(),
            "license_url": next((u for u in urls if "creativecommons" in u), ""),
            "source": urls[0] if urls else "", "authors": authors, "notice": notice}


def vendor(version, expected_sha):
    with tempfile.TemporaryDirectory() as tmp:
        tarball = npm_pack(version, tmp)
    digest = sha256(tarball)
    if expected_sha is not None and digest != expected_sha:
        fail(f"{PACKAGE}@{version}: tarball SHA-256 {digest}, VENDOR.json says {expected_sha} "
             "(a republished package? check it, then --update)")
    contents = {}
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as tf:
        meta = json.load(tf.extractfile(TAR_PREFIX + "package.json"))
        for path in FILES:
            try:
                member = tf.extractfile(TAR_PREFIX + path)
            except KeyError:
                member = None
            if member is None:
                fail(f"{PACKAGE}@{version} has no {path}: update FILES in this script")
            contents[path] = member.read()
    if not str(meta.get("version", "")).startswith(MAJOR):
        fail(f"{PACKAGE}@{meta.get('version')} is not {MAJOR}x: the board uses its API")
    if meta.get("license") != "MIT" or b"MIT" not in contents["LICENSE"]:
        fail(f"{PACKAGE}@{version}: licence {meta.get('license')!r}, not MIT")
    problems = [f"{p} imports {r}, not vendored: add it to FILES"
                for p, r in unresolved_imports(contents)]
    problems += [f"{p} loads {u} from outside the package"
                 for p, data in contents.items()
                 for u in remote_references(p, data.decode("utf-8", "replace"))]
    if problems:
        fail("\n  ".join(["refusing to vendor:"] + problems))
    svg_licenses = {p: svg_notice(d) for p, d in contents.items() if p.endswith(".svg")}
    shutil.rmtree(TARGET, ignore_errors=True)       # no stale files from another version
    for path, data in contents.items():
        dest = os.path.join(TARGET, *path.split("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(data)
    manifest = {
        "name": PACKAGE, "version": meta["version"], "license": meta["license"],
        "homepage": meta.get("homepage", ""), "tarball_sha256": digest,
        "files": {p: sha256(contents[p]) for p in sorted(contents)},
        "pieces": pieces_entry(svg_licenses[PIECES]),
        "svg_licenses": {p: n for p, n in sorted(svg_licenses.items()) if n and p != PIECES},
    }
    with open(MANIFEST, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    print(f"vendor_board: {PACKAGE}@{meta['version']} ({len(contents)} files, tarball "
          f"{digest[:12]}) in {os.path.relpath(TARGET, ROOT)}")


def check():
    """Offline: the vendored files are exactly VENDOR.json's, byte for byte."""
    manifest = load_manifest()
    files = manifest.get("files") or {}
    problems = []
    for path, digest in sorted(files.items()):
        full = os.path.join(TARGET, *path.split("/"))
        if not os.path.isfile(full):
            problems.append(f"missing: {path}")
        else:
            if file_sha256(full) != digest:
                problems.append(f"changed: {path}")
    for folder, _, names in os.walk(TARGET):
        for name in names:
            rel = os.path.relpath(os.path.join(folder, name), TARGET).replace(os.sep, "/")
            if rel not in files:
                problems.append(f"not in VENDOR.json: {rel}")
    if not files or problems:
        fail("\n  ".join([f"{os.path.relpath(TARGET, ROOT)} differs from VENDOR.json:"] +
                         (problems or ["VENDOR.json lists no files"])))
    print(f"vendor_board: {manifest['name']}@{manifest['version']}: {len(files)} files match "
          "VENDOR.json")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="verify the vendored files against VENDOR.json (no network)")
    mode.add_argument("--update", action="store_true",
                      help="accept the tarball's hash (a new version, or a first vendoring)")
    ap.add_argument("--version", help="the version to vendor (default VENDOR.json's; a "
                                      "different one needs --update)")
    args = ap.parse_args()
    if args.check:
        if args.version:
            ap.error("--check verifies VENDOR.json's version: no --version")
        return check()
    if args.version and not re.fullmatch(r"\d+\.\d+\.\d+", args.version):
        ap.error(f"--version: {args.version!r} is not a version like 8.15.1")
    if args.update:
        version = args.version or load_manifest()["version"]
        return vendor(version, None)
    manifest = load_manifest()
    if args.version and args.version != manifest["version"]:
        ap.error(f"--version {args.version} is not VENDOR.json's {manifest['version']}: "
                 "add --update")
    vendor(manifest["version"], manifest["tarball_sha256"])


if __name__ == "__main__":
    main()
