"""The ``matchdb`` command line: :mod:`matchdb.cli.main` parses arguments, calls the Python API and renders its answers."""
