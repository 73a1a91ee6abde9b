"""The Dask cluster that datagen, the match runner and annotate run their tasks on: a client
on a running scheduler (``dask scheduler`` and ``dask worker`` on any machines), or on a local
cluster of one-thread worker processes, and its closing."""
import itertools
import logging
import sys

CONNECT_TIMEOUT_S = 10          # reaching a --scheduler


class InterruptRaceFilter(logging.Filter):
    """Drops the one error distributed's sync() logs when Ctrl-C or our SIGTERM lands as a
    call starts: its cancel() callback reads a future not yet made (NameError "free variable
    'future'"), logged by tornado from the event loop's thread although the interrupt itself
    is handled. Every other record passes."""

    def filter(self, record):
        err = record.exc_info[1] if record.exc_info else None
        return not (isinstance(err, NameError) and "'future'" in str(err))


_RACE_FILTER = InterruptRaceFilter()


class ClosingHeartbeatFilter(logging.Filter):
    """Drops the heartbeat error a local worker logs when it is being closed as its heartbeat
    starts (its own connection pool refuses: CommClosedError "ConnectionPool closing"), as at
    the end of a run stopped by a signal. A heartbeat that fails for any other reason, a lost
    scheduler among them, still logs."""

    def filter(self, record):
        err = record.exc_info[1] if record.exc_info else None
        return not (record.getMessage().startswith("Failed to communicate with scheduler")
                    and type(err).__name__ == "CommClosedError"
                    and "ConnectionPool closing" in str(err))


def dask_setup(worker):
    """Run in each worker of our local clusters (distributed's preload): the filter above on
    its logger."""
    logging.getLogger("distributed.worker").addFilter(ClosingHeartbeatFilter())


def _refused(address):
    """OSError at once for a tcp:// scheduler address whose port refuses connections (no
    scheduler there): distributed's client would retry it for CONNECT_TIMEOUT_S."""
    import socket
    from urllib.parse import urlsplit
    try:
        url = urlsplit(address)
        host, port = url.hostname, url.port
    except ValueError:
        return
    if url.scheme != "tcp" or not host or not port:
        return
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S).close()
    except ConnectionRefusedError as e:
        raise OSError(f"cannot connect to the scheduler at {address}: {e.strerror}") from None
    except OSError:
        pass        # another failure (a timeout, an unknown host): distributed reports it


def connect(scheduler=None, workers=1):
    """(client, local cluster or None): on the scheduler at `scheduler` (tcp://HOST:PORT), else
    on a new local cluster of `workers` processes with one thread each."""
    from distributed import Client, LocalCluster
    logging.getLogger("tornado.application").addFilter(_RACE_FILTER)
    if scheduler:
        _refused(scheduler)
        return Client(scheduler, timeout=CONNECT_TIMEOUT_S), None
    import dask
    # the local cluster pauses as one (SIGSTOP, a suspended laptop): without a heartbeat
    # deadline its scheduler keeps the workers, and the data scattered to them, through a pause
    with dask.config.set({"distributed.scheduler.worker-ttl": None}):
        cluster = LocalCluster(n_workers=max(1, int(workers)), threads_per_worker=1,
                               processes=True, dashboard_address=":0",
                               silence_logs=logging.ERROR, preload=[__name__])
    return Client(cluster), cluster


def close(client, cluster):
    """Close the client, then the local cluster (either may be None)."""
    for c in (client, cluster):
        if c is not None:
            try:
                c.close()
            except Exception:       # closing a cluster that lost its workers may complain
                pass


TASK_RETRIES = 5                # a task the cluster cancelled or lost runs again this often


def result(future, resubmit, what, error, prog):
    """The result of `future`. A task the cluster cancels or forgets (a client paused past the
    scheduler's patience) or loses with its workers is submitted again by resubmit(), which
    returns the new future, up to TASK_RETRIES times; then error(message) is raised. `what`
    names the task in messages ("task 12"), `prog` the command ("datagen")."""
    from distributed import KilledWorker
    from distributed.client import CancelledError
    for attempt in itertools.count(1):
        try:
            return future.result()
        except (CancelledError, KilledWorker) as e:
            if attempt > TASK_RETRIES:
                raise error(f"{what} was lost {attempt} times, last: {e}") from e
            print(f"{prog}: {what} was lost ({type(e).__name__}: {e}); running it again",
                  file=sys.stderr)
            future = resubmit()
