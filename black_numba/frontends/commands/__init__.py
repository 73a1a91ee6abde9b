"""The command line's commands that have outgrown cli.py: one module a command, each with
`add_arguments(parser)` and `run(args) -> exit code`; they parse and check arguments and call
the typed functions of the layers below (which never see an argparse namespace)."""
