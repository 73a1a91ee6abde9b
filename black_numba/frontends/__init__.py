"""What users drive: the engine core, its options, the UCI adapter, the Python API, the command line, bench, warmup and game annotation."""
