#!/usr/bin/env python3
"""Minimal MCP host (official Python SDK) that watches for notifications/tools/list_changed.

Usage:
    python list_changed_host.py [--wait SECONDS] -- COMMAND [ARGS...]

Starts COMMAND as an MCP stdio server (full parent environment passed through),
initializes, prints capabilities, lists tools, then waits up to --wait seconds
(default 20) for notifications/tools/list_changed; on arrival lists tools again.

stdout: one JSON object per line:
    {"event":"sdk","version":"..."}
    {"event":"capabilities","protocolVersion":"...","serverInfo":{...},"capabilities":{...}}
    {"event":"tools","phase":"initial","names":[...]}
    {"event":"list_changed"}
    {"event":"tools","phase":"after_list_changed","names":[...]}
    {"event":"timeout","waited":20.0}            (then exit 3)
    {"event":"transport_error","error":"..."}      (informational)
    {"event":"error","error":"..."}                (then exit 1)
The server's stderr goes to this process's stderr (SDK default errlog=sys.stderr).

Exit codes: 0 notification seen and tools re-listed; 3 no notification in time;
2 bad usage; 1 any other failure.

Works with mcp 2.x (message_handler gets `ServerNotification | Exception`, where
ServerNotification is a plain Union of notification models) and mcp 1.x
(message_handler gets `RequestResponder | ServerNotification | Exception`, where
ServerNotification is a RootModel whose `.root` is the concrete notification).
"""

from __future__ import annotations

import json
import os
import sys
from importlib.metadata import version as _pkg_version
from typing import Any

import anyio
import mcp.types as types
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

LIST_CHANGED = "notifications/tools/list_changed"


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def usage(msg: str) -> None:
    print(f"list_changed_host: {msg}\nusage: {sys.argv[0]} [--wait SECONDS] -- COMMAND [ARGS...]", file=sys.stderr)
    sys.exit(2)


def parse_argv(argv: list[str]) -> tuple[float, list[str]]:
    if "--" not in argv:
        usage("missing '--' before the server command")
    idx = argv.index("--")
    opts, cmd = argv[:idx], argv[idx + 1 :]
    if not cmd:
        usage("no server command after '--'")
    wait = 20.0
    i = 0
    while i < len(opts):
        a = opts[i]
        if a == "--wait" and i + 1 < len(opts):
            wait = float(opts[i + 1])
            i += 2
        elif a.startswith("--wait="):
            wait = float(a.split("=", 1)[1])
            i += 1
        else:
            usage(f"unknown option {a!r}")
    return wait, cmd


def _dump(model: Any) -> Any:
    if model is None:
        return None
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def _is_tools_list_changed(message: Any) -> bool:
    inner = getattr(message, "root", message)  # v1: RootModel wrapper; v2: the model itself
    tlc = getattr(types, "ToolListChangedNotification", None)
    if tlc is not None and isinstance(inner, tlc):
        return True
    return getattr(inner, "method", None) == LIST_CHANGED


async def run(wait: float, cmd: list[str]) -> int:
    changed = anyio.Event()

    async def message_handler(message: Any) -> None:
        if isinstance(message, Exception):
            emit({"event": "transport_error", "error": repr(message)})
            return
        if _is_tools_list_changed(message):
            if not changed.is_set():
                emit({"event": "list_changed"})
            changed.set()
        # Anything else (other notifications; v1 RequestResponder) is ignored.

    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
    async with stdio_client(params) as (read_stream, write_stream):
        async with ClientSession(read_stream, write_stream, message_handler=message_handler) as session:
            init = await session.initialize()
            emit(
                {
                    "event": "capabilities",
                    "protocolVersion": init.protocol_version if hasattr(init, "protocol_version") else init.protocolVersion,
                    "serverInfo": _dump(getattr(init, "server_info", None) or getattr(init, "serverInfo", None)),
                    "capabilities": _dump(init.capabilities),
                }
            )
            tools = await session.list_tools()
            emit({"event": "tools", "phase": "initial", "names": [t.name for t in tools.tools]})

            with anyio.move_on_after(wait):
                await changed.wait()
            if not changed.is_set():
                emit({"event": "timeout", "waited": wait})
                return 3

            tools = await session.list_tools()
            emit({"event": "tools", "phase": "after_list_changed", "names": [t.name for t in tools.tools]})
            return 0


def main() -> None:
    wait, cmd = parse_argv(sys.argv[1:])
    emit({"event": "sdk", "version": _pkg_version("mcp")})
    try:
        code = anyio.run(run, wait, cmd)
    except BaseException as exc:  # noqa: BLE001 - report anything as one JSON line
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        # Unwrap single-exception groups from anyio task groups for a readable message.
        while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
            exc = exc.exceptions[0]
        emit({"event": "error", "error": f"{type(exc).__name__}: {exc}"})
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    main()
