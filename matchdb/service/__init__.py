"""The HTTP service and the page: :mod:`matchdb.service.app` holds the routes, ``web/`` the page's files."""
