"""The API's documentation pages, offline: ``/docs`` (Swagger UI) and ``/redoc``, their scripts served by this server.

FastAPI's own pages load Swagger UI and ReDoc from a CDN, so on a machine
without a network they stay blank. Here the same pages load the scripts and
styles that the ``fastapi-offline`` package ships (part of the ``service``
extra) from ``/docs/assets/``, and nothing from elsewhere (no Google fonts, no
online validator). Without that package both pages answer 404 with one
sentence saying what to install.

>>> sorted(ASSETS)
['favicon.png', 'redoc.standalone.js', 'swagger-ui-bundle.js', 'swagger-ui.css']
"""

# No ``from __future__ import annotations``: FastAPI reads the route functions' annotations at run time.
from importlib.resources import files

from fastapi import FastAPI, HTTPException
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response

from matchdb.db.query import MatchDB

__all__ = ["ASSETS", "add_routes", "asset"]

#: The files the documentation pages load, by name, with their media types.
ASSETS = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "redoc.standalone.js": "text/javascript",
    "favicon.png": "image/png",
}
_PREFIX = "/docs/assets/"
_MISSING = "The API's documentation pages need the fastapi-offline package (the service extra); install it with: pip install 'matchdb[service]'."


def asset(name: str) -> bytes:
    """The bytes of one documentation asset, from the ``fastapi-offline`` package; 404 with one sentence when it cannot be had."""
    if name not in ASSETS:
        raise HTTPException(404, detail=f"The documentation has no file {name[:40]!r}; expected one of {', '.join(ASSETS)}.")
    try:
        return (files("fastapi_offline") / "static" / name).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError):
        raise HTTPException(404, detail=_MISSING) from None


def add_routes(app: FastAPI, db: MatchDB) -> None:
    """Add ``/docs``, ``/redoc`` and their assets to ``app`` (create it with ``docs_url=None, redoc_url=None``)."""
    title = f"{app.title}: the HTTP API"

    @app.get("/docs", include_in_schema=False)
    def get_docs() -> HTMLResponse:
        asset("swagger-ui-bundle.js")  # says what to install rather than draw a blank page
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=title,
            swagger_js_url=_PREFIX + "swagger-ui-bundle.js",
            swagger_css_url=_PREFIX + "swagger-ui.css",
            swagger_favicon_url=_PREFIX + "favicon.png",
            swagger_ui_parameters={"validatorUrl": None},
        )

    @app.get("/redoc", include_in_schema=False)
    def get_redoc() -> HTMLResponse:
        asset("redoc.standalone.js")
        return get_redoc_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=title,
            redoc_js_url=_PREFIX + "redoc.standalone.js",
            redoc_favicon_url=_PREFIX + "favicon.png",
            with_google_fonts=False,
        )

    @app.get(_PREFIX + "{name}", include_in_schema=False)
    def get_asset(name: str) -> Response:
        return Response(asset(name), media_type=ASSETS[name], headers={"Cache-Control": "max-age=86400"})
