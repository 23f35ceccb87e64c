"""Routes for whoever runs the server, not for players: health and metrics."""

from __future__ import annotations

import hmac
import os

from fastapi import APIRouter, Response
from starlette.concurrency import run_in_threadpool

from kaboom.server import VERSION
from kaboom.server.deps import KaboomDep, MetricsToken
from kaboom.server.errors import MissingTokenError, NotPlayerError
from kaboom.server.metrics import CONTENT_TYPE, exposition
from kaboom.server.schemas import HealthOut

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["operations"])


@router.get("/health", responses={503: {"description": "the store cannot be read"}})
async def health(kaboom: KaboomDep) -> HealthOut:
    """Whether this process can read its game store: for load balancers and container
    health checks (answered by whichever process the request reached)."""
    found = await kaboom.health()
    return HealthOut(status=found.status, store=found.store,
                     schema_version=found.schema_version, worker=os.getpid(), version=VERSION)


@router.get("/metrics", response_class=Response, responses={
    200: {"content": {"text/plain": {}},
          "description": "this process's counts and timings, in Prometheus's text format"},
    401: {"description": "the server has a metrics token and the request did not send it"},
    403: {"description": "the token sent is not the metrics token"},
})
async def metrics(kaboom: KaboomDep, token: MetricsToken) -> Response:
    """Counts and timings for Prometheus: requests by route and status, solver waits and
    refusals, games (docs/deploy.md, "Metrics").  When
    ``KABOOM_METRICS_TOKEN`` is set, only a request bearing it is answered."""
    secret = kaboom.settings.metrics_token
    if secret is not None:
        if token is None:
            raise MissingTokenError("send the metrics token as 'Authorization: Bearer <token>'")
        if not hmac.compare_digest(token.encode(), secret.get_secret_value().encode()):
            raise NotPlayerError("the token is not this server's metrics token")
    body = await run_in_threadpool(exposition)  # off the event loop
    return Response(body, media_type=CONTENT_TYPE)


# Some balancers check with HEAD; the schema lists the GET only (one operation id).
router.add_api_route("/health", health, methods=["HEAD"], include_in_schema=False)
