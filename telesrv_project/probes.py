"""The admin process's ``/healthz``, ``/readyz`` and ``/metrics`` (the listener serves
the same on its own health port, see ``edge_app.health_http``).

``/metrics`` is open to whoever reaches the admin port: the TLS proxy of
docs/operations.md keeps the probes inside. They answer before Django's host check and
HTTPS redirect (``ProbesMiddleware``, first in the chain): a balancer or Prometheus asks
by IP address over plain HTTP on the internal network.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from edge_app import health, metrics


@never_cache
@require_GET
def healthz(request):
    return HttpResponse("ok\n", content_type="text/plain")


@never_cache
@require_GET
def readyz(request):
    ready, checks = health.readiness()
    return HttpResponse(
        health.readiness_body(ready, checks), status=200 if ready else 503, content_type="application/json"
    )


@never_cache
@require_GET
def metrics_view(request):
    return HttpResponse(
        metrics.exposition(process="admin"), content_type="text/plain; version=0.0.4; charset=utf-8"
    )


PROBES = {"/healthz": healthz, "/readyz": readyz, "/metrics": metrics_view}


class ProbesMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        view = PROBES.get(request.path_info)
        if view is not None:
            return view(request)
        return self.get_response(request)
