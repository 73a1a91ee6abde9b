"""What users drive: the UCI adapter, the Python API, the command line, bench, warmup and game annotation."""
