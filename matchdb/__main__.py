"""``python -m matchdb`` runs the command line."""

from matchdb.cli.main import main

raise SystemExit(main())
