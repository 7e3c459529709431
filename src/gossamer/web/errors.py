"""Errors raised outside the routes (no such path, method not allowed): HTML pages, JSON only under ``/api/``.

Contract: :func:`install` makes every :class:`starlette.exceptions.HTTPException`
that no route turned into a response (an unknown path → 404, a method other than
GET/HEAD → 405, a missing static file → 404) answer

* under ``/api/`` with ``{"error": …}`` (the API's :class:`~gossamer.web.api.ErrorAnswer`);
* everywhere else with the styled error page (``error.html``: the site's layout, the
  search box, ``.error-message`` and a link to the home page).

The status code and the exception's headers (``Allow`` of a 405) are kept; both
answers carry the security headers of the other pages.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from gossamer.web.render import COMMON_HEADERS, error_page

API_PREFIX = "/api/"
MESSAGES = {404: "There is no page at this address.", 405: "This address answers GET and HEAD only."}


def is_api_path(path: str) -> bool:
    """Whether ``path`` belongs to the JSON API (``/api`` or below it)."""
    return path == API_PREFIX.rstrip("/") or path.startswith(API_PREFIX)


async def http_error(request: Request, exc: Exception) -> Response:
    """The answer to an :class:`HTTPException` no route handled (see the module docstring)."""
    assert isinstance(exc, HTTPException)
    message = MESSAGES.get(exc.status_code) or str(exc.detail)
    extra = dict(exc.headers or {})
    if is_api_path(request.url.path):
        return JSONResponse({"error": message}, status_code=exc.status_code, headers={**COMMON_HEADERS, **extra})
    answer = error_page(request, exc.status_code, message)
    answer.headers.update(extra)
    return answer


def install(app: FastAPI) -> None:
    """Answer unhandled HTTP errors of ``app`` as the module docstring says."""
    app.add_exception_handler(HTTPException, http_error)
