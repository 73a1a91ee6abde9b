"""The Dask cluster that datagen, the match runner and annotate run their tasks on: a client
on a running scheduler (``dask scheduler`` and ``dask worker`` on any machines), or on a local
cluster of one-thread worker processes, and its closing."""
import logging

CONNECT_TIMEOUT_S = 10          # reaching a --scheduler


def connect(scheduler=None, workers=1):
    """(client, local cluster or None): on the scheduler at `scheduler` (tcp://HOST:PORT), else
    on a new local cluster of `workers` processes with one thread each."""
    from distributed import Client, LocalCluster
    if scheduler:
        return Client(scheduler, timeout=CONNECT_TIMEOUT_S), None
    import dask
    # the local cluster pauses as one (SIGSTOP, a suspended laptop): without a heartbeat
    # deadline its scheduler keeps the workers, and the data scattered to them, through a pause
    with dask.config.set({"distributed.scheduler.worker-ttl": None}):
        cluster = LocalCluster(n_workers=max(1, int(workers)), threads_per_worker=1,
                               processes=True, dashboard_address=":0",
                               silence_logs=logging.ERROR)
    return Client(cluster), cluster


def close(client, cluster):
    """Close the client, then the local cluster (either may be None)."""
    for c in (client, cluster):
        if c is not None:
            try:
                c.close()
            except Exception:       # closing a cluster that lost its workers may complain
                pass
