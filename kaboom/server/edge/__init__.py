"""What every request meets in a server process before a route: a body's size cap and
strict JSON (:mod:`.bodies`), the security headers (:mod:`.headers`), and who the request
comes from (:mod:`.clients`).

Slow clients, floods and connection counts are the proxy's (nginx, ``deploy/``): what is
here is what a process reached directly still needs.
"""

from kaboom.server.edge.bodies import BadBody, BodyGuard, parse_strict
from kaboom.server.edge.clients import bucket_of, client_of
from kaboom.server.edge.headers import CSP, NOT_BUFFERED, SECURITY_HEADERS, SecurityHeaders

__all__ = ["CSP", "NOT_BUFFERED", "SECURITY_HEADERS", "BadBody", "BodyGuard", "SecurityHeaders",
           "bucket_of", "client_of", "parse_strict"]
