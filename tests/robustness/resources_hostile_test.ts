// Hostile resource requests, end to end (SDK client on pipes, strict relay): URIs that climb with
// `..`, percent-encoding tricks, another relay's host, 100 KB URIs, template variables holding `/`,
// a completion for a template that does not exist, 1,000 subscribe calls, hostile spans, pointers
// and cursors, and a relay that answers a read with garbage. Each gets a clear JSON-RPC error, and the session goes on: a ping answers
// after every one.

import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { refusedWith, withResourceHost } from "../support/resources_host.ts";

const INVALID_PARAMS = -32602;
const RELAY_FAILED = -32000;

/** Refused with `code`, in words that name the problem, bounded; then the session still answers. */
async function refusedClearly(client: Client, request: Promise<unknown>, code: number, words: RegExp) {
  const error = await refusedWith(request);
  assert.equal(error.code, code, error.message);
  assert.match(error.message, words);
  assert.ok(error.message.length < 2000, `a bounded message (${error.message.length})`);
  assert.ok(JSON.stringify(error.data ?? null).length < 4000, "bounded data");
  assert.deepEqual(await client.ping(), {});
  return error;
}

Deno.test("hostile URIs: each refused with its reason, before the relay is asked", async () => {
  await withResourceHost({}, async ({ client, relay, base }) => {
    const before = relay.requests.length;
    const cases: [string, string, RegExp][] = [
      [`${base}/room/..`, "bad-segment", /dot segment|\.\./],
      [`${base}/room/../wiki/secret`, "bad-segment", /segment/],
      [`${base}/room/%2e%2e`, "bad-segment", /segment/],
      [`${base}/room/%2E%2e/thread/x`, "bad-segment", /segment/],
      [`${base}/room/a%2Fb`, "bad-segment", /\//],
      [`${base}/room/a%00b`, "bad-segment", /segment/],
      [`${base}/room/%c0%ae%c0%ae`, "bad-segment", /UTF-8/],
      [`${base}/room/%ZZ`, "bad-segment", /segment/],
      [`${base}/room/%`, "bad-segment", /segment/],
      [`${base}/room/%252e%252e`, "bad-id", /room id/],
      [`${base}/room/gen eral`, "syntax", /percent-encoded/],
      ["tiny://evil.example/room/general", "other-relay", /this server reads relay/],
      [`tiny://user@${base.slice(7)}/room/general`, "other-relay", /this server reads relay/],
      [`tiny://${"a".repeat(100_000)}/room/general`, "too-long", /characters long/],
      [`${base}/room/${"g".repeat(100_000)}`, "too-long", /characters long/],
      ["file:///etc/passwd", "scheme", /only tiny/],
      [`${base}/room/general#x`, "fragment", /fragment/],
      [`${base}/room/general?as=xml`, "bad-query", /as=json/],
    ];
    for (const [uri, reason, words] of cases) {
      const error = await refusedClearly(client, client.readResource({ uri }), INVALID_PARAMS, words);
      assert.equal((error.data as { reason: string }).reason, reason, uri.slice(0, 80));
      await refusedClearly(client, client.subscribeResource({ uri }), INVALID_PARAMS, words);
    }
    assert.equal(relay.requests.length, before, "nothing reached the relay");
  });
});

Deno.test("hostile completions: an unknown template, variables holding /, huge values", async () => {
  await withResourceHost({}, async ({ client, base, key }) => {
    const ref = (uri: string) => ({ type: "ref/resource" as const, uri });
    await refusedClearly(
      client,
      client.complete({ ref: ref(`${base}/secrets/{id}`), argument: { name: "id", value: "a" } }),
      INVALID_PARAMS,
      /is not a resource template here/,
    );
    await refusedClearly(
      client,
      client.complete({ ref: ref(`${base}/${"x".repeat(100_000)}`), argument: { name: "id", value: "a" } }),
      INVALID_PARAMS,
      /is not a resource template here/,
    );
    await refusedClearly(
      client,
      client.complete({
        ref: ref(`${base}/room/{id}`),
        argument: { name: "id", value: "x".repeat(100_000) },
      }),
      INVALID_PARAMS,
      /at most 2048 characters/,
    );
    // A value typed with a `/`, or a chosen variable holding one, completes to nothing that would not parse.
    const slash = await client.complete({
      ref: ref(`${base}/room/{id}`),
      argument: { name: "id", value: "room/../" },
    });
    assert.ok(slash.completion.values.every((value: string) => !value.includes("/")));
    const issues = await client.complete({
      ref: ref(`${base}/repo/{owner}/{name}/issue/{id}`),
      argument: { name: "id", value: "" },
      context: { arguments: { owner: key.pubkey, name: "demo/../other" } },
    });
    assert.deepEqual(issues.completion.values, []);
    assert.deepEqual(await client.ping(), {});
  });
});

Deno.test("1,000 subscribe calls: 100 held, the rest refused clearly, the session going on", async () => {
  await withResourceHost({}, async ({ client, base }) => {
    const answers = await Promise.allSettled(
      Array.from({ length: 1000 }, (_, i) => client.subscribeResource({ uri: `${base}/room/r-${i}` })),
    );
    const held = answers.filter((a) => a.status === "fulfilled").length;
    assert.equal(held, 100);
    const refused = answers.find((a) => a.status === "rejected") as PromiseRejectedResult;
    assert.match(String(refused.reason.message), /At most 100 resources can be subscribed to at once/);
    assert.deepEqual(await client.ping(), {});
    assert.deepEqual(await client.unsubscribeResource({ uri: `${base}/room/r-0` }), {});
    assert.deepEqual(await client.subscribeResource({ uri: `${base}/room/one-more` }), {});
  });
});

Deno.test("a relay that answers a read with garbage: a clear error, and the session goes on", async () => {
  await withResourceHost({}, async ({ client, relay, base }) => {
    await client.readResource({ uri: `${base}/room/room-001` }); // the tool table is loaded
    relay.setTool(
      "read_room",
      () => ({ content: [{ type: "text", text: "<html>garbage</html>" }], isError: false }),
    );
    await refusedClearly(
      client,
      client.readResource({ uri: `${base}/room/room-001` }),
      RELAY_FAILED,
      /no structured answer tinyagent can read/,
    );
    relay.script({ status: 200, body: "garbage", contentType: "application/json" });
    await refusedClearly(
      client,
      client.readResource({ uri: `${base}/room/room-002` }),
      RELAY_FAILED,
      /transport: the relay's answer is not valid JSON/,
    );
    relay.setTool(
      "read_room",
      () => ({ content: [], structuredContent: { room: "not an object", messages: 7 } }),
    );
    const odd = await client.readResource({ uri: `${base}/room/room-001` });
    assert.match((odd.contents[0] as { text: string }).text, /does not recognise this answer of read_room/);
  });
});

Deno.test("hostile spans, pointers and cursors: refused (bad-query) before the relay is asked, the session going on", async () => {
  await withResourceHost({}, async ({ client, relay, base, content }) => {
    const file = `${base}/file/${content.files.text.sha256}`;
    const before = relay.requests.length;
    const cases: [string, RegExp][] = [
      [`${base}/room/room-001?lines=${"9".repeat(40)}-${"9".repeat(40)}`, /more than 15 digits/],
      [`${base}/room/room-001?lines=1-1e30`, /is not FIRST-LAST/],
      [`${base}/room/room-001?lines=-1--5`, /is not FIRST-LAST/],
      [`${base}/room/room-001?lines=5-1`, /reversed/],
      [`${base}/room/room-001?lines=0-0`, /counted from 1/],
      [`${base}/room/room-001?lines=1-${10 ** 9}`, /a piece is at most 10000/],
      [`${file}?range=0-${10 ** 12}`, /a piece is at most 262144/],
      [`${file}?range=%30-%39&range=0-1`, /twice/],
      [`${base}/room/room-001?as=json&pointer=${"/x".repeat(200)}`, /64 steps/],
      [`${base}/room/room-001?as=json&pointer=/a~9`, /~0/],
      [`${base}/room/room-001?as=json&pointer=%ff`, /percent-encoded/],
      [`${base}/room/?cursor=${"c".repeat(1500)}`, /a cursor is 1 to 1024/],
      [`${base}/room/room-001?as=links&cursor=-1`, /where the page starts/],
      [`${base}/room/room-001?lines=1-2&range=0-1`, /range is of a file|one span at a time/],
    ];
    for (const [uri, words] of cases) {
      const error = await refusedClearly(client, client.readResource({ uri }), INVALID_PARAMS, words);
      assert.equal((error.data as { reason: string }).reason, "bad-query", uri.slice(0, 100));
    }
    assert.equal(relay.requests.length, before, "nothing reached the relay");
    // Hostile at the relay's end: a pointer to nothing, a cursor it refuses.
    await refusedClearly(
      client,
      client.readResource({ uri: `${base}/room/room-001?as=json&pointer=/__proto__/polluted` }),
      INVALID_PARAMS,
      /has no member/,
    );
    await refusedClearly(
      client,
      client.readResource({ uri: `${base}/room/room-001/thread/?cursor=${encodeURIComponent("'; DROP")}` }),
      INVALID_PARAMS,
      /does not take this cursor/,
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
