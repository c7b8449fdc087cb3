"""Background jobs the listener runs next to its connections.

Apps register ``async fn()`` factories at start-up (in ``AppConfig.ready``); ``manage.py
runmtproto`` runs each as a task for the life of the process and cancels them at
shutdown. A job loops by itself and must survive its own errors.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

Job = Callable[[], Awaitable[None]]

_jobs: dict[str, Job] = {}


def register(name: str, job: Job) -> None:
    _jobs[name] = job


def jobs() -> dict[str, Job]:
    return dict(_jobs)
