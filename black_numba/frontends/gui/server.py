"""The browser board's web server (`black-numba gui`): the standard library's threading HTTP
server, the page and its files from the package, a JSON API for actions and one
Server-Sent Events stream a tab for everything the engine and the clocks say.

Security (a local server is reachable by every page the browser shows and by every user of
the machine): it listens on 127.0.0.1 unless told otherwise; a request whose Host is not this
server's (DNS rebinding: a foreign name resolving to 127.0.0.1) or whose Origin is another
site's gets 403; the page is served only to whoever has the per-run key in the address the
command printed (as Jupyter does; then kept in an HttpOnly cookie, so that a reload works),
so another user of the machine cannot read the page's token; every API request needs that
per-run token (header X-Token; the event stream, which EventSource cannot give headers, as
?token=), compared in constant time; content types are set from our own table (the
platform's registry can map .js to text/plain on Windows), with nosniff and a
Content-Security-Policy allowing this origin only; a connection that stalls is dropped after
SOCKET_TIMEOUT_S.
"""
import hmac
import ipaddress
import json
import os
import secrets
import signal
import sys
import threading
import traceback
import webbrowser
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from black_numba.core.engine import HASH_MAX_MB, EngineCore, available_memory_mb
from black_numba.frontends.gui.engine_host import EngineHost
from black_numba.frontends.gui.games import GameError
from black_numba.frontends.gui.tabs import Tabs, engine_settings

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
INDEX = "index.html"
TOKEN_PLACEHOLDER = "{{TOKEN}}"
MAX_BODY = 2 * 1024 * 1024          # a POST's body at most (an uploaded PGN)
# content types by file extension, never from the platform's registry
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml", ".png": "image/png", ".json": "application/json",
    ".woff2": "font/woff2", ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8", ".map": "application/json",
}
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
LOOPBACK_NAMES = ("localhost",)
PAGE_REFUSED = ("forbidden: open the address that black-numba gui printed when it started; "
                "it carries this run's key\n")
DEFAULT_HASH_MB = 64                # the engine's table unless --hash says otherwise
SOCKET_TIMEOUT_S = 60               # a request, or an event stream's write, stalled this long
HTTP_PORT = 80                      # the port a Host header without one means
KEY_COOKIE = "black_numba_key_{port}"   # cookies are per host, not per port: one a server


def is_loopback(host):
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Board:
    """The application behind the server: the token, the tabs and their engine."""

    def __init__(self, tabs, token, port, listen, key=None):
        self.tabs, self.token, self.port, self.listen = tabs, token, port, listen
        self.key = key or secrets.token_urlsafe(24)     # the page's: in the printed address
        self.cookie = KEY_COOKIE.format(port=port)

    def host_ok(self, value):
        """Is a Host header (or an Origin's host) this server? Names: localhost; otherwise
        only IP literals (a name can be re-pointed at us: DNS rebinding), the listening
        address or, listening on all addresses, any; the port ours."""
        if not value:
            return False
        host, sep, port = value.rpartition(":")
        if not sep or "]" in port or (host.count(":") and not host.startswith("[")):
            host, port = value, str(HTTP_PORT)       # no port given: HTTP's own
        if not port.isdigit() or int(port) != self.port or not host:
            return False
        if host in LOOPBACK_NAMES:
            return True
        try:
            ip = ipaddress.ip_address(host[1:-1] if host.startswith("[") else host)
        except ValueError:
            return False
        listen = ipaddress.ip_address(self.listen)
        return ip.is_loopback or listen.is_unspecified or ip == listen

    def token_ok(self, value):
        return bool(value) and hmac.compare_digest(value.encode(), self.token.encode())

    def key_ok(self, value):
        return bool(value) and hmac.compare_digest(value.encode(), self.key.encode())

    def url(self, shown):
        """The address to open: this server's, with the page's key."""
        host = f"[{shown}]" if ":" in shown else shown
        port = "" if self.port == HTTP_PORT else f":{self.port}"
        return f"http://{host}{port}/?key={self.key}"


class Handler(BaseHTTPRequestHandler):
    server_version = "black_numba"
    sys_version = ""
    timeout = SOCKET_TIMEOUT_S

    @property
    def app(self):
        return self.server.app

    def log_message(self, format, *args):      # quiet: the page is the interface
        pass

    # -- replies ---------------------------------------------------------------------------
    def _headers(self, status, ctype, length=None, extra=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()

    def _send(self, status, body, ctype, extra=()):
        self._headers(status, ctype, len(body), extra)
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status, data):
        self._send(status, json.dumps(data).encode(), "application/json")

    def _error(self, status, text):
        self._json(status, {"error": text})

    # -- requests -------------------------------------------------------------------------------
    def do_GET(self):
        self._handle()

    def do_HEAD(self):
        self._handle()

    def do_POST(self):
        self._handle()

    def _handle(self):
        try:
            if not self.app.host_ok(self.headers.get("Host", "")):
                return self._error(403, "forbidden: this server answers only to its own "
                                        "address (Host)")
            origin = self.headers.get("Origin")
            if origin is not None and not (origin.startswith("http://") and
                                           self.app.host_ok(origin[len("http://"):])):
                return self._error(403, "forbidden: a page of another site (Origin)")
            url = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            if url.path.startswith("/api/"):
                token = self.headers.get("X-Token") or \
                    (query.get("token") if self.command == "GET" else None)
                if not self.app.token_ok(token):
                    return self._error(403, "forbidden: missing or wrong token")
                if self.command == "POST":
                    return self._post(url.path, self._body())
                return self._get_api(url.path, query)
            if self.command == "POST":
                return self._error(405, "method not allowed")
            return self._static(url.path, query)
        except _BadRequest as e:
            self._error(e.status, str(e))
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            pass                                # the page went away mid-reply
        except Exception as e:                  # a bug: said, and the server goes on
            traceback.print_exc(file=sys.stderr)
            try:
                self._error(500, f"{type(e).__name__}: {e}")
            except OSError:
                pass

    def _body(self):
        if "json" not in self.headers.get("Content-Type", ""):
            raise _BadRequest(415, "the body must be JSON (Content-Type: application/json)")
        try:
            n = int(self.headers.get("Content-Length", ""))
        except ValueError:
            raise _BadRequest(411, "Content-Length needed") from None
        if not 0 <= n <= MAX_BODY:
            raise _BadRequest(413, f"the body is over {MAX_BODY} bytes")
        try:
            data = json.loads(self.rfile.read(n).decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise _BadRequest(400, "the body is not JSON") from None
        if not isinstance(data, dict):
            raise _BadRequest(400, "the body must be a JSON object")
        return data

    def _tab(self, tab_id):
        try:
            return self.app.tabs.get(tab_id)
        except (KeyError, TypeError):
            raise _BadRequest(404, f"no such tab {tab_id!r}") from None

    def _post(self, path, data):
        tabs = self.app.tabs
        if path == "/api/tab":
            try:
                tab = tabs.create()
            except GameError as e:
                return self._error(503, str(e))
            return self._json(200, {"tab": tab.id, "state": tabs.state(tab)})
        tab = self._tab(data.get("tab"))
        actions = {
            "/api/new": lambda: tabs.new_game(tab, data),
            "/api/move": lambda: tabs.move(tab, data.get("from"), data.get("to"),
                                           data.get("promotion")),
            "/api/line": lambda: tabs.line(tab, data.get("moves")),
            "/api/goto": lambda: tabs.goto(tab, data.get("ply")),
            "/api/takeback": lambda: tabs.takeback(tab),
            "/api/resign": lambda: tabs.resign(tab),
            "/api/abort": lambda: tabs.abort(tab),
            "/api/leave": lambda: tabs.leave(tab, data.get("page")),
            "/api/load": lambda: tabs.load(tab, data.get("text"), data.get("chess960")),
            "/api/analysis": lambda: tabs.set_analysis(tab, data),
            "/api/annotate": lambda: tabs.annotate(tab, data),
        }
        action = actions.get(path)
        if action is None:
            return self._error(404, f"no such action {path}")
        try:
            state = action()
        except GameError as e:
            return self._error(400, str(e))
        self._json(200, {"state": state})

    def _get_api(self, path, query):
        tabs = self.app.tabs
        if path == "/api/settings":
            return self._json(200, engine_settings())
        if path == "/api/games":
            return self._json(200, {"games": tabs.games()})
        tab = self._tab(query.get("tab"))
        if path == "/api/state":
            return self._json(200, {"state": tabs.state(tab)})
        if path == "/api/pgn":
            return self._send(200, tabs.pgn(tab).encode(), "application/x-chess-pgn",
                              (("Content-Disposition",
                                'attachment; filename="black_numba.pgn"'),))
        if path == "/api/events":
            return self._events(tab, query.get("page"))
        return self._error(404, f"no such resource {path}")

    def _events(self, tab, page=None):
        """The tab's event stream until the page goes (a failed write) or the server stops."""
        try:
            stream = self.app.tabs.open_stream(tab, page)
        except GameError as e:
            return self._error(503, str(e))
        try:
            self._headers(200, "text/event-stream; charset=utf-8")
            self.wfile.write(b"retry: 1000\n\n")
            self.wfile.flush()
            while True:
                chunk = stream.next_chunk()
                if chunk is None:
                    return
                self.wfile.write(chunk.encode())
                self.wfile.flush()
        except OSError:
            pass
        finally:
            self.app.tabs.close_stream(tab, stream)
            self.close_connection = True

    def _cookie(self):
        """The page's key from this server's cookie, or None."""
        try:
            jar = SimpleCookie(self.headers.get("Cookie", ""))
        except CookieError:
            return None
        morsel = jar.get(self.app.cookie)
        return morsel.value if morsel else None

    def _static(self, path, query):
        if path in ("/", "/index.html"):
            by_address = self.app.key_ok(query.get("key"))
            if not (by_address or self.app.key_ok(self._cookie())):
                return self._send(403, PAGE_REFUSED.encode(), CONTENT_TYPES[".txt"])
            with open(os.path.join(STATIC_DIR, INDEX), encoding="utf-8") as f:
                page = f.read().replace(TOKEN_PLACEHOLDER, self.app.token)
            extra = ((("Set-Cookie", f"{self.app.cookie}={self.app.key}; Path=/; HttpOnly; "
                                     "SameSite=Strict"),) if by_address else ())
            return self._send(200, page.encode(), CONTENT_TYPES[".html"], extra)
        if path == "/favicon.ico":
            path = "/static/favicon.svg"
        if not path.startswith("/static/"):
            return self._error(404, "not found")
        parts = path[len("/static/"):].split("/")
        if any(p in ("", ".", "..") or "\\" in p or ":" in p for p in parts):
            return self._error(404, "not found")
        full = os.path.join(STATIC_DIR, *parts)
        if not os.path.isfile(full) or \
                os.path.commonpath([os.path.realpath(full), os.path.realpath(STATIC_DIR)]) != \
                os.path.realpath(STATIC_DIR):
            return self._error(404, "not found")
        ext = os.path.splitext(full)[1].lower()
        with open(full, "rb") as f:
            body = f.read()
        self._send(200, body, CONTENT_TYPES.get(ext, "application/octet-stream"))


class _BadRequest(Exception):
    def __init__(self, status, text):
        super().__init__(text)
        self.status = status


class Server(ThreadingHTTPServer):
    daemon_threads = True            # an open event stream never holds the exit
    block_on_close = False

    def __init__(self, address, app, ipv6=False):
        if ipv6:
            import socket
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)
        self.app = app

    def handle_error(self, request, client_address):
        # a page killed mid-request is normal; anything else is printed, and serving goes on
        exc = sys.exc_info()[1]
        if not isinstance(exc, (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)):
            super().handle_error(request, client_address)


def default_threads():
    """All cores but one (at least one): the page stays responsive while the engine thinks."""
    return max(1, (os.cpu_count() or 2) - 1)


def add_arguments(ap, in_range):
    ap.add_argument("--port", type=in_range(0, 65535), default=0,
                    help="the port (default 0: a free one)")
    ap.add_argument("--host", default="127.0.0.1",
                    help="the address to listen on (default 127.0.0.1, this machine only; "
                         "another prints a warning)")
    ap.add_argument("--no-browser", action="store_true", help="do not open a browser")
    ap.add_argument("--threads", type=in_range(1, 512), default=default_threads(),
                    help=f"search threads (default all cores but one: {default_threads()})")
    ap.add_argument("--hash", type=in_range(1, HASH_MAX_MB), default=DEFAULT_HASH_MB,
                    metavar="MB", help=f"transposition table (default {DEFAULT_HASH_MB})")
    ap.add_argument("--syzygy", metavar="PATH",
                    help="Syzygy tablebase folders, separated by " + repr(os.pathsep))


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def run(args):
    """`black-numba gui`: serve until Ctrl-C (or SIGTERM), then stop the engine cleanly."""
    host = args.host
    loopback = is_loopback(host)
    try:
        ip = ipaddress.ip_address(host.strip("[]")) if host != "localhost" else None
    except ValueError:
        print(f"black-numba gui: --host must be an IP address or localhost, not {host!r}",
              file=sys.stderr)
        return 2
    listen = "127.0.0.1" if ip is None else str(ip)
    if args.syzygy:
        for folder in args.syzygy.replace(";", os.pathsep).split(os.pathsep):
            if folder and not os.path.isdir(folder):
                print(f"black-numba gui: --syzygy: {folder}: no such folder", file=sys.stderr)
                return 2
    free = available_memory_mb()
    if free is not None and args.hash > free:
        print(f"black-numba gui: --hash {args.hash} MB is more than the memory available "
              f"({free} MB)", file=sys.stderr)
        return 2
    start = {"Threads": args.threads, "Hash": args.hash}
    if args.syzygy:
        start["SyzygyPath"] = args.syzygy

    holder = {}

    def on_message(text):
        tabs = holder.get("tabs")
        if tabs is not None:
            tabs.broadcast("message", {"text": text})
        if text.startswith("error"):
            print(f"black-numba gui: {text}", file=sys.stderr, flush=True)

    core = EngineCore(on_message=on_message)
    host_ = EngineHost(core, start, on_error=lambda t: on_message("error: " + t))
    tabs = holder["tabs"] = Tabs(host_)
    try:
        server = Server((listen, args.port), None, ipv6=ip is not None and ip.version == 6)
    except OSError as e:
        host_.close()
        print(f"black-numba gui: cannot listen on {listen}:{args.port}: {e.strerror or e}",
              file=sys.stderr)
        return 2
    port = server.server_address[1]
    server.app = Board(tabs, secrets.token_urlsafe(24), port, listen)
    # the address a browser here opens: the loopback's when listening on all addresses
    shown = listen if ip is None or not ip.is_unspecified else \
        ("::1" if ip.version == 6 else "127.0.0.1")
    url = server.app.url(shown)
    if threading.current_thread() is threading.main_thread():
        # Ctrl-C and SIGTERM stop the server, also where a shell started it in the background
        # with SIGINT ignored (Python then installs no handler of its own); installed before
        # the URL is printed, so that a Ctrl-C as soon as it shows still stops cleanly
        signal.signal(signal.SIGINT, _interrupt)
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        if not loopback:
            print(f"black-numba gui: warning: listening on {listen}, not the loopback: anyone "
                  f"who can reach this machine on port {port} can use the board and its engine",
                  file=sys.stderr, flush=True)
        print(f"black_numba board: {url}  (Ctrl-C stops it)", flush=True)
        if not args.no_browser:
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        tabs.close()
        server.server_close()
        host_.close()
    print("black_numba board: stopped", file=sys.stderr, flush=True)
    return 0
