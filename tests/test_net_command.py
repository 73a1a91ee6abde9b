"""`black-numba net info NET [--describe]`: a network file's name in the logs (its weights
hash), and its architecture and training data, read from the file's own header."""
import json
import os
import struct

from black_numba.frontends.cli import main
from conftest import ROOT

NET = os.path.join(ROOT, "black_numba", "nets", "default.bnn")


def _header(path):
    """The JSON header of a .bnn file, read from its bytes (magic, version, length)."""
    with open(path, "rb") as f:
        data = f.read()
    length = struct.unpack("<I", data[12:16])[0]
    return json.loads(data[16:16 + length])


def test_info_prints_the_weights_hash(capsys):
    assert main(["net", "info", NET]) == 0
    assert capsys.readouterr().out == _header(NET)["weights_sha256"][:16] + "\n"


def test_describe_gives_architecture_hash_and_data(capsys):
    head = _header(NET)
    assert main(["net", "info", NET, "--describe"]) == 0
    data = ",".join(head.get("trained", {}).get("data", []))
    assert capsys.readouterr().out == \
        f"{head['architecture']} {head['weights_sha256'][:16]} data {data}\n"


def test_a_file_that_is_no_network_is_refused(tmp_path, capsys):
    bad = tmp_path / "x.bnn"
    bad.write_bytes(b"not a network")
    assert main(["net", "info", str(bad)]) == 2
    assert "not a black_numba network file" in capsys.readouterr().err
    assert main(["net", "info", str(tmp_path / "missing.bnn")]) == 2
    assert "cannot read network file" in capsys.readouterr().err
