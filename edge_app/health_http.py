"""The listener's small HTTP port: ``/healthz``, ``/readyz`` and ``/metrics`` for load
balancers, supervisors and Prometheus. Plain HTTP/1.0 on the listener's own event loop:
one short request per connection, nothing else is served."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from edge_app import health, metrics

log = logging.getLogger("telesrv.health")

REQUEST_TIMEOUT = 5.0
MAX_HEADER = 8192


def _response(status: str, body: bytes, content_type: str = "text/plain; charset=utf-8") -> bytes:
    head = (
        f"HTTP/1.0 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
        "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


async def answer(path: str) -> bytes:
    if path == "/healthz":
        return _response("200 OK", b"ok\n")
    if path == "/readyz":
        ready, checks = await asyncio.to_thread(health.readiness_in_worker_thread)
        return _response(
            "200 OK" if ready else "503 Service Unavailable",
            health.readiness_body(ready, checks),
            "application/json",
        )
    if path == "/metrics":
        body = await asyncio.to_thread(metrics.exposition)
        return _response("200 OK", body, "text/plain; version=0.0.4; charset=utf-8")
    return _response("404 Not Found", b"not found\n")


async def _serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), REQUEST_TIMEOUT)
        parts = head[:MAX_HEADER].split(b"\r\n", 1)[0].split()
        if len(parts) < 2 or parts[0] not in (b"GET", b"HEAD"):
            writer.write(_response("405 Method Not Allowed", b"GET only\n"))
        else:
            path = parts[1].decode("latin-1").split("?", 1)[0]
            out = await answer(path)
            if parts[0] == b"HEAD":
                out = out.split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n"
            writer.write(out)
        await writer.drain()
    except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        pass
    except Exception:
        log.exception("health request failed")
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


async def start(host: str, port: int) -> tuple[asyncio.AbstractServer, int]:
    server = await asyncio.start_server(_serve, host, port, reuse_address=True, limit=MAX_HEADER)
    return server, server.sockets[0].getsockname()[1]
