"""Packing a datagen run's games (`--format games`) into the chunks of a data folder (BNC1,
chunks.py), each listed in the folder's manifest with the runs and network that made it."""
import json
import os

from black_numba.provenance import file_sha256, git_commit
from black_numba.training.chunks import (MANIFEST, MAX_CHUNK_BYTES, SUFFIX, Chunk, ChunkError,
                                         encode_chunk, read_manifest, write_manifest)


def pack(source, seed, out, chunk_games, rest=False, net=None, log=print):
    """Chunks of chunk_games games each from datagen's game file of a seed in folder source,
    from the first game the manifest of out does not hold yet; with rest, the games left
    over make a last, shorter chunk. Returns the new manifest entries. Append-only: a chunk
    already listed is never written again."""
    from black_numba.evaluation import netfile
    from black_numba.training import datagen, gamefile
    bng, progress = datagen._paths(source, seed, "games")
    prog = datagen._read_progress_full(progress)
    done = int(prog.get("games", 0))
    first = int(prog.get("first_game", 0))
    runs = list(prog.get("runs", []))
    try:
        with open(os.path.join(source, datagen.MANIFEST)) as f:
            runs += json.load(f).get("runs", [])
    except (OSError, ValueError):
        pass
    if not runs:
        raise ChunkError(f"{source}: no datagen manifest recording the runs that made {bng}")
    # the network that played: the run's own record, else --net (runs from before datagen
    # kept it); never guessed from the shipped file, which may have changed since
    net_hash = netfile.load(net)[1]["weights_sha256"] if net else prog.get("network")
    if net_hash is None:
        raise ChunkError(f"{progress} does not say which network played the games: "
                         "give its file with --net")
    if prog.get("network") and net_hash != prog["network"]:
        raise ChunkError(f"--net {net} is {net_hash[:8]}, but {progress} says the games were "
                         f"played by {prog['network'][:8]}")
    commits = sorted({r["commit"] for r in runs})
    commands = sorted({" ".join(r["command"]) for r in runs})
    os.makedirs(out, exist_ok=True)
    try:
        man = read_manifest(out)
    except ChunkError:
        if os.path.exists(os.path.join(out, MANIFEST)):
            raise
        man = {"format": "BNC1 (docs/data.md)", "chunks": []}
    have = max([int(e.get("games_to", 0)) for e in man["chunks"]
                if e.get("source") == "datagen" and e.get("seed") == seed] + [first])
    if have < first:
        raise ChunkError(f"{bng} starts at game {first}, the manifest holds games to {have}")
    games = gamefile.read_games(bng)
    skipped = 0
    for _ in range(have - first):
        next(games)
        skipped += 1
    added = []
    g = have
    while g < done:
        n = min(chunk_games, done - g)
        if n < chunk_games and not rest:
            break
        batch = [next(games) for _ in range(n)]
        blob = encode_chunk(batch)
        if len(blob) > MAX_CHUNK_BYTES:
            raise ChunkError(f"a chunk of {n} games takes {len(blob)} bytes: use fewer games")
        name = f"datagen_s{seed}_g{g:08d}-{g + n:08d}{SUFFIX}"
        path = os.path.join(out, name)
        with open(path, "wb") as f:
            f.write(blob)
        c = Chunk(path)
        if c.games != n or len(c.positions()[1]) != c.kept:
            raise ChunkError(f"{path}: does not read back")
        entry = {"file": name, "games": c.games, "positions": c.kept, "plies": c.plies,
                 "bytes": len(blob), "sha256": file_sha256(path), "source": "datagen",
                 "seed": seed, "games_from": g, "games_to": g + n,
                 "command": commands[0] if len(commands) == 1 else commands,
                 "commit": commits[0] if len(commits) == 1 else commits,
                 "code": prog.get("code"), "network": net_hash,
                 "packed_by": git_commit()}
        man["chunks"].append(entry)
        write_manifest(out, man)
        added.append(entry)
        log(f"data: {name}: {c.games} games, {c.kept} positions, {len(blob)} bytes "
            f"({len(blob) / max(1, c.kept):.2f} a position)")
        g += n
    return added
