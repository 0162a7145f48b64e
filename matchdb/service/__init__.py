"""The HTTP service and the pages.

:mod:`~matchdb.service.app` assembles the application from its route modules:
:mod:`~matchdb.service.questions` (the question routes),
:mod:`~matchdb.service.batch` (many questions in one request),
:mod:`~matchdb.service.info` (health and the database's info),
:mod:`~matchdb.service.page` (the equity explorer),
:mod:`~matchdb.service.play` (the table for a person),
:mod:`~matchdb.service.replayer` (the hand replayer),
:mod:`~matchdb.service.solves` (solves as jobs, the solver page's routes),
:mod:`~matchdb.service.library` (solution libraries' stored decisions) and
:mod:`~matchdb.service.docs` (the API's documentation pages, offline). Every
request passes :mod:`~matchdb.service.guards` (bounded body, known parameters,
deadline, an HTTP status per error); :mod:`~matchdb.service.costs` estimates a
question's cost before any work and :mod:`~matchdb.service.pool` runs the heavy
ones in worker processes; :mod:`~matchdb.service.server` listens and runs the
application. ``web/`` holds the pages' files.
"""
