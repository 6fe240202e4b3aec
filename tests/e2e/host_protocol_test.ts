// The host protocol through real pipes: every row of facade.md's "Host
// protocol" table, concurrency, end of input and input bounds.

import assert from "node:assert/strict";
import { startStrictRelay } from "../support/strict_relay/mod.ts";
import { narrowFlags, newKey, runOnce, withFacade } from "../support/tinyagent.ts";
import denoConfig from "../../deno.json" with { type: "json" };
import {
  FALLBACK_VERSION,
  HANDSHAKE_VERSIONS,
  INPUT_LINE_LIMIT_BYTES,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  SESSION_CAPABILITIES,
  structuredTruncationNotePattern,
  TEXT_LIMIT_BYTES,
  truncationMarker,
} from "../support/contract.ts";

const MIB = 1024 * 1024;

Deno.test("initialize, ping and unknown methods", async (t) => {
  await withFacade({}, async (facade, relay) => {
    for (const version of HANDSHAKE_VERSIONS) {
      await t.step(`initialize echoes ${version}`, async () => {
        const answer = await facade.request("initialize", {
          protocolVersion: version,
          capabilities: {},
          clientInfo: { name: "test", version: "1" },
        });
        // Every answer also carries the model's instructions (the listen issue, point 4).
        const { instructions, ...rest } = answer.result as Record<string, unknown>;
        assert.deepEqual(rest, {
          protocolVersion: version,
          capabilities: SESSION_CAPABILITIES,
          serverInfo: { name: "tinyagent", version: denoConfig.version },
        });
        assert.ok(typeof instructions === "string" && instructions.length <= 1200, String(instructions));
      });
    }
    await t.step(`initialize with another version answers ${FALLBACK_VERSION}`, async () => {
      const answer = await facade.request("initialize", { protocolVersion: "2099-01-01" });
      assert.equal((answer.result as Record<string, unknown>).protocolVersion, FALLBACK_VERSION);
    });
    await t.step("ping answers {}", async () => {
      assert.deepEqual(await facade.request("ping", undefined, 7), { jsonrpc: "2.0", id: 7, result: {} });
    });
    await t.step("ids 0, negative numbers and strings are ordinary ids", async () => {
      for (const id of [0, -42, "abc", "", 3.5]) {
        assert.deepEqual(await facade.request("ping", undefined, id), { jsonrpc: "2.0", id, result: {} });
      }
    });
    await t.step(`any other request is ${METHOD_NOT_FOUND}`, async () => {
      for (const method of ["resources/delete", "prompts/list", "initialize/extra", "server/discover"]) {
        const answer = await facade.request(method, {});
        assert.equal((answer.error as Record<string, unknown>).code, METHOD_NOT_FOUND);
      }
    });
    await t.step("notifications are ignored, whatever the method", async () => {
      await facade.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      await facade.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
      await facade.send({ jsonrpc: "2.0", method: "tools/call", params: { name: "list_rooms" } });
      await facade.send({ jsonrpc: "2.0", method: "no/such/thing" });
      const before = facade.lines.length;
      assert.deepEqual(await facade.request("ping", undefined, "after"), {
        jsonrpc: "2.0",
        id: "after",
        result: {},
      });
      assert.equal(facade.lines.length, before + 1, "only the ping was answered");
    });
    await t.step("the handshake and ping never reach the relay", () => {
      assert.equal(relay.requests.length, 0);
    });
  });
});

Deno.test("malformed input", async (t) => {
  await withFacade({}, async (facade) => {
    const cases: [string, string, number][] = [
      ["garbage", "this is not json", PARSE_ERROR],
      ["an array", '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', PARSE_ERROR],
      ["a number", "42", PARSE_ERROR],
      ["a string", '"ping"', PARSE_ERROR],
      ["null", "null", PARSE_ERROR],
      ["truncated JSON", '{"jsonrpc":"2.0","id":1,"meth', PARSE_ERROR],
    ];
    for (const [name, line, code] of cases) {
      await t.step(`${name} answers ${code} with id null`, async () => {
        const answer = facade.answer(null);
        await facade.writeRaw(`${line}\n`);
        const message = await answer;
        assert.equal((message.error as Record<string, unknown>).code, code);
        assert.equal(message.id, null);
      });
    }
    await t.step(`a bad jsonrpc is ${INVALID_REQUEST} with the request's id`, async () => {
      const answer = facade.answer(5);
      await facade.writeRaw('{"jsonrpc":"1.0","id":5,"method":"ping"}\n');
      assert.equal(((await answer).error as Record<string, unknown>).code, INVALID_REQUEST);
    });
    await t.step(`no method is ${INVALID_REQUEST}`, async () => {
      const answer = facade.answer(6);
      await facade.writeRaw('{"jsonrpc":"2.0","id":6,"params":{}}\n');
      assert.equal(((await answer).error as Record<string, unknown>).code, INVALID_REQUEST);
    });
    await t.step("CRLF line endings and blank lines are fine", async () => {
      const answer = facade.answer("crlf");
      await facade.writeRaw('\r\n\n   \n{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n');
      assert.deepEqual((await answer).result, {});
    });
    await t.step("every line after bad input is still answered", async () => {
      assert.deepEqual((await facade.request("ping", undefined, "still")).result, {});
    });
  });
});

Deno.test("requests run concurrently; relay calls are serialized", async (t) => {
  await withFacade({}, async (facade, relay) => {
    await facade.request("tools/list", {}); // the table is cached from here on
    relay.delay(800);
    await t.step("ping and a cached tools/list are answered while a call is in flight", async () => {
      const order: string[] = [];
      const call = facade.request("tools/call", { name: "list_rooms", arguments: {} }, "slow")
        .then((a) => (order.push("call"), a));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const ping = facade.request("ping", undefined, "quick").then((a) => (order.push("ping"), a));
      const list = facade.request("tools/list", {}, "list").then((a) => (order.push("list"), a));
      const [callAnswer, pingAnswer, listAnswer] = await Promise.all([call, ping, list]);
      assert.deepEqual(order, ["ping", "list", "call"]);
      assert.equal(pingAnswer.id, "quick");
      assert.equal(listAnswer.id, "list");
      assert.equal(callAnswer.id, "slow");
      assert.equal((callAnswer.result as Record<string, unknown>).isError, false);
    });
    await t.step("concurrent calls never overlap at the relay, and answers carry the right ids", async () => {
      const ids = [1, 2, 3, 4];
      // Each room is one the relay holds, so each answer names the room its call asked for.
      relay.seed({ rooms: ids.map((id) => ({ id: `room-${id}`, name: `Room ${id}` })) });
      relay.delay(150);
      const answers = await Promise.all(
        ids.map((id) =>
          facade.request("tools/call", { name: "read_room", arguments: { id: `room-${id}` } }, id)
        ),
      );
      for (const [i, answer] of answers.entries()) {
        assert.equal(answer.id, ids[i]);
        const structured =
          (answer.result as Record<string, Record<string, Record<string, unknown>>>).structuredContent;
        assert.equal(structured.room.id, `room-${ids[i]}`);
      }
      assert.equal(relay.maxConcurrent, 1);
      relay.delay(0);
    });
  });
});

Deno.test("end of input with calls in flight: they finish, are answered, exit 0", async () => {
  // The session ends input right after the last line and checks for exit 0.
  const { lines } = await withFacade({}, async (facade, relay) => {
    relay.seed({ rooms: [{ id: "x", name: "X" }] });
    relay.delay(500);
    await facade.send({ jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "list_rooms" } });
    await facade.send({
      jsonrpc: "2.0",
      id: "b",
      method: "tools/call",
      params: { name: "read_room", arguments: { id: "x" } },
    });
    await facade.send({ jsonrpc: "2.0", id: "c", method: "ping" });
  });
  const answers = lines.map((line) => JSON.parse(line));
  assert.deepEqual(answers.map((a) => a.id).sort(), ["a", "b", "c"], "each request answered exactly once");
  for (const answer of answers.filter((a) => a.id !== "c")) assert.equal(answer.result.isError, false);
});

Deno.test("a cancelled call still completes and is answered", async () => {
  await withFacade({}, async (facade, relay) => {
    relay.delay(300);
    const answer = facade.request("tools/call", { name: "list_rooms" }, 99);
    await facade.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } });
    assert.equal(((await answer).result as Record<string, unknown>).isError, false);
    assert.equal(relay.requests.filter((r) => r.path === "/mcp").length, 2); // tools/list, then the call
  });
});

Deno.test(`input lines: 40 MiB accepted and forwarded, over ${INPUT_LINE_LIMIT_BYTES / MIB} MiB refused, the next line answered`, async (t) => {
  // The relay's own /mcp bound is 1 MiB; its operator raised it (--max-message-bytes) for this line.
  await withFacade({ relay: { maxMessageBytes: 64 * MIB } }, async (facade, relay) => {
    await t.step("a 40 MiB line is forwarded whole", async () => {
      const big = "x".repeat(40 * MIB);
      // list_files takes any search text; this answer gives its length and a large (but bounded) text.
      relay.setTool("list_files", ({ args }) => ({
        content: [{ type: "text", text: String(args.q).slice(0, 100_000) }],
        structuredContent: {
          length: String(args.q).length,
          head: String(args.q).slice(0, 300_000),
        },
        isError: false,
      }));
      const answer = facade.answer("big");
      await facade.writeRaw(
        `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"list_files","arguments":{"q":"${big}"}}}\n`,
      );
      const message = await answer;
      const result = message.result as Record<string, unknown>;
      assert.equal(result.isError, false);
      const call = relay.requests.findLast((r) => r.path === "/mcp")!;
      assert.ok(call.bodySize > 40 * 1024 * 1024, "the whole argument reached the relay");
      const args = (call.json as { params: { arguments: { q: string } } }).params.arguments;
      assert.equal(args.q.length, big.length);
      // The answer comes back bounded: text cut at 64 KiB, structuredContent replaced.
      const text = (result.content as { text: string }[])[0].text;
      assert.ok(
        text.startsWith(`${"x".repeat(TEXT_LIMIT_BYTES)}\n${truncationMarker(TEXT_LIMIT_BYTES, 100_000)}`),
      );
      assert.match(text.split("\n").at(-1)!, structuredTruncationNotePattern(), "the note ends the text");
      assert.equal((result.structuredContent as { truncated: boolean }).truncated, true);
    });
    await t.step(
      `a line over ${
        INPUT_LINE_LIMIT_BYTES / MIB
      } MiB is refused with one error naming the limit, keeping the id`,
      async () => {
        const huge = "y".repeat(INPUT_LINE_LIMIT_BYTES + MIB);
        const refused = facade.answer(77);
        await facade.writeRaw(
          `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"list_files","arguments":{"q":"${huge}"}},"id":77}\n`,
        );
        const next = facade.answer("next");
        await facade.writeRaw('{"jsonrpc":"2.0","id":"next","method":"ping"}\n');
        const error = (await refused).error as Record<string, unknown>;
        assert.equal(error.code, INVALID_REQUEST);
        assert.ok(
          String(error.message).includes(`${INPUT_LINE_LIMIT_BYTES / MIB} MiB`),
          String(error.message),
        );
        assert.deepEqual((await next).result, {});
        assert.equal(facade.lines.filter((l) => l.includes('"id":77')).length, 1, "one error, once");
      },
    );
  });
});

Deno.test("ids are echoed exactly as the host wrote them, integers past 2^53 included", async (t) => {
  const relay = await startStrictRelay();
  const key = newKey();
  try {
    const ids = [
      "9007199254740993",
      "-9007199254740993",
      "123456789012345678901234567890",
      "1.0",
      "-0",
      "1e2",
      "7",
    ];
    const lines = ids.flatMap((id) => [
      `{"jsonrpc":"2.0","id":${id},"method":"ping"}`,
      `{"jsonrpc":"2.0","method":"nope","id":${id}}`,
      `{"id":${id},"jsonrpc":"2.0","method":"tools/call","params":{"name":"list_rooms","arguments":{}}}`,
      `{"jsonrpc":"1.0","id":${id},"method":"ping"}`,
    ]);
    const run = await runOnce({
      flags: narrowFlags(relay.host),
      args: ["mcp", "--relay", relay.url],
      env: { TINY_PRIVATE_KEY: key.hex },
      stdin: `${lines.join("\n")}\n`,
    });
    assert.equal(run.code, 0, run.stderr);
    const out = run.stdout.trim().split("\n");
    assert.equal(out.length, lines.length, "one answer per request");
    for (const id of ids) {
      await t.step(
        `id ${id}: a result, an error, a tool result and an invalid request all carry it as written`,
        () => {
          const carrying = out.filter((line) => line.includes(`"id":${id},`) || line.endsWith(`"id":${id}}`));
          assert.equal(carrying.length, 4, `${id}: ${carrying.join("\n")}`);
        },
      );
    }
  } finally {
    await relay.close();
  }
});
