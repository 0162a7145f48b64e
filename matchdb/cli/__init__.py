"""The ``matchdb`` command line: :mod:`matchdb.cli.main` assembles the parser from one module per command group, each calling the Python API and rendering its answers."""
