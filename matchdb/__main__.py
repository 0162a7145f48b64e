"""``python -m matchdb`` runs the command line."""

from matchdb.cli import main

raise SystemExit(main())
