"""Datagen on a real Dask cluster: a `dask scheduler` and two `dask worker` processes on
127.0.0.1. The file is byte-identical to a local run's whatever the workers, a resumed run
continues it, and a worker killed mid-run loses no game and writes none twice."""
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from conftest import ENGINE

DASK = os.path.join(os.path.dirname(sys.executable), "dask")
# games at 300 nodes a move, labelled by our own engine at 200 nodes: the labeller's path is
# a worker setting ($BLACK_NUMBA_RESCORE), so the client names one its own machine lacks
RECIPE = ["--nodes", "300", "--seed", "7", "--task-games", "1", "--rescore-nodes", "200"]
POSITIONS = 600


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _datagen(out, positions, *extra, timeout=600):
    r = subprocess.run([ENGINE, "datagen", "--positions", str(positions), "--out", str(out)]
                       + RECIPE + list(extra), capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr[-3000:]
    return r


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """(address, [worker processes]) of a scheduler and two one-thread workers."""
    logs = tmp_path_factory.mktemp("dask")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], stdout=subprocess.DEVNULL,
                              stderr=open(logs / "scheduler.log", "w"))]
    env = dict(os.environ, BLACK_NUMBA_RESCORE=ENGINE)
    for i in range(2):
        procs.append(subprocess.Popen([DASK, "worker", address, "--nthreads", "1",
                                       "--no-nanny", "--no-dashboard", "--name", f"w{i}"],
                                      env=env, stdout=subprocess.DEVNULL,
                                      stderr=open(logs / f"worker{i}.log", "w")))
    from distributed import Client
    with Client(address, timeout=60) as c:
        c.wait_for_workers(2, timeout=120)
    yield address, procs[1:]
    for p in procs[::-1]:                                   # workers first, then the scheduler
        if p.poll() is None:
            p.terminate()
    for p in procs[::-1]:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The same recipe on a local cluster of one worker, labelled by our engine."""
    out = tmp_path_factory.mktemp("ref")
    _datagen(out, POSITIONS, "--jobs", "1", "--rescore", ENGINE)
    return (out / "datagen_s7.txt").read_bytes()


@pytest.mark.slow
def test_a_cluster_makes_the_local_runs_bytes_and_resumes(cluster, reference, tmp_path):
    address, _ = cluster
    out = tmp_path / "d"
    _datagen(out, 150, "--scheduler", address, "--rescore", "not-on-this-machine")
    part = (out / "datagen_s7.txt").read_bytes()
    assert 0 < len(part) < len(reference) and reference.startswith(part)
    _datagen(out, POSITIONS, "--scheduler", address, "--rescore", "not-on-this-machine")
    assert (out / "datagen_s7.txt").read_bytes() == reference
    prog = json.loads((out / "datagen_s7.progress").read_text())
    assert prog["positions"] == reference.count(b"\n") >= POSITIONS
    assert prog["labeller"].startswith("black_numba")
    # the first games made again on the cluster compare equal
    r = _datagen(out, POSITIONS, "--scheduler", address, "--rescore", "x", "--verify", "3")
    assert "identical" in r.stderr


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_no_game(cluster, reference, tmp_path):
    address, workers = cluster
    out = tmp_path / "k"
    p = subprocess.Popen([ENGINE, "datagen", "--positions", str(POSITIONS), "--out", str(out),
                          "--scheduler", address, "--rescore", "x"] + RECIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    prog = out / "datagen_s7.progress"
    end = time.time() + 300
    while not prog.exists() and time.time() < end and p.poll() is None:
        time.sleep(0.05)
    assert prog.exists() and p.poll() is None, "no task finished"
    assert json.loads(prog.read_text())["positions"] < POSITIONS
    workers[1].send_signal(signal.SIGKILL)                 # busy with a task of its own
    workers[1].wait(timeout=30)
    assert p.poll() is None                                 # killed while the run went on
    _, err = p.communicate(timeout=600)
    assert p.returncode == 0, err[-3000:]
    assert (out / "datagen_s7.txt").read_bytes() == reference


def test_a_bad_scheduler_address_is_one_clear_error(tmp_path):
    r = subprocess.run([ENGINE, "datagen", "--positions", "10", "--out", str(tmp_path),
                        "--scheduler", f"tcp://127.0.0.1:{_free_port()}"] + RECIPE,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    # a port nobody listens on is said at once, not after the client's retries
    assert "datagen: cannot connect to the scheduler at tcp://127.0.0.1:" in r.stderr


def test_bad_datagen_arguments_exit_2(tmp_path):
    for args in (["--positions", "0"], ["--task-games", "0"], ["--opponent-nodes", "0"],
                 ["--opponent-depth", "0"], ["--opponent-depth", "4"],
                 ["--evalfile", str(tmp_path / "none.bnn")]):
        r = subprocess.run([ENGINE, "datagen", "--out", str(tmp_path)] + args,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.startswith("datagen: ") or "\ndatagen: " in r.stderr


def test_a_folder_of_another_run_is_refused_before_any_game(tmp_path):
    """generate() and verify() raise ValueError, touching nothing, for a folder whose run
    starts at another game or has no run of the seed; the command says so and exits 2."""
    from black_numba.training.datagen import DatagenConfig, generate, verify
    prog = tmp_path / "datagen_s3.progress"
    prog.write_text(json.dumps({"games": 8, "bytes": 0, "positions": 0, "task_games": 8,
                                "first_game": 0, "network": "tapered", "opponent": None}))
    with pytest.raises(ValueError, match="is a run from game 0; --first-game 16"):
        generate(DatagenConfig(seed=3, out=str(tmp_path), evaluation="tapered",
                               first_game=16))
    assert sorted(os.listdir(tmp_path)) == ["datagen_s3.progress"]
    with pytest.raises(ValueError, match="no run of seed 4 in"):
        verify(DatagenConfig(seed=4, out=str(tmp_path)), 8)
    r = subprocess.run([ENGINE, "datagen", "--seed", "4", "--out", str(tmp_path), "--verify",
                        "8"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and r.stderr.startswith("datagen: no run of seed 4 in"), r.stderr


def test_a_game_does_not_depend_on_the_games_a_worker_played_before():
    """The same game number gives the same bytes on a fresh worker and on one that has
    played other games first (the table's age is reset with the table every game)."""
    from black_numba.training import datagen
    conf = {"nodes": 300, "eval": "tapered", "rescore": None, "rescore_nodes": 1,
            "format": "text", "net_sha": None}
    datagen._WORKER.clear()
    fresh = datagen.play_task(5, 70, 1, conf, None)["data"]
    datagen.play_task(5, 0, 69, conf, None)                # 69 games: the age wraps past 63
    assert datagen.play_task(5, 70, 1, conf, None)["data"] == fresh


STOCKFISH = "/usr/games/stockfish"


def test_an_opponent_plays_its_side_of_every_game(tmp_path):
    """With an opponent, its colour's moves are the ones it chose (Stockfish at 200 nodes
    asked again with the same commands: White in odd games, Black in even ones), ours the
    rest, and the game is the same bytes on a worker that played before."""
    import chess
    from black_numba.board.position import from_fen, make_move, move_to_uci
    from black_numba.board.bitboard import TABLES
    from black_numba.training import datagen
    from black_numba.training.gamefile import GAME_MAGIC, read_games
    from black_numba.training.refengine import RefEngine
    if not os.path.exists(STOCKFISH):
        pytest.fail(f"{STOCKFISH} is missing: `python3 bin/bootstrap test` installs it")
    conf = {"nodes": 300, "eval": "tapered", "rescore": None, "rescore_nodes": 1,
            "format": "games", "net_sha": None, "opponent": STOCKFISH, "opponent_nodes": 200}
    datagen._WORKER.clear()
    res = datagen.play_task(9, 0, 2, conf, None)
    assert res["opponent"].startswith("Stockfish")
    path = tmp_path / "g.bng"
    path.write_bytes(GAME_MAGIC + res["data"])
    games = list(read_games(str(path)))
    assert len(games) == 2
    for g, (start, plies, _) in enumerate(games):
        side = chess.WHITE if g % 2 == 1 else chess.BLACK
        ref = RefEngine(STOCKFISH, {"Threads": 1, "Hash": 16}, analyse=False)
        pos, board, played, theirs = from_fen(start), chess.Board(start), [], 0
        try:
            for m, _ in plies:
                text = move_to_uci(m)
                if board.turn == side:
                    assert ref.bestmove(start, played, 200, g) == text
                    theirs += 1
                make_move(TABLES, pos, m)
                played.append(text)
                board.push_uci(text)
        finally:
            ref.close()
        assert theirs >= 10 and abs(len(plies) - 2 * theirs) <= 1
    again = datagen.play_task(9, 1, 1, conf, None)["data"]
    assert len(again) > 100 and res["data"].endswith(again)


ETHEREAL = "/usr/games/ethereal-chess"


def test_an_opponent_that_ignores_go_nodes_is_refused_and_plays_at_a_depth(tmp_path):
    """Ethereal 12 answers `go nodes 4000` after depth 1 (6 nodes): a worker refuses it at
    nodes, with the reason, and plays it at --opponent-depth, its moves those it chooses at
    that depth; Stockfish honours the node limit."""
    import chess
    from black_numba.board.position import move_to_uci
    from black_numba.training import datagen
    from black_numba.training.gamefile import GAME_MAGIC, read_games
    from black_numba.training.refengine import EngineError, RefEngine
    for path in (ETHEREAL, STOCKFISH):
        if not os.path.exists(path):
            pytest.fail(f"{path} is missing: `python3 bin/bootstrap test` installs it")
    sf = RefEngine(STOCKFISH, {"Threads": 1, "Hash": 16}, analyse=False)
    try:
        assert 1000 <= sf.searched_nodes(2000) <= 4000
    finally:
        sf.close()
    conf = {"nodes": 300, "eval": "tapered", "rescore": None, "rescore_nodes": 1,
            "format": "games", "net_sha": None, "opponent": ETHEREAL, "opponent_nodes": 4000}
    datagen._WORKER.clear()
    with pytest.raises(EngineError, match=r"Ethereal.* searched \d+ nodes at `go nodes 4000`: "
                                          r"it ignores the node limit; give --opponent-depth"):
        datagen.play_task(9, 0, 1, conf, None)
    datagen._WORKER.clear()
    res = datagen.play_task(9, 1, 1, dict(conf, opponent_depth=4), None)
    assert res["opponent"].startswith("Ethereal")
    path = tmp_path / "g.bng"
    path.write_bytes(GAME_MAGIC + res["data"])
    (start, plies, _), = read_games(str(path))
    ref = RefEngine(ETHEREAL, {"Threads": 1, "Hash": 16}, analyse=False)
    board, played, theirs = chess.Board(start), [], 0
    try:
        for m, _ in plies:
            text = move_to_uci(m)
            if board.turn == chess.WHITE:                   # game 1: the opponent is White
                assert ref.bestmove(start, played, "go depth 4", 1) == text
                theirs += 1
            played.append(text)
            board.push_uci(text)
    finally:
        ref.close()
    assert theirs >= 10


def _undisturbed_and_disturbed(conf, net, seed, tasks, disturb):
    """The tasks' data written by datagen's client loop on a one-worker local cluster, run
    twice on it: undisturbed, then with disturb(client, tasks written) called after each write."""
    import logging
    from distributed import Client, LocalCluster
    from black_numba.training import datagen
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        def run(disturbed):
            parts = []

            def write(res):
                parts.append(res["data"])
                if disturbed:
                    disturb(client, len(parts))
            datagen._generate(client, conf, net, seed, 0, 1, lambda: len(parts) >= tasks,
                              write)
            return parts
        return run(False), run(True)


def _cancel(client, keep):
    """Cancel, behind the client loop's back, every future whose key keep() refuses."""
    from distributed import Future
    client.cancel([Future(k, client) for k in list(client.futures) if not keep(str(k))])


@pytest.mark.slow
def test_a_task_the_cluster_cancels_runs_again():
    """A task the scheduler cancels or forgets (as after a long pause of the client) is
    submitted again: the games written are those of an undisturbed run, in order, once."""
    conf = {"nodes": 200, "eval": "tapered", "rescore": None, "rescore_nodes": 1,
            "format": "text", "net_sha": None}

    def disturb(client, written):
        if written in (1, 3):
            # every submission of the next task
            _cancel(client, lambda k: not k.startswith(f"datagen-s5-t{written}-"))
    undisturbed, disturbed = _undisturbed_and_disturbed(conf, None, 5, 5, disturb)
    assert disturbed == undisturbed
    assert all(undisturbed) and len(undisturbed) == 5


@pytest.mark.slow
def test_a_lost_network_is_scattered_again():
    """Workers dropped during a long pause take the scattered network with them, and every
    task that needs it fails with "lost dependencies": it is scattered again and the run goes
    on with the games of an undisturbed run."""
    from black_numba.evaluation import netfile
    with open(netfile.DEFAULT_NET, "rb") as f:
        net = f.read()
    conf = {"nodes": 200, "eval": "nnue", "rescore": None, "rescore_nodes": 1,
            "format": "text", "net_sha": "lost-network-test"}

    def disturb(client, written):
        if written == 1:
            # the network and every task in flight but the one already written
            _cancel(client, lambda k: k.startswith("datagen-s6-t0-"))
    undisturbed, disturbed = _undisturbed_and_disturbed(conf, net, 6, 3, disturb)
    assert disturbed == undisturbed
    assert all(undisturbed) and len(undisturbed) == 3


def test_a_stop_signal_waits_for_the_task_being_written():
    """SIGTERM between a task's data and its progress (the race that once left 422 lines
    against a progress of 364) is raised only once both are written; outside, at once."""
    from black_numba.training import datagen
    kept = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    steps = []
    try:
        datagen._stop_on_signals()
        with pytest.raises(KeyboardInterrupt):
            with datagen._signals_deferred():
                steps.append("data")
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.05)
                steps.append("progress")
            steps.append("after")                      # not reached: the stop comes here
        assert steps == ["data", "progress"]
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
            steps.append("not deferred")
        assert steps == ["data", "progress"]
        with datagen._signals_deferred():                  # no signal: nothing raised
            steps.append("quiet")
        assert steps[-1] == "quiet"
    finally:
        for sig, handler in kept.items():
            signal.signal(sig, handler)


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.0, 0.15, 0.6])
def test_sigterm_stops_a_run_cleanly_and_it_resumes(tmp_path, delay):
    """SIGTERM stops datagen as Ctrl-C does (a shell ignores SIGINT in background commands):
    finished tasks written, the manifest too, exit 0, no traceback; the run then resumes to
    its target. Sent at several moments after the first task, since one landing as a Dask
    call starts once showed distributed's own cancel() error."""
    out = tmp_path / "t"
    args = [ENGINE, "datagen", "--positions", "100000", "--out", str(out), "--jobs", "1",
            "--eval", "tapered"] + RECIPE
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    prog = out / "datagen_s7.progress"
    end = time.time() + 300
    while not prog.exists() and time.time() < end and p.poll() is None:
        time.sleep(0.05)
    assert prog.exists() and p.poll() is None, "no task finished"
    time.sleep(delay)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 0, err[-3000:]
    assert "interrupted" in err and "Traceback" not in err
    done = json.loads(prog.read_text())["positions"]
    assert 0 < done < 100000
    assert (out / "datagen_s7.txt").read_bytes().count(b"\n") == done
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["files"]["datagen_s7.txt"]["positions"] == done
    _datagen(out, done + 50, "--jobs", "1", "--eval", "tapered")
    assert json.loads(prog.read_text())["positions"] >= done + 50


@pytest.mark.slow
def test_no_more_tasks_are_in_flight_than_the_run_needs():
    """Games in flight when a run ends are thrown away: with needed() the client holds no more
    tasks than are still wanted (without it, a window of four a worker thread); the same
    games are written."""
    import logging
    from distributed import Client, LocalCluster
    from black_numba.training import datagen
    conf = {"nodes": 200, "eval": "tapered", "rescore": None, "rescore_nodes": 1,
            "format": "text", "net_sha": None}
    want = 3
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        def run(capped):
            parts, held = [], []

            def write(res):
                held.append(len(client.futures))
                parts.append(res["data"])
            datagen._generate(client, conf, None, 11, 0, 1, lambda: len(parts) >= want,
                              write, (lambda: want - len(parts)) if capped else None)
            return parts, held
        free, free_held = run(False)
        capped, capped_held = run(True)
    assert capped == free and len(free) == want
    # a written task's future may be released a moment later, so it is counted at most once:
    # uncapped, the three others of the window of four are still held at the last write
    assert free_held[-1] >= want
    assert all(h <= want - i for i, h in enumerate(capped_held))


class _Lost(RuntimeError):
    pass


def _square(x):
    return x * x


@pytest.mark.slow
def test_a_task_lost_too_often_is_an_error_and_one_lost_once_is_not():
    """black_numba.cluster.result, the retry loop of datagen, the match runner and annotate:
    a task the cluster cancels is submitted again; cancelled more than TASK_RETRIES times in
    a row, it raises the caller's error, naming the task."""
    from black_numba import cluster
    client, local = cluster.connect(None, 1)
    try:
        submitted = []

        def cancelled():
            f = client.submit(_square, 7, pure=False)
            client.cancel(f)
            submitted.append(f)
            return f

        with pytest.raises(_Lost, match=r"task 3 was lost 6 times"):
            cluster.result(cancelled(), cancelled, "task 3", _Lost, "test")
        assert len(submitted) == cluster.TASK_RETRIES + 1
        assert cluster.result(cancelled(), lambda: client.submit(_square, 7, pure=False),
                              "task 4", _Lost, "test") == 49
    finally:
        cluster.close(client, local)


def test_only_distributeds_interrupt_race_error_is_silenced():
    """The filter connect() puts on tornado's logger drops the NameError of sync()'s cancel()
    (raised here as Python raises it) and nothing else."""
    import logging
    from black_numba.cluster import InterruptRaceFilter

    def record_of(make):
        try:
            make()
        except Exception:
            return logging.LogRecord("tornado.application", logging.ERROR, __file__, 1,
                                     "Exception in callback %r", ("cb",), sys.exc_info())

    def race():
        future: int

        def cancel():
            if future is not None:
                pass
        cancel()

    f = InterruptRaceFilter()
    assert not f.filter(record_of(race))
    assert f.filter(record_of(lambda: {}["x"]))
    assert f.filter(record_of(lambda: undefined_name))     # noqa: F821 (a NameError of another name)
    assert f.filter(logging.LogRecord("tornado.application", logging.ERROR, __file__, 1,
                                      "plain message", (), None))


def test_a_closing_workers_heartbeat_error_is_silenced_and_no_other():
    """The workers of connect()'s local cluster carry ClosingHeartbeatFilter (distributed's
    preload); it drops the heartbeat error of a worker whose own connections are closing, which
    once reached a stopped datagen's stderr as a traceback, and passes a lost scheduler's."""
    import logging
    from distributed.comm.core import CommClosedError
    from black_numba import cluster as local_cluster
    from black_numba.cluster import ClosingHeartbeatFilter

    def record(err):
        try:
            raise err
        except Exception:
            return logging.LogRecord("distributed.worker", logging.ERROR, __file__, 1,
                                     "Failed to communicate with scheduler during heartbeat.",
                                     (), sys.exc_info())

    f = ClosingHeartbeatFilter()
    assert not f.filter(record(CommClosedError("ConnectionPool closing.")))
    assert f.filter(record(CommClosedError("in <TCP (closed)>: Stream is closed")))
    assert f.filter(record(OSError("Timed out trying to connect to tcp://127.0.0.1:1")))
    client, local = local_cluster.connect(workers=1)
    try:
        names = client.run(lambda: [type(x).__name__ for x in
                                    logging.getLogger("distributed.worker").filters])
        assert list(names.values()) == [["ClosingHeartbeatFilter"]]
    finally:
        local_cluster.close(client, local)
