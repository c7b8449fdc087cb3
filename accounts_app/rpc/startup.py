"""The calls clients make on start-up and their first screen, answered "empty".

The answers live in ``tl_convert.STARTUP_ANSWERS*``; docs/startup-calls.md lists each
method, its answer and why it is enough.
"""

from __future__ import annotations

from accounts_app import tl_convert, tl_convert_absent
from edge_app.registry import rpc
from tl import functions


def _function_class(tl_name: str):
    namespace, _, name = tl_name.rpartition(".")
    holder = getattr(functions, namespace) if namespace else functions
    return getattr(holder, name[0].upper() + name[1:])


def _register(answers: dict, *, auth: bool) -> None:
    for tl_name, answer in answers.items():

        async def handler(ctx, req, _answer=answer):
            return _answer(req)

        handler.__name__ = handler.__qualname__ = "startup_" + tl_name.replace(".", "_")
        rpc(_function_class(tl_name), auth=auth)(handler)


_register(tl_convert.STARTUP_ANSWERS_NO_AUTH, auth=False)
_register(tl_convert.STARTUP_ANSWERS, auth=True)
_register(tl_convert_absent.ABSENT_ANSWERS, auth=True)
