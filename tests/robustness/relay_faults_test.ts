// Every way the relay can fail, at every point the facade talks to it: while
// loading the tool table for tools/list, while loading it for a tools/call,
// and during a call. Each failure must reach the host as the contract's
// prefix (facade.md "Errors": `transport:`, `permission:`, `relay:`), never
// crash the process or make a second request, and the very next call must
// succeed once the relay has recovered.

import assert from "node:assert/strict";
import { verifyEvent } from "nostr-tools/pure";
import {
  DEFAULT_TOOLS,
  type Fault,
  startStrictRelay,
  type StrictRelay,
} from "../support/strict_relay/mod.ts";
import { type Tinyagent, withFacade } from "../support/tinyagent.ts";
import type { LimitAnswer, RateFront } from "../support/rate_front.ts";
import { eventually, startTcpProxy } from "../support/robustness_kit.ts";
import { CONTRACT_READ, TINY_DIAGNOSE } from "../support/contract.ts";

type Result = {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

const jsonrpcBody = (message: string, code = -32000) =>
  JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } });

/**
 * A fault, and what the host must see for it (the relay's failure text, prefix first). A 429 is not
 * the relay's (it has none): the rate-limiting front before it sends `limited`.
 */
interface Case {
  name: string;
  fault?: () => Fault;
  limited?: LimitAnswer;
  expected: RegExp;
}

const CASES: Case[] = [
  {
    name: "connection dropped before any answer",
    fault: () => ({ drop: true }),
    // The relay read the request, so it may have run it: "no answer", never a retry.
    expected: /^transport: no answer from \S+: the relay closed the connection before any answer/,
  },
  { name: "reset mid-body", fault: () => ({ resetMidBody: true }), expected: /^transport: / },
  {
    name: "500 text",
    fault: () => ({ status: 500, body: "boom\n", contentType: "text/plain" }),
    expected: /^transport: HTTP 500: boom$/,
  },
  { name: "502 without a body", fault: () => ({ status: 502 }), expected: /^transport: HTTP 502$/ },
  {
    name: "503 with a JSON-RPC error",
    fault: () => ({ status: 503, body: jsonrpcBody("overloaded") }),
    expected: /^transport: HTTP 503: overloaded$/,
  },
  {
    name: "504 HTML",
    fault: () => ({
      status: 504,
      body: "<html><body>Gateway\nTimeout</body></html>",
      contentType: "text/html",
    }),
    expected: /^transport: HTTP 504: <html><body>Gateway Timeout<\/body><\/html>$/,
  },
  {
    name: "invalid JSON",
    fault: () => ({ status: 200, body: '{"jsonrpc":"2.0","id":1,"result":{' }),
    expected: /^transport: the relay's answer is not valid JSON$/,
  },
  {
    name: "wrong content type",
    fault: () => ({
      status: 200,
      body: "<html>a captive portal</html>",
      contentType: "text/html; charset=utf-8",
    }),
    expected: /^transport: the relay answered with text\/html; charset=utf-8, not application\/json$/,
  },
  {
    name: "JSON but not a JSON-RPC result",
    fault: () => ({ status: 200, body: '{"jsonrpc":"2.0","id":1,"result":"ok"}' }),
    expected: /^transport: the relay's answer is not a JSON-RPC result$/,
  },
  {
    name: "a result for another request",
    fault: () => ({ status: 200, body: '{"jsonrpc":"2.0","id":"someone-else","result":{"content":[]}}' }),
    expected: /^transport: the relay answered request "someone-else", not \d+$/,
  },
  {
    name: "a 70 MiB chunked body",
    fault: () => ({ hugeBodyBytes: 70 * 1024 * 1024, chunked: true }),
    expected: /^transport: the relay's answer exceeds 64 MiB$/,
  },
  {
    name: "a 70 MiB declared body",
    fault: () => ({ hugeBodyBytes: 70 * 1024 * 1024 }),
    expected: /^transport: the relay's answer exceeds 64 MiB$/,
  },
  {
    name: "401 with a JSON-RPC error",
    fault: () => ({
      status: 401,
      body: jsonrpcBody("auth-required: token expired", -32600),
      headers: { "WWW-Authenticate": 'Nostr realm="tiny"' },
    }),
    expected: /^permission: auth-required: token expired$/,
  },
  { name: "401 without a body", fault: () => ({ status: 401 }), expected: /^permission: HTTP 401$/ },
  {
    name: "403 with a JSON-RPC error",
    fault: () => ({ status: 403, body: jsonrpcBody("restricted: this relay is members-only", -32600) }),
    expected: /^permission: restricted: this relay is members-only$/,
  },
  {
    name: "403 text",
    fault: () => ({ status: 403, body: "Forbidden", contentType: "text/plain" }),
    expected: /^permission: HTTP 403: Forbidden$/,
  },
  {
    name: "404 text",
    fault: () => ({ status: 404, body: "404 page not found\n", contentType: "text/plain" }),
    expected: /^relay: HTTP 404: 404 page not found$/,
  },
  {
    name: "404 with a JSON-RPC error",
    fault: () => ({ jsonrpcError: { code: -32601, message: "Method not found" }, status: 404 }),
    expected: /^relay: Method not found$/,
  },
  {
    name: "a front's 429 with a JSON-RPC error",
    limited: { retryAfter: 1, body: jsonrpcBody("rate-limited: slow down") },
    expected: /^relay: rate-limited: slow down; retry after 1 s$/,
  },
  {
    name: "a front's 429 without a body",
    limited: {},
    expected: /^relay: rate-limited: HTTP 429; retry later$/,
  },
  {
    name: "200 carrying a JSON-RPC error",
    fault: () => ({ jsonrpcError: { code: -32603, message: "internal: database is locked" }, status: 200 }),
    expected: /^relay: internal: database is locked$/,
  },
  {
    name: "a redirect, not followed",
    fault: () => ({ status: 307, headers: { Location: "/elsewhere/mcp" } }),
    expected: /^relay: HTTP 307$/,
  },
];

/** The /mcp requests among `requests` (a relay's, or those a front answered). */
const mcpRequests = <R extends { path: string }>(requests: R[]) =>
  requests.filter((r) => r.path.endsWith("/mcp"));

async function call(facade: Tinyagent, name: string, args: Record<string, unknown> = {}): Promise<Result> {
  const answer = await facade.request("tools/call", { name, arguments: args });
  assert.ok(answer.result, `a tool result, not a protocol error: ${JSON.stringify(answer.error)}`);
  return answer.result as Result;
}

async function listNames(facade: Tinyagent): Promise<string[]> {
  const answer = await facade.request("tools/list", {});
  assert.ok(answer.result, `tools/list is never an error: ${JSON.stringify(answer.error)}`);
  return (answer.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
}

/** The one room the relays of these tests hold (holdRoom). */
const ROOM = { id: "general", name: "General" };

/** The relay holds one room, so list_rooms has a real answer to give. */
function holdRoom(relay: StrictRelay): void {
  relay.seed({ rooms: [ROOM] });
}

/** The relay's list_rooms answer, its one room in it: the call went through and came back whole. */
function assertWorks(result: Result, context: string): void {
  assert.equal(result.isError, false, `${context}: ${JSON.stringify(result).slice(0, 300)}`);
  const rooms = result.structuredContent?.items as { id: string }[] | undefined;
  assert.deepEqual(rooms?.map((room) => room.id), [ROOM.id], context);
  assert.equal(result.structuredContent?.next_cursor, "", context);
}

function assertFailure(result: Result, expected: RegExp, context: string): void {
  assert.equal(result.isError, true, `${context}: ${JSON.stringify(result).slice(0, 300)}`);
  assert.equal(result.content.length, 1, context);
  assert.equal(result.content[0].type, "text", context);
  assert.match(result.content[0].text!, expected, context);
}

/**
 * Makes the facade drop its cached table: the relay stops listing read_status,
 * a call to it is refused as unknown, and the table comes back.
 */
async function dropTable(facade: Tinyagent, relay: StrictRelay): Promise<void> {
  relay.setTable(DEFAULT_TOOLS.filter((tool) => tool.name !== "read_status"));
  const result = await call(facade, "read_status");
  assertFailure(result, /^relay: Unknown tool: read_status$/, "the relay reports an unknown tool");
  relay.setTable(DEFAULT_TOOLS);
}

/** Beyond the session's own checks (exit 0, clean stdout, no key anywhere): no request failed inside. */
function assertNoInternalError(stderr: string): void {
  assert.ok(!/internal error/i.test(stderr), stderr);
}

for (const keepAlive of [false, true]) {
  const connections = keepAlive ? "a keep-alive relay" : "a fresh connection per request";
  Deno.test(`relay faults, ${connections}: each reaches the host with its prefix, the next call works`, async (t) => {
    await faultMatrix(t, keepAlive);
  });
}

async function faultMatrix(t: Deno.TestContext, keepAlive: boolean): Promise<void> {
  // Through a rate-limiting front, a pipe but for the 429s the cases ask of it.
  const session = { relay: { keepAlive }, front: true };
  const { stderr } = await withFacade(session, async (facade, relay, key, front) => {
    holdRoom(relay);
    /** Every /mcp request that left tinyagent: those the front answered and those the relay did. */
    const sent = () => [...mcpRequests(front!.answered), ...mcpRequests(relay.requests)];
    const inject = (c: Case) => c.limited ? front!.limit(1, c.limited) : relay.script(c.fault!());
    assert.deepEqual(await listNames(facade), [...CONTRACT_READ, TINY_DIAGNOSE]);
    for (const c of CASES) {
      const { name, expected } = c;
      await t.step(`${name}: during a call`, async () => {
        const before = sent().length;
        inject(c);
        assertFailure(await call(facade, "list_rooms"), expected, name);
        assert.equal(sent().length, before + 1, "one request: no retry, no redirect followed");
        assertWorks(await call(facade, "list_rooms"), `${name}: the next call`);
      });

      await t.step(`${name}: loading the table for tools/list`, async () => {
        await dropTable(facade, relay);
        const stderrBefore = facade.stderr.length;
        inject(c);
        assert.deepEqual(await listNames(facade), [TINY_DIAGNOSE], "tiny_diagnose alone, never an error");
        const line = new RegExp(`tools/list: ${expected.source.replace(/^\^/, "").replace(/\$$/, "")}`);
        await eventually(
          () => line.test(facade.stderr.slice(stderrBefore)),
          `the failure on stderr (${line})`,
        );
        assert.deepEqual(await listNames(facade), [...CONTRACT_READ, TINY_DIAGNOSE], "fetched again");
        assertWorks(await call(facade, "list_rooms"), `${name}: the next call`);
      });

      await t.step(
        `${name}: loading the table for a call: the call still goes, the table comes back`,
        async () => {
          await dropTable(facade, relay);
          const before = {
            front: mcpRequests(front!.answered).length,
            relay: mcpRequests(relay.requests).length,
          };
          const stderrBefore = facade.stderr.length;
          inject(c);
          // facade.md: a failed table is fetched again on the next tools/call the relay answers.
          assertWorks(await call(facade, "list_rooms"), `${name}: the call itself`);
          // The front answers the first request after its 429 is queued, so its come first.
          const methods = [
            ...mcpRequests(front!.answered).slice(before.front),
            ...mcpRequests(relay.requests).slice(before.relay),
          ].map((r) => (r.json as { method: string }).method);
          assert.deepEqual(methods, ["tools/list", "tools/call", "tools/list"], "table, call, table again");
          const line = new RegExp(`tools/list: ${expected.source.replace(/^\^/, "").replace(/\$$/, "")}`);
          await eventually(
            () => line.test(facade.stderr.slice(stderrBefore)),
            `the failure on stderr (${line})`,
          );
          assert.deepEqual(
            await listNames(facade),
            [...CONTRACT_READ, TINY_DIAGNOSE],
            "the table is held again",
          );
          assertWorks(await call(facade, "list_rooms"), `${name}: the next call`);
        },
      );
    }

    await t.step("nothing was redirected: no request reached the Location", () => {
      assert.ok(!relay.requests.some((r) => r.path.startsWith("/elsewhere")));
    });

    await t.step("every request carried a fresh token of the agent's, faults or not", () => {
      const requests = sent();
      for (const request of requests) {
        assert.ok(request.auth && verifyEvent(structuredClone(request.auth)), "a token that verifies");
        assert.equal(request.auth.pubkey, key.pubkey);
      }
      const ids = requests.map((r) => r.auth!.id);
      assert.equal(new Set(ids).size, ids.length, "no token used twice");
    });
  });
  assertNoInternalError(stderr);
}

Deno.test("a relay that goes away: connection refused, a hang, then the same port again", async (t) => {
  const relay = await startStrictRelay();
  holdRoom(relay);
  // The facade talks to a proxy port that can stop listening and listen again.
  const proxy = startTcpProxy(relay.port);
  await proxy.down(); // a port nothing listens on
  const refused = /^transport: cannot reach http:\/\/127\.0\.0\.1:\d+\/mcp: .+/;
  const session = { relay, url: proxy.origin, args: ["--timeout", "1"] };
  try {
    const { stderr } = await withFacade(session, async (facade) => {
      await t.step("refused while loading the table: tiny_diagnose alone, the reason on stderr", async () => {
        assert.deepEqual(await listNames(facade), [TINY_DIAGNOSE]);
        await eventually(
          () => /tools\/list: transport: cannot reach /.test(facade.stderr),
          "the failure on stderr",
        );
        assertFailure(await call(facade, "list_rooms"), refused, "a call while nothing listens");
        assert.equal(relay.requests.length, 0);
      });

      await t.step("tiny_diagnose reports the refusal as a result: unreachable", async () => {
        const result = await call(facade, TINY_DIAGNOSE);
        assert.equal(result.isError, false);
        assert.match(result.content[0].text!, /^unreachable: /);
        assert.equal((result.structuredContent as { verdict: string }).verdict, "unreachable");
      });

      await t.step("the relay comes back on the same port: the table loads, the call works", async () => {
        proxy.up();
        assert.deepEqual(await listNames(facade), [...CONTRACT_READ, TINY_DIAGNOSE]);
        assertWorks(await call(facade, "list_rooms"), "after recovery");
      });

      for (let round = 1; round <= 3; round++) {
        await t.step(`round ${round}: refused mid-session, then back`, async () => {
          await proxy.down();
          const before = relay.requests.length;
          assertFailure(await call(facade, "list_rooms"), refused, "refused");
          assert.equal(relay.requests.length, before);
          proxy.up();
          assertWorks(await call(facade, "list_rooms"), "the next call");
        });
      }

      await t.step("a relay that never answers: bounded by --timeout 1, during a call", async () => {
        relay.script({ hang: true });
        const started = Date.now();
        assertFailure(
          await call(facade, "list_rooms"),
          /^transport: no answer from http:\/\/127\.0\.0\.1:\d+\/mcp within 1 s$/,
          "hang",
        );
        const elapsed = Date.now() - started;
        assert.ok(elapsed >= 900 && elapsed < 5000, `answered after ${elapsed} ms`);
        assertWorks(await call(facade, "list_rooms"), "the next call");
      });

      await t.step("a relay that never answers: while loading the table", async () => {
        await dropTable(facade, relay);
        relay.script({ hang: true });
        const stderrBefore = facade.stderr.length;
        assert.deepEqual(await listNames(facade), [TINY_DIAGNOSE]);
        await eventually(
          () =>
            /tools\/list: transport: no answer from .* within 1 s/.test(facade.stderr.slice(stderrBefore)),
          "the timeout on stderr",
        );
        assert.deepEqual(await listNames(facade), [...CONTRACT_READ, TINY_DIAGNOSE]);
      });

      await t.step("ping is answered while a call hangs", async () => {
        relay.script({ hang: true });
        const hanging = call(facade, "list_rooms");
        await new Promise((resolve) => setTimeout(resolve, 100));
        const started = Date.now();
        assert.deepEqual((await facade.request("ping")).result, {});
        assert.ok(Date.now() - started < 500, "ping did not wait for the relay");
        assertFailure(await hanging, /^transport: no answer from /, "hang");
        assertWorks(await call(facade, "list_rooms"), "the next call");
      });

      await t.step("down while a call is queued behind a hang: both fail, the next works", async () => {
        relay.script({ hang: true });
        const first = call(facade, "list_rooms");
        const second = call(facade, "read_room", { id: "x" });
        await new Promise((resolve) => setTimeout(resolve, 200));
        await proxy.down();
        assertFailure(await first, /^transport: /, "the hung call, cut");
        assertFailure(await second, refused, "the queued call");
        proxy.up();
        assertWorks(await call(facade, "list_rooms"), "the next call");
      });

      await t.step("an answer that stops halfway through its body: bounded by --timeout 1", async () => {
        relay.setTool(
          "read_file",
          () => ({ content: [{ type: "text", text: "x".repeat(200_000) }], isError: false }),
        );
        proxy.inject({ stallAfter: 100_000 });
        const started = Date.now();
        assertFailure(
          await call(facade, "read_file", { hash: "a".repeat(64) }),
          /^transport: no answer from http:\/\/127\.0\.0\.1:\d+\/mcp within 1 s$/,
          "stalled body",
        );
        assert.ok(Date.now() - started < 5000);
        assertWorks(await call(facade, "list_rooms"), "the next call");
      });

      await t.step("an answer that stops inside its status line", async () => {
        proxy.inject({ stallAfter: 12 });
        assertFailure(
          await call(facade, "list_rooms"),
          /^transport: no answer from .* within 1 s$/,
          "stalled head",
        );
        assertWorks(await call(facade, "list_rooms"), "the next call");
      });

      const raw: [string, string, RegExp][] = [
        ["not HTTP at all", "SSH-2.0-OpenSSH_9.6\r\n", /^transport: no answer from \S+: /],
        [
          "an empty answer",
          "",
          /^transport: no answer from \S+: the relay closed the connection before any answer/,
        ],
        [
          "a malformed status line",
          "HTTP/1.1 two hundred OK\r\n\r\n",
          /^transport: no answer from \S+: the relay's answer is not HTTP/,
        ],
        ["a malformed Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: nope\r\n\r\n{}", /^transport: /],
        [
          "a body shorter than its Content-Length",
          'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"jsonrpc":"2.0"',
          /^transport: /,
        ],
        [
          "a broken chunked body",
          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n",
          /^transport: /,
        ],
        [
          "an answer that is only an interim 100 Continue",
          "HTTP/1.1 100 Continue\r\n\r\n",
          /^transport: /,
        ],
      ];
      for (const [name, bytes, expected] of raw) {
        await t.step(`a peer that answers ${name}`, async () => {
          const before = relay.requests.length;
          proxy.inject({ raw: new TextEncoder().encode(bytes) });
          assertFailure(await call(facade, "list_rooms"), expected, name);
          assert.equal(relay.requests.length, before, "the relay itself saw nothing");
          assertWorks(await call(facade, "list_rooms"), "the next call");
        });
      }
    });
    assertNoInternalError(stderr);
  } finally {
    await proxy.close();
    await relay.close();
  }
});

Deno.test("a fault on the resubmission of a signed event: the prefix, no third call", async (t) => {
  const relay = await startStrictRelay();
  let fault: Fault | undefined;
  // A 429 for the resubmission: queued at the front while the template is answered, before the
  // resubmission can leave tinyagent, so it is the next request the front sees.
  let limited: LimitAnswer | undefined;
  let front: RateFront | undefined;
  relay.setTool("post_message", ({ args }) => {
    if (args.event === undefined) {
      if (limited) front!.limit(1, limited);
      limited = undefined;
      const unsigned = {
        kind: 9,
        created_at: Math.floor(Date.now() / 1000),
        tags: [["h", "general"]],
        content: "hi",
      };
      return {
        content: [{ type: "text", text: "sign it" }],
        structuredContent: { unsigned, next: "sign" },
        isError: false,
      };
    }
    const answer = fault;
    fault = undefined;
    if (answer) return answer;
    const event = args.event as { id: string };
    return {
      content: [{ type: "text", text: "published" }],
      structuredContent: { event_id: event.id, accepted: true, message: "" },
      isError: false,
    };
  });
  const toolCalls = (requests: { json?: unknown }[]) =>
    requests.filter((r) => (r.json as { method?: string })?.method === "tools/call")
      .map((r) => (r.json as { params: { arguments: Record<string, unknown> } }).params.arguments);
  /** Where the calls stand: the relay's and the front's. */
  const mark = () => [toolCalls(relay.requests).length, toolCalls(front!.answered).length];
  /**
   * The calls since `since`: the relay's, then the front's, which only ever answers a resubmission,
   * after its template.
   */
  const callsSince = ([atRelay, atFront]: number[]) => [
    ...toolCalls(relay.requests).slice(atRelay),
    ...toolCalls(front!.answered).slice(atFront),
  ];
  const session = { relay, front: true, args: ["--allow-writes", "--tools", "post_message"] };
  try {
    const { stderr } = await withFacade(session, async (facade, _relay, key, theFront) => {
      front = theFront;
      for (const { name, fault: make, limited: limit, expected } of CASES) {
        await t.step(name, async () => {
          fault = make?.();
          limited = limit;
          const before = mark();
          const result = await call(facade, "post_message", { room: "general" });
          const made = callsSince(before);
          assert.equal(made.length, 2, "the template call and the resubmission, never a third");
          assert.equal(made[0].event, undefined);
          const event = made[1].event as Parameters<typeof verifyEvent>[0];
          assert.ok(verifyEvent(structuredClone(event)), "the resubmission carried a signed event");
          assert.equal(event.pubkey, key.pubkey);
          // The failure's words first, as for any call. After a transport failure the event went out
          // and its fate is unknown: then what the agent must know before it tries again, its id, not
          // sent again, and where to look. A refusal (a status the relay chose) needs none.
          const [detail, advice] = String(result.content[0]?.text).split(/(?=\. The signed event )/);
          assertFailure({ ...result, content: [{ type: "text", text: detail }] }, expected, name);
          if (!expected.source.startsWith("^transport: ")) {
            assert.equal(advice, undefined, name);
            return;
          }
          assert.match(
            advice ?? "",
            new RegExp(
              `^\\. The signed event ${event.id} \\(kind 9\\) was sent, but .*tinyagent did not send it again\\. ` +
                `.*check with read_room \\{"id":"general"\\} whether it is there: calling post_message again ` +
                `would publish a second event\\.$`,
            ),
            name,
          );
          const next = await call(facade, "post_message", { room: "general" });
          assert.equal(next.isError, false, JSON.stringify(next));
          assert.equal(next.structuredContent?.accepted, true);
        });
      }
    });
    assertNoInternalError(stderr);
  } finally {
    await relay.close();
  }
});
