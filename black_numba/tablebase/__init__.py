"""Syzygy endgame tables: discovery and memory maps, and the compiled probes."""
