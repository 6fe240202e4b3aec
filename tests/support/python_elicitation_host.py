#!/usr/bin/env python3
"""Minimal MCP host (official Python SDK, the one Hermes Agent uses) that answers elicitations.

Usage:
    python python_elicitation_host.py --answer accept|decline|cancel -- COMMAND [ARGS...]

Starts COMMAND as an MCP stdio server (full parent environment passed through),
initializes with an elicitation callback (so the SDK declares the capability),
calls post_message once, and answers the server's question with --answer, as
Hermes does (accept with empty content).

stdout: one JSON object per line:
    {"event":"sdk","version":"..."}
    {"event":"asked","message":"...","schema":{...}}
    {"event":"result","isError":bool,"text":"...","structured":{...}|null}
    {"event":"error","error":"..."}   (then exit 1)
Exit codes: 0 a result; 2 bad usage; 1 any other failure.
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


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def parse_argv(argv: list[str]) -> tuple[str, list[str]]:
    if len(argv) < 4 or argv[0] != "--answer" or argv[2] != "--":
        print("usage: python_elicitation_host.py --answer accept|decline|cancel -- COMMAND [ARGS...]", file=sys.stderr)
        sys.exit(2)
    if argv[1] not in ("accept", "decline", "cancel"):
        print(f"unknown answer {argv[1]!r}", file=sys.stderr)
        sys.exit(2)
    return argv[1], argv[3:]


async def main(answer: str, command: list[str]) -> int:
    emit({"event": "sdk", "version": _pkg_version("mcp")})

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        schema = getattr(params, "requested_schema", None)
        emit({
            "event": "asked",
            "message": params.message,
            "schema": schema if isinstance(schema, dict) else getattr(schema, "model_dump", lambda **_: None)(by_alias=True),
        })
        # As Hermes answers: accept with empty content; otherwise the action alone.
        return types.ElicitResult(action=answer, content={} if answer == "accept" else None)

    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=on_elicit) as session:
            await session.initialize()
            result = await session.call_tool("post_message", {"room": "general", "content": "from the Python SDK"})
            texts = [block.text for block in result.content if getattr(block, "type", "") == "text"]
            emit({
                "event": "result",
                "isError": bool(result.is_error),
                "text": "\n".join(texts),
                "structured": result.structured_content,
            })
    return 0


if __name__ == "__main__":
    answer, command = parse_argv(sys.argv[1:])
    try:
        sys.exit(anyio.run(main, answer, command))
    except Exception as error:  # noqa: BLE001 - reported to the test as one line
        emit({"event": "error", "error": f"{type(error).__name__}: {error}"})
        sys.exit(1)
