"""Refusals answered from the connection: ``strands-agui serve``'s HTTP protocol refuses a run before the app.

Past saturation most of the requests a worker reads are runs it refuses (three of four when it is offered four
times what it holds), and what each refusal costs the worker is CPU taken from the runs it admitted. Through the
app (uvicorn's request cycle and its task, Starlette's and FastAPI's middleware and routing, the route's admission)
a refusal costs the worker about 110 us; answered here, where uvicorn's C parser hands over a request's head, about
33 us, its answer's JSON and its count in the metrics included (``docs/benchmarks.md``, "Past saturation").

:class:`EarlyRefusalProtocol` is uvicorn's httptools protocol (``uvicorn --http
strands_agui.server.request.early_refusal:EarlyRefusalProtocol``; ``serve`` uses it): when a request's head is
complete it asks the endpoint's admission control (``admission.py``) whether the run would be admitted, and a run
that would not is answered at once with the route's own 503 (the same status, ``Retry-After`` and body, counted the
same: the limit's window, the endpoint's metrics); its body is read and dropped, and the connection serves the
client's next request. Every other request goes to the app as before, and the route asks admission again.

A request is answered here only where nothing the app does could change its answer:

* a ``POST`` to the exact path (no query string) of a run endpoint of the app uvicorn serves, as
  :func:`register` recorded it (an app mounted inside another, or wrapped by any ASGI callable but uvicorn's own,
  is not the one served: its runs go through what serves it);
* with no ``Origin`` header: a browser's request, whose answer needs the CORS middleware's headers;
* on an HTTP/1.1 connection kept alive, without ``Expect: 100-continue``, with no earlier request of the connection
  still being answered (pipelining: answers go out in order) and its writes not paused (a client that does not
  read its answers is held back by uvicorn's flow control, not buffered for);
* of an app whose middleware all leave a refusal as the route gives it (:data:`TRANSPARENT`: CORS, which answers
  requests without ``Origin`` untouched, and the middleware of this package that say so); an app with any other
  middleware (an authentication, a rate limit, a tracer) has every request go through it.
"""

from __future__ import annotations

import logging
import weakref
from typing import Any

from starlette.middleware.cors import CORSMiddleware
from uvicorn.middleware.message_logger import MessageLoggerMiddleware
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.protocols.utils import get_client_addr

from .admission import Admission

logger = logging.getLogger(__name__)

__all__ = ["PROTOCOL", "TRANSPARENT", "EarlyRefusalProtocol", "register", "routes_of"]

PROTOCOL = f"{__name__}:EarlyRefusalProtocol"  # uvicorn's ``http=`` (an import string: workers import it)

TRANSPARENT: set[type] = {CORSMiddleware}
"""Middleware classes that answer a request without ``Origin`` to a run's path as the app's route does (a module
adds its own that do)."""

_ROUTES: weakref.WeakKeyDictionary[Any, dict[bytes, Admission]] = weakref.WeakKeyDictionary()
_UVICORNS = (ProxyHeadersMiddleware, MessageLoggerMiddleware)  # uvicorn's wrappers of the app it serves: client
# address and scheme from trusted proxies' headers, messages logged at its TRACE level; any other wrapper is the app's


def register(app: Any, path: str, admission: Admission) -> None:
    """Record ``app``'s run endpoint at ``path`` and its admission (``add_strands_fastapi_endpoint`` does)."""
    _ROUTES.setdefault(app, {})[path.encode("ascii", "surrogateescape")] = admission


def routes_of(app: Any) -> dict[bytes, Admission] | None:
    """The run paths a request to ``app`` (as uvicorn wraps it) may be refused at, with their admission; None
    where it has none, or middleware not in :data:`TRANSPARENT`."""
    while isinstance(app, _UVICORNS):
        app = app.app
    try:
        routes = _ROUTES.get(app)
    except TypeError:  # an unhashable ASGI callable: not one of ours
        return None
    if routes is None or not all(entry.cls in TRANSPARENT for entry in getattr(app, "user_middleware", ())):
        return None
    return routes


class EarlyRefusalProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, answering a run refused for load before the app (the module docstring)."""

    _routes: dict[bytes, Admission] | None = None
    _dropping = False  # the request being read was answered here: its body is dropped

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._routes = routes_of(self.app)

    def on_headers_complete(self) -> None:
        self._dropping = False
        routes = self._routes
        admission = routes.get(self.url) if routes is not None else None
        if admission is None or not self._answerable():
            return super().on_headers_complete()
        try:
            refusal = admission.refusal()
            answer = admission.refuse(*refusal) if refusal is not None else None
        except Exception:  # noqa: BLE001 - the route asks again and answers what failed as the app does
            logger.exception("admission control failed before the app; the request goes to the app")
            answer = None
        if answer is None:  # admitted: the app serves it (its route asks again)
            return super().on_headers_complete()
        self._dropping = True
        status, headers, body = answer
        head = [STATUS_LINE[status]]
        for name, value in (*self.server_state.default_headers, *headers):
            head += [name, b": ", value, b"\r\n"]
        head += [b"content-length: ", str(len(body)).encode("ascii"), b"\r\n\r\n", body]
        self.transport.write(b"".join(head))
        if self.access_log:
            self.access_logger.info('%s - "%s %s HTTP/%s" %d', get_client_addr(self.scope), "POST",
                                    self.url.decode("ascii", "replace"), "1.1", status)
        return None

    def _answerable(self) -> bool:
        """Whether this request's answer may be written now, without the app (the module docstring's list)."""
        parser, cycle = self.parser, self.cycle
        return (parser.get_method() == b"POST" and parser.get_http_version() == "1.1"
                and parser.should_keep_alive() and not parser.should_upgrade() and not self.expect_100_continue
                and (cycle is None or cycle.response_complete) and not self.pipeline and not self.flow.write_paused
                and all(name != b"origin" for name, _ in self.headers))

    def on_body(self, body: bytes) -> None:
        if not self._dropping:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if not self._dropping:
            return super().on_message_complete()
        self._dropping = False
        self.on_response_complete()  # counted, reading resumed, the keep-alive timer armed: as after any answer
        return None
