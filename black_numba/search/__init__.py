"""The search: parameters, per-thread state, move ordering, the alpha-beta search, the table, time, limits, threads, the driver and strength levels."""
