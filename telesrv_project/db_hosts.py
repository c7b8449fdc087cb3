"""PostgreSQL host lists for ``DATABASES`` (docs/operations.md, "PostgreSQL failover").

``TELESRV_DB_HOSTS="h1:5432,h2:5433"`` names every node that may be the primary; libpq
tries them in order and keeps the first that accepts writes
(``target_session_attrs=read-write``), so after a failover every new connection finds
the new primary. Without it, ``TELESRV_DB_HOST``/``TELESRV_DB_PORT`` name the one host.
``TELESRV_DB_REPLICA_HOSTS`` lists standbys for reads that tolerate lag.
"""

from __future__ import annotations


def parse_hosts(spec: str, default_port: str) -> tuple[str, str]:
    """``"h1:5432,[::1]:5433,h3"`` -> (``"h1,::1,h3"``, ``"5432,5433,<default>"``):
    the comma-separated ``host`` and ``port`` libpq takes for a multi-host connection."""
    hosts, ports = [], []
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        if item.startswith("["):  # [v6]:port
            host, _, rest = item[1:].partition("]")
            port = rest.removeprefix(":")
        elif item.count(":") == 1:
            host, port = item.split(":")
        else:  # a name, or a bare IPv6 address
            host, port = item, ""
        if port and not port.isdigit():
            raise ValueError(f"bad port in database host {item!r}")
        hosts.append(host)
        ports.append(port or default_port)
    if not hosts:
        raise ValueError(f"no host in {spec!r}")
    return ",".join(hosts), ",".join(ports)


def database_hosts(
    hosts_spec: str,
    host: str,
    port: str,
    *,
    session_attrs: str,
    connect_timeout: str,
    tcp_timeout: str = "",
) -> dict:
    """The ``HOST``, ``PORT`` and ``OPTIONS`` of a ``DATABASES`` entry.

    ``tcp_timeout`` (seconds, ``TELESRV_DB_TCP_TIMEOUT``): a node that vanishes without a
    reset (its machine or network gone) is given up this long after it stops
    acknowledging what was sent (``tcp_user_timeout``), or, on an idle connection, after
    that long without traffic and three unanswered keepalive probes a second apart.
    Without it the kernel retransmits for about 15 minutes and a query waits as long."""
    if hosts_spec.strip():
        host, port = parse_hosts(hosts_spec, port)
    options = {"target_session_attrs": session_attrs}
    if connect_timeout:
        # Per host: a node that does not answer must not hold up trying the next one.
        options["connect_timeout"] = connect_timeout
    if tcp_timeout and float(tcp_timeout) > 0:
        seconds = max(1, round(float(tcp_timeout)))
        options.update(
            keepalives="1",
            keepalives_idle=str(seconds),
            keepalives_interval="1",
            keepalives_count="3",
            tcp_user_timeout=str(seconds * 1000),
        )
    return {"HOST": host, "PORT": port, "OPTIONS": options}
