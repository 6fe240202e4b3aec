#!/usr/bin/env python3
"""A test host for `tinyagent rpc`, written from rpc-facts.md section 7 (the Hermes platform plugin
as a client of the helper): standard library only, asyncio.

Usage: python3 python_plugin_host.py CLI_PATH RELAY_URL ROOM
Environment: TINY_PRIVATE_KEY (the agent's key), PLUGIN_PEER (the pubkey allowed to talk to it).

It starts the helper as the plugin does (`<cli> rpc --relay <url> --key-env TINY_PRIVATE_KEY`, the
plugin's filtered environment, stderr to /dev/null, stdout read with a 64 MiB line limit), then:
identity; subscribe "tinyagent" with the plugin's filter, waiting for `connected`; prints
{"ready": <pubkey>} and waits for a kind 9 message mentioning the agent and a kind 43001 request
naming it; looks the message up with `query`, replies to it; checks the request has no terminal
answer, publishes 43002, uploads a file and downloads it back, publishes 43004; unsubscribes,
closes with SIGTERM. Prints one JSON line per step and {"done": …} at the end; exit 0 on success,
1 on any failure (with {"error": …}).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import signal
import sys
import time

TIMEOUT = 30.0  # the plugin's bound on every call, and on `connected` after subscribe
LINE_LIMIT = 64 * 1024 * 1024
ENV_KEEP = ("PATH", "HOME", "TMPDIR", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")


def say(**fields) -> None:
    print(json.dumps(fields), flush=True)


class Helper:
    """The plugin's client: integer ids from 1, serialized writes, answers matched by id."""

    def __init__(self) -> None:
        self.proc: asyncio.subprocess.Process | None = None
        self.next_id = 1
        self.pending: dict[int, asyncio.Future] = {}
        self.ready: dict[str, asyncio.Event] = {}
        self.callbacks: dict[str, object] = {}
        self.write_lock = asyncio.Lock()
        self.reader: asyncio.Task | None = None
        self.ignored = 0

    async def start(self, cli: str, relay: str) -> None:
        env = {name: os.environ[name] for name in ENV_KEEP if os.environ.get(name)}
        if os.environ.get("TINY_PRIVATE_KEY"):
            env["TINY_PRIVATE_KEY"] = os.environ["TINY_PRIVATE_KEY"]
        self.proc = await asyncio.create_subprocess_exec(
            cli, "rpc", "--relay", relay, "--key-env", "TINY_PRIVATE_KEY",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, env=env, limit=LINE_LIMIT,
        )
        self.reader = asyncio.create_task(self.read())

    async def read(self) -> None:
        assert self.proc and self.proc.stdout
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                break
            try:
                message = json.loads(line)
            except ValueError:
                self.ignored += 1
                continue
            event = message.get("event")
            if event == "event":
                callback = self.callbacks.get(message.get("subscription"))
                if callback:
                    asyncio.create_task(callback(message.get("data") or {}))
            elif event == "connected":
                self.ready.setdefault(message.get("subscription"), asyncio.Event()).set()
            elif event == "error" or "id" not in message:
                self.ignored += 1
            else:
                future = self.pending.pop(message["id"], None) if isinstance(message["id"], int) else None
                if future and not future.done():
                    if "error" in message:
                        future.set_exception(RuntimeError(message["error"].get("message") or "rpc error"))
                    else:
                        future.set_result(message.get("result"))
        for future in self.pending.values():
            if not future.done():
                future.set_exception(RuntimeError("tiny rpc exited"))

    async def call(self, method: str, params: dict | None = None):
        assert self.proc and self.proc.stdin
        request_id = self.next_id
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        line = json.dumps({"id": request_id, "method": method, "params": params or {}}, separators=(",", ":"))
        async with self.write_lock:
            self.proc.stdin.write(line.encode() + b"\n")
            await self.proc.stdin.drain()
        try:
            return await asyncio.wait_for(future, TIMEOUT)
        finally:
            self.pending.pop(request_id, None)

    async def subscribe(self, name: str, filter_: dict, callback) -> None:
        self.callbacks[name] = callback
        ready = self.ready.setdefault(name, asyncio.Event())
        await self.call("subscribe", {"subscription": name, "filter": filter_})
        await asyncio.wait_for(ready.wait(), TIMEOUT)

    async def close(self) -> int:
        assert self.proc
        self.proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(self.proc.wait(), TIMEOUT)
        if self.reader:
            await self.reader
        return code


async def main(cli: str, relay: str, room: str) -> int:
    peer = os.environ["PLUGIN_PEER"]
    helper = Helper()
    await helper.start(cli, relay)
    identity = await helper.call("identity")
    agent = identity.get("pubkey") if identity else None
    if not agent:
        raise RuntimeError("Tiny identity did not return a public key")
    say(step="identity", pubkey=agent)

    message = asyncio.get_running_loop().create_future()
    job = asyncio.get_running_loop().create_future()

    async def on_event(event: dict) -> None:
        if event.get("pubkey") == agent or event.get("pubkey") != peer:
            return
        mentions = any(tag[:2] == ["p", agent] for tag in event.get("tags", []))
        if event.get("kind") == 9 and mentions and not message.done():
            message.set_result(event)
        if event.get("kind") == 43001 and mentions and not job.done():
            job.set_result(event)

    since = int(time.time()) - 300
    filter_ = {"kinds": [9, 11, 12, 1111, 43001, 43005], "since": since, "#h": [room]}
    await helper.subscribe("tinyagent", filter_, on_event)
    say(ready=agent)

    mention = await asyncio.wait_for(message, TIMEOUT)
    found = await helper.call("query", {"filter": {"ids": [mention["id"]], "#h": [room], "limit": 1}})
    if not found or found[0]["id"] != mention["id"]:
        raise RuntimeError(f"the parent lookup found {found!r}")
    reply = await helper.call("publish", {"event": {
        "kind": 9,
        "content": "Hello back",
        "tags": [["h", room], ["e", mention["id"], "", "reply"], ["p", mention["pubkey"]]],
    }})
    say(step="reply", id=reply["id"])

    request = await asyncio.wait_for(job, TIMEOUT)
    terminal = await helper.call("query", {"filter": {
        "kinds": [43004, 43005, 43006], "#e": [request["id"]], "#h": [room], "limit": 1,
    }})
    if terminal:
        raise RuntimeError(f"the request already has a terminal answer: {terminal!r}")
    started = await helper.call("publish", {"event": {
        "kind": 43002, "content": "", "tags": [["h", room], ["e", request["id"]], ["p", request["pubkey"]]],
    }})
    say(step="accepted", id=started["id"])

    data = b"tinyagent plugin host\n" * 100
    digest = hashlib.sha256(data).hexdigest()
    stored = await helper.call("upload", {
        "room": room, "filename": "report.txt", "type": "text/plain", "data": base64.b64encode(data).decode(),
    })
    link = stored.get("url") or stored.get("path") or stored.get("sha256")
    if not link:
        raise RuntimeError("Tiny upload returned no descriptor")
    if (stored.get("sha256") or stored.get("hash")) != digest:
        raise RuntimeError("Tiny returned a different attachment hash")
    path = "/media/" + link.rsplit("/media/", 1)[-1]
    fetched = await helper.call("download", {"path": path})
    if base64.b64decode(fetched["data"]) != data:
        raise RuntimeError("the downloaded attachment differs from the upload")
    say(step="attachment", url=link, type=fetched.get("type") or "application/octet-stream")

    done = await helper.call("publish", {"event": {
        "kind": 43004, "content": "Hello back\nPosted report.txt",
        "tags": [["h", room], ["e", request["id"]], ["p", request["pubkey"]], ["e", reply["id"]]],
    }})
    await helper.call("unsubscribe", {"subscription": "tinyagent"})
    code = await helper.close()
    say(done=done["id"], exit=code, ignored=helper.ignored)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        sys.exit(asyncio.run(main(*sys.argv[1:])))
    except Exception as error:  # a failure of any step: said, and exit 1
        say(error=f"{type(error).__name__}: {error}")
        sys.exit(1)
