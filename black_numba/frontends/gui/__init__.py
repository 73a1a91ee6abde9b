"""The browser board (`black-numba gui`): a local web server (server.py) over one engine core
shared by the page's tabs (engine_host.py), each tab its own game (games.py, clock.py,
tabs.py), live engine lines over Server-Sent Events (stream.py), game annotation
(annotating.py), and the page itself (static/)."""
