// NIP-98 tokens under load: a thousand calls sent at once, many of them
// identical, through one process. Every request must carry a fresh token
// bound to its own URL, method and body, and the strict relay (which verifies
// each with nostr-tools and refuses any event id it has seen) must accept
// every one.

import assert from "node:assert/strict";
import { type NostrEvent, verifyEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { StrictRelay } from "../support/strict_relay/mod.ts";
import { withFacade } from "../support/tinyagent.ts";
import { NIP98_KIND, TINY_DIAGNOSE } from "../support/contract.ts";

const CALLS = 1000;

/** What the relay holds for the reads to answer: room general, and seven files the agent stored. */
function hold(relay: StrictRelay, agent: string): string[] {
  const files = Array.from({ length: 7 }, (_, n) => ({
    bytes: new TextEncoder().encode(`file ${n}`),
    type: "text/plain",
    uploader: agent,
    uploaded: 1_700_000_000,
  }));
  relay.seed({ rooms: [{ id: "general", name: "General" }], files });
  return files.map((file) => bytesToHex(sha256(file.bytes)));
}

/** The calls: mostly identical ones, some varied, a few to tiny_diagnose (the NIP-86 endpoint). */
function plan(hashes: string[]): { name: string; arguments: Record<string, unknown> }[] {
  const calls: { name: string; arguments: Record<string, unknown> }[] = [];
  for (let i = 0; i < CALLS; i++) {
    if (i % 50 === 49) calls.push({ name: TINY_DIAGNOSE, arguments: {} });
    else if (i % 3 === 0) calls.push({ name: "list_rooms", arguments: {} });
    else if (i % 3 === 1) calls.push({ name: "read_room", arguments: { id: "general" } });
    else calls.push({ name: "read_file", arguments: { hash: hashes[i % 7] } });
  }
  return calls;
}

const tag = (event: NostrEvent, name: string) => event.tags.find((t) => t[0] === name)?.[1];

Deno.test(`tokens: ${CALLS} pipelined calls, every token fresh, verified and accepted`, async (t) => {
  const { lines } = await withFacade({}, async (facade, relay, key) => {
    const calls = plan(hold(relay, key.pubkey));
    const started = Date.now();
    // Every request written before the first answer is read: all of them in flight at once.
    const answers = calls.map((_, i) => facade.answer(i));
    await facade.writeRaw(
      calls.map((params, id) => `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params })}\n`)
        .join(""),
    );
    const results = await Promise.all(answers);
    const elapsed = Date.now() - started;
    console.log(
      `tokens: ${CALLS} calls answered in ${elapsed} ms (${Math.round(CALLS / (elapsed / 1000))}/s)`,
    );

    await t.step("every call answered, none an error", () => {
      for (const [i, answer] of results.entries()) {
        const result = answer.result as { isError?: boolean; content: { text?: string }[] } | undefined;
        assert.ok(result, `call ${i}: ${JSON.stringify(answer.error)}`);
        assert.equal(result.isError, false, `call ${i}: ${result.content[0]?.text}`);
      }
    });

    const requests = relay.requests;
    await t.step("the relay saw one request per call, plus the table, and accepted all", () => {
      const mcp = requests.filter((r) => r.path === "/mcp");
      const manage = requests.filter((r) => r.path === "/manage/rpc");
      const diagnoses = calls.filter((c) => c.name === TINY_DIAGNOSE).length;
      assert.equal(mcp.length, CALLS - diagnoses + 1, "each tools/call once, and one tools/list");
      assert.equal(manage.length, diagnoses);
      for (const request of requests) {
        assert.equal(request.status, 200, `${request.path}: ${request.bodyText.slice(0, 200)}`);
      }
      assert.equal(relay.maxConcurrent, 1, "serialized");
    });

    await t.step("no token repeats: distinct event ids, nonces and signatures", () => {
      const tokens = requests.map((r) => r.auth!);
      assert.ok(tokens.every((token) => token !== undefined));
      for (const field of ["id", "sig"] as const) {
        assert.equal(new Set(tokens.map((token) => token[field])).size, tokens.length, `${field} repeats`);
      }
      const nonces = tokens.map((token) => tag(token, "nonce"));
      assert.equal(new Set(nonces).size, tokens.length, "nonce repeats");
      // Identical calls within one second still differ: many shared a second here.
      const seconds = new Set(tokens.map((token) => token.created_at));
      assert.ok(seconds.size < tokens.length, "the run is dense enough to share seconds");
    });

    await t.step("every token verifies and is bound to its own request", () => {
      for (const [i, request] of requests.entries()) {
        const token = request.auth!;
        assert.ok(verifyEvent(structuredClone(token)), `request ${i}: the signature verifies`);
        assert.equal(token.kind, NIP98_KIND);
        assert.equal(token.pubkey, key.pubkey);
        assert.equal(token.content, "");
        assert.equal(tag(token, "u"), request.path === "/mcp" ? relay.mcpUrl : relay.manageUrl);
        assert.equal(tag(token, "method"), "POST");
        assert.equal(tag(token, "payload"), bytesToHex(sha256(request.body)), `request ${i}: payload`);
        assert.match(tag(token, "nonce") ?? "", /^[0-9a-f]{24}$/);
        assert.ok(
          Math.abs(token.created_at - request.receivedAt / 1000) < 5,
          `request ${i}: created_at is now`,
        );
      }
    });

    await t.step("the call reached the relay as sent", () => {
      const sent = calls.filter((c) => c.name !== TINY_DIAGNOSE).map((c) => JSON.stringify(c)).sort();
      const received = requests
        .filter((r) => (r.json as { method: string }).method === "tools/call")
        .map((r) => {
          const params = (r.json as { params: { name: string; arguments: unknown } }).params;
          return JSON.stringify({ name: params.name, arguments: params.arguments });
        })
        .sort();
      assert.deepEqual(received, sent);
    });
  });
  // The session checked exit 0, that stdout holds only JSON-RPC answers, and that the key never shows.
  await t.step("one answer line per call", () => {
    assert.equal(lines.length, CALLS);
  });
});

Deno.test("tokens: a keep-alive relay that drops connections never sees a token twice", async (t) => {
  // A relay that reuses connections, and drops some after reading a request but before
  // answering (a crash, a restart, a proxy cutting it). A client that resent the request on
  // another connection with the same Authorization header would present the relay a replayed
  // token: refused, and reported to the host as a `permission:` failure it is not.
  await withFacade({ relay: { keepAlive: true } }, async (facade, relay) => {
    let n = 0;
    relay.setTool(
      "read_room",
      () => (n++ % 3 === 2 ? { drop: true } : { content: [{ type: "text", text: "ok" }], isError: false }),
    );
    const rounds = 60;
    const answers: { result?: { isError?: boolean; content: { text?: string }[] } }[] = [];
    for (let i = 0; i < rounds; i++) {
      answers.push(
        (await facade.request("tools/call", {
          name: "read_room",
          arguments: { id: "general" },
        })) as (typeof answers)[0],
      );
    }

    await t.step("every dropped call is a transport failure, every other one succeeds", () => {
      for (const [i, answer] of answers.entries()) {
        assert.ok(answer.result, `call ${i}`);
        if (i % 3 === 2) {
          assert.equal(answer.result.isError, true, `call ${i}`);
          assert.match(answer.result.content[0].text ?? "", /^transport: /, `call ${i}`);
        } else {
          assert.equal(answer.result.isError, false, `call ${i}: ${answer.result.content[0].text}`);
        }
      }
    });

    await t.step("one request per call at the relay, each with its own token", () => {
      const calls = relay.requests.filter((r) => (r.json as { method: string }).method === "tools/call");
      assert.equal(calls.length, rounds, "no request was sent twice");
      const ids = relay.requests.map((r) => r.auth!.id);
      assert.equal(new Set(ids).size, ids.length, "a token was presented twice");
      assert.ok(relay.requests.every((r) => r.status !== 401), "no token refused");
    });
  });
});
