"""One tab's Server-Sent Events stream: events in order, engine lines throttled (the newest
set replaces one not yet sent, at most INFO_EVERY_S apart), a heartbeat comment when idle so
that a dead connection is found and proxies keep it open."""
import json
import threading
import time

INFO_EVERY_S = 0.25          # engine lines at most four times a second
HEARTBEAT_S = 5.0            # a comment line after this long without an event
MAX_QUEUED = 1000            # events kept for a stream that does not read (then it is closed)


def sse(event, data):
    """One event in the text/event-stream format (data as one line of JSON)."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class Stream:
    """What one open event stream of a tab has still to send."""

    def __init__(self):
        self._cond = threading.Condition()
        self._events = []
        self._info = None            # the newest engine lines not yet sent
        self._info_sent = 0.0
        self.closed = False

    def put(self, event, data):
        with self._cond:
            if len(self._events) >= MAX_QUEUED:
                self.closed = True
            self._events.append((event, data))
            self._cond.notify()

    def put_info(self, data):
        """Engine lines: replace any not yet sent."""
        with self._cond:
            self._info = data
            self._cond.notify()

    def drop_info(self):
        """Forget unsent engine lines (their position is no longer shown)."""
        with self._cond:
            self._info = None

    def close(self):
        with self._cond:
            self.closed = True
            self._cond.notify()

    def next_chunk(self, now=time.monotonic):
        """The text to write next: events, then engine lines when their time has come, or a
        heartbeat comment after HEARTBEAT_S; None once the stream is closed."""
        with self._cond:
            deadline = now() + HEARTBEAT_S
            while not self.closed:
                if self._events:
                    events, self._events = self._events, []
                    return "".join(sse(e, d) for e, d in events)
                t = now()
                if self._info is not None:
                    due = self._info_sent + INFO_EVERY_S
                    if t >= due:
                        info, self._info, self._info_sent = self._info, None, t
                        return sse("lines", info)
                    self._cond.wait(min(due, deadline) - t)
                    continue
                if t >= deadline:
                    return ": heartbeat\n\n"
                self._cond.wait(deadline - t)
            return None
