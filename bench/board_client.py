"""A client of the browser board's server: starts `black-numba gui` as a subprocess, reads
its URL and token, posts actions and records a tab's event stream; and Chromium's flags and
the strength slider's scale as the page is driven. Shared by bench/bench_gui.py,
tools/gui_screenshots.py and the browser tests (through tests/gui_client.py)."""
import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URL_LINE = re.compile(r"(http://\S+/\?key=\S+)")
TOKEN = re.compile(r'<meta name="token" content="([^"]+)"')
START_TIMEOUT_S = 60
ENGINE_READY_TIMEOUT_S = 600     # a cold cache compiles first
# as root (a container) and offline: no sandbox, no /dev/shm, no calls home at start
CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
ELO_MIN, ELO_STEP = 1350, 50                                    # the strength slider's scale


class GuiServer:
    """`black-numba gui --no-browser --port 0` in a subprocess (one search thread)."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "black_numba.frontends.cli", "gui", "--no-browser",
             "--port", "0", "--threads", "1", "--hash", "16", *args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        found = URL_LINE.search(line)
        if not found:
            self.proc.kill()
            raise RuntimeError(f"no URL from black-numba gui: {line!r} "
                               f"{self.proc.stderr.read()!r}")
        self.url = found.group(1)              # with the page's key
        parts = urllib.parse.urlsplit(self.url)
        self.host, self.port = parts.hostname, parts.port
        self.base = f"http://{parts.netloc}/"
        self.page = f"/?{parts.query}"
        status, _, body = self.request("GET", self.page)
        self.token = TOKEN.search(body.decode()).group(1)

    def request(self, method, path, body=None, headers=None):
        """(status, headers, body bytes) of one request."""
        c = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            c.request(method, path, body, headers or {})
            r = c.getresponse()
            return r.status, dict(r.getheaders()), r.read()
        finally:
            c.close()

    def post(self, path, expect=200, **data):
        """The JSON answer of an action; asserts its status."""
        status, _, body = self.request("POST", path, json.dumps(data).encode(),
                                       {"Content-Type": "application/json",
                                        "X-Token": self.token})
        answer = json.loads(body)
        assert status == expect, (status, answer)
        return answer

    def get(self, path, **query):
        status, headers, body = self.request(
            "GET", path + "?" + urllib.parse.urlencode(query), None, {"X-Token": self.token})
        return status, headers, body

    def state(self, tab):
        status, _, body = self.get("/api/state", tab=tab)
        assert status == 200
        return json.loads(body)["state"]

    def new_tab(self):
        return self.post("/api/tab")["tab"]

    def wait_ready(self):
        """Wait until the engine core has loaded (compiled, on a cold cache)."""
        tab = self.new_tab()
        end = time.monotonic() + ENGINE_READY_TIMEOUT_S
        while not self.state(tab)["engine"]["ready"]:
            assert time.monotonic() < end, "the engine did not load"
            time.sleep(0.2)

    def wait_for(self, tab, test, timeout=30, every=0.05):
        """The tab's state once test(state) holds."""
        end = time.monotonic() + timeout
        while True:
            s = self.state(tab)
            if test(s):
                return s
            assert time.monotonic() < end, f"timed out; last state {s}"
            time.sleep(every)

    def events(self, tab):
        return EventLog(self, tab)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc.stdout.close()
        self.proc.stderr.close()


def running_server(*args):
    """A GuiServer whose engine has loaded, stopped afterwards (a fixture's body)."""
    s = GuiServer(*args)
    try:
        s.wait_ready()
        yield s
    finally:
        s.stop()


class EventLog:
    """A tab's event stream read in a thread: [(monotonic time, event, data)]."""

    def __init__(self, server, tab):
        self.events = []
        self.conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
        self.conn.request("GET", f"/api/events?tab={tab}&token={server.token}")
        self.sock = self.conn.sock          # the response owns it once read
        self.response = self.conn.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type").startswith("text/event-stream")
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self):
        name = None
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    name = line[len("event: "):]
                elif line.startswith("data: "):
                    self.events.append((time.monotonic(), name, json.loads(line[6:])))
                elif line.startswith(": heartbeat"):
                    self.events.append((time.monotonic(), "heartbeat", None))
        except (OSError, ValueError, http.client.HTTPException):
            pass

    def of(self, name):
        return [e for e in list(self.events) if e[1] == name]

    def wait(self, test, timeout=30):
        """The first event (time, name, data) for which test holds."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for e in list(self.events):
                if test(e):
                    return e
            time.sleep(0.02)
        raise AssertionError(f"no such event in {[e[1] for e in self.events][-20:]}")

    def close(self):
        try:
            self.sock.shutdown(2)
        except OSError:
            pass
        self.conn.close()
