"""The headers every answer carries: a public page's security headers, no ``Server``, and
an event stream marked for a proxy to pass on as it comes."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CSP", "NOT_BUFFERED", "SECURITY_HEADERS", "SecurityHeaders"]

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", CSP.encode()),
]
"""The headers a public page needs on every answer."""


NOT_BUFFERED = (b"x-accel-buffering", b"no")
"""Tells a proxy in front (nginx) to pass an answer on as it comes: an event stream, a
long poll."""


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every answer, no ``Server``, and
    :data:`NOT_BUFFERED` on an event stream."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.headers = SECURITY_HEADERS

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self.headers

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k != b"server"]
                if any(k == b"content-type" and v.startswith(b"text/event-stream")
                       for k, v in headers):
                    headers.append(NOT_BUFFERED)
                message["headers"] = [*headers, *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)
