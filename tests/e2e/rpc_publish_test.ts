// `publish` end to end (rpc-facts.md 3.2, 4.2, 6.3): the event signed as given (created_at filled
// when absent), verified by nostr-tools, POSTed to <base>/events under a NIP-98 proof bound to the
// exact URL and bytes; the relay's receipt read as the Go peer reads it; never an authorization or
// an agent grant, and with --kinds only those kinds; the person's hold: a receipt line per signed
// event, --max-writes, --audit-log.

import assert from "node:assert/strict";
import { verifyEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import { RpcHelper } from "../support/rpc_helper.ts";
import { newKey, type TestKey } from "../support/tinyagent.ts";

type Event = {
  id: string;
  pubkey: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  sig: string;
};

async function session(
  relay: StrictRelay,
  fn: (helper: RpcHelper, key: TestKey) => Promise<void>,
  args: string[] = [],
): Promise<string> {
  const key = newKey();
  const helper = await RpcHelper.start({ relayUrl: relay.url, key, args });
  try {
    await fn(helper, key);
    const { code, stderr } = await helper.end();
    assert.equal(code, 0, stderr);
    return stderr;
  } finally {
    await helper.close();
  }
}

const tag = (event: { tags: string[][] }, name: string) => event.tags.find((t) => t[0] === name)?.[1];

Deno.test("publish: signed as given, sent to /events under a proof of the exact URL and bytes", async (t) => {
  for (const prefix of ["", "/r/acme"]) {
    // The operator's grant covers short notes (kind 1) besides room messages.
    const relay = await startStrictRelay({ prefix, grantScope: { rooms: ["general"], kinds: [1, 9] } });
    try {
      await session(relay, async (helper, key) => {
        await t.step(
          `${prefix || "no tenant"}: the result is the signed event, the relay holds it`,
          async () => {
            const before = Math.floor(Date.now() / 1000);
            const answer = await helper.call("publish", {
              event: {
                kind: 9,
                content: "hello <&> room",
                tags: [["h", "general"]],
                id: "x",
                sig: "y",
                pubkey: "z",
              },
            });
            const event = answer.result as Event;
            assert.deepEqual(Object.keys(event), [
              "id",
              "pubkey",
              "created_at",
              "kind",
              "tags",
              "content",
              "sig",
            ]);
            assert.ok(verifyEvent({ ...event }), "nostr-tools verifies it");
            assert.equal(event.pubkey, key.pubkey);
            assert.equal(event.content, "hello <&> room");
            assert.ok(
              event.created_at >= before && event.created_at <= before + 5,
              "created_at filled with now",
            );
            assert.deepEqual(relay.events.map((e) => e.id), [event.id]);
          },
        );
        await t.step("the request: POST <base>/events, JSON, a fresh NIP-98 proof of its exact bytes", () => {
          const request = relay.requests.at(-1)!;
          assert.equal(request.method, "POST");
          assert.equal(request.url, `${relay.url}/events`);
          assert.equal(request.headers.get("content-type"), "application/json");
          const proof = request.auth!;
          assert.ok(verifyEvent({ ...proof }));
          assert.equal(proof.kind, 27235);
          assert.equal(tag(proof, "u"), `${relay.url}/events`);
          assert.equal(tag(proof, "method"), "POST");
          assert.equal(tag(proof, "payload"), bytesToHex(sha256(request.body)));
          assert.match(tag(proof, "nonce") ?? "", /^[0-9a-f]{24}$/);
          assert.deepEqual(Object.keys(JSON.parse(request.bodyText)), [
            "id",
            "pubkey",
            "created_at",
            "kind",
            "tags",
            "content",
            "sig",
          ]);
          assert.ok(request.bodyText.includes("<&>"), "no HTML escaping in the body");
        });
        await t.step("a created_at given is kept; tags absent are []", async () => {
          const answer = await helper.call("publish", {
            event: { kind: 1, content: "old", created_at: 1_700_000_000 },
          });
          const event = answer.result as Event;
          assert.equal(event.created_at, 1_700_000_000);
          assert.deepEqual(event.tags, []);
          assert.ok(verifyEvent({ ...event }));
        });
      });
    } finally {
      await relay.close();
    }
  }
});

Deno.test("publish: the relay's refusals, in the Go peer's words", async (t) => {
  const relay = await startStrictRelay();
  try {
    await session(relay, async (helper, key) => {
      await t.step("a gate refuses: relay HTTP 400 Bad Request with the receipt", async () => {
        relay.setEventGate((event) =>
          event.kind === 7 ? "restricted: agent grant does not cover kind 7" : undefined
        );
        const answer = await helper.call("publish", {
          event: { kind: 7, content: "+", tags: [["h", "general"]] },
        });
        const message = (answer.error as { message: string }).message;
        assert.match(message, /^relay HTTP 400 Bad Request: \{"accepted":false,"event_id":"[0-9a-f]{64}",/);
        assert.match(message, /"message":"restricted: agent grant does not cover kind 7"\}$/);
        relay.setEventGate(undefined);
      });
      const nowhere = { event: { kind: 9, content: "x", tags: [["h", "nowhere"]] } };
      await t.step(
        "a room the agent's grant does not name: refused before the room is looked up",
        async () => {
          const answer = await helper.call("publish", nowhere);
          assert.match(
            (answer.error as { message: string }).message,
            /"message":"restricted: agent grant does not allow room nowhere"\}$/,
          );
        },
      );
      await t.step("an unknown room, to a member of the relay (no grant to check first)", async () => {
        relay.members.add(key.pubkey);
        relay.setGrant(key.pubkey, null);
        try {
          const answer = await helper.call("publish", nowhere);
          assert.match(
            (answer.error as { message: string }).message,
            /"message":"invalid: unknown room nowhere"\}$/,
          );
        } finally {
          relay.members.delete(key.pubkey);
          relay.setGrant(key.pubkey, undefined);
        }
      });
      await t.step("a duplicate is a success: the relay's receipt says accepted", async () => {
        const event = { kind: 9, content: "d", created_at: 1_700_000_001, tags: [["h", "general"]] };
        const first = (await helper.call("publish", { event })).result as Event;
        const second = (await helper.call("publish", { event })).result as Event;
        assert.equal(second.id, first.id, "the same event: the same id");
        assert.equal(relay.events.filter((e) => e.id === first.id).length, 1, "held once");
      });
      await t.step("bad params: a clear error, nothing signed or sent", async () => {
        const before = relay.requests.length;
        for (
          const [params, pattern] of [
            [{}, /params.event is required/],
            [{ event: { kind: "9" } }, /event.kind must be a whole number/],
            [{ event: { kind: 9, tags: [["h", 1]] } }, /event.tags must be an array of arrays of strings/],
            [{ event: { kind: 9, content: 5 } }, /event.content must be a string/],
            [{ event: { kind: 9, created_at: -1 } }, /event.created_at must be a whole number/],
          ] as const
        ) {
          const answer = await helper.call("publish", params as Record<string, unknown>);
          assert.match((answer.error as { message: string }).message, pattern);
        }
        assert.equal(relay.requests.length, before);
      });
    });
  } finally {
    await relay.close();
  }
});

Deno.test("publish: never an authorization or an agent grant, whatever the flags; --kinds narrows the rest", async (t) => {
  const relay = await startStrictRelay();
  try {
    const stderr = await session(relay, async (helper) => {
      for (const kind of [22242, 24242, 27235, 30392]) {
        await t.step(`kind ${kind} is refused and nothing is sent`, async () => {
          const answer = await helper.call("publish", { event: { kind, content: "", tags: [] } });
          assert.match(
            (answer.error as { message: string }).message,
            new RegExp(`refused to sign a kind ${kind}`),
          );
        });
      }
      await t.step("--kinds 9,12: kind 1 refused, kind 9 signed", async () => {
        const refused = await helper.call("publish", { event: { kind: 1, content: "", tags: [] } });
        assert.match(
          (refused.error as { message: string }).message,
          /kind 1 is not one this helper may sign \(--kinds 9,12\)/,
        );
        const signed = await helper.call("publish", {
          event: { kind: 9, content: "ok", tags: [["h", "general"]] },
        });
        assert.equal((signed.result as Event).kind, 9);
      });
      assert.deepEqual(relay.requests.map((r) => r.path), ["/events"], "only the kind 9 was sent");
    }, ["--kinds", "9,12"]);
    assert.match(stderr, /held: publish: .*kind 22242/);
  } finally {
    await relay.close();
  }
});

Deno.test("publish under the person's hold: a receipt per signed event, --max-writes, --audit-log", async (t) => {
  const relay = await startStrictRelay();
  const dir = await Deno.makeTempDir();
  const log = `${dir}/audit.jsonl`;
  try {
    const stderr = await session(relay, async (helper) => {
      await t.step("the first write is signed and sent", async () => {
        const answer = await helper.call("publish", {
          event: { kind: 9, content: "one", tags: [["h", "general"]] },
        });
        assert.ok("result" in answer);
      });
      await t.step("the second is held: the budget is spent, nothing signed", async () => {
        const answer = await helper.call("publish", {
          event: { kind: 9, content: "two", tags: [["h", "general"]] },
        });
        assert.match((answer.error as { message: string }).message, /write budget spent: 1 event signed/);
        const upload = await helper.call("upload", { room: "general", data: btoa("x") });
        assert.match((upload.error as { message: string }).message, /write budget spent/);
      });
    }, ["--max-writes", "1", "--audit-log", log]);
    assert.equal(relay.events.length, 1);
    assert.match(
      stderr,
      /receipt: publish signed kind 9 event [0-9a-f]{64} in room "general": "one": accepted/,
    );
    const entries = (await Deno.readTextFile(log)).trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(entries.map((entry) => [entry.tool, entry.outcome]), [
      ["publish", "accepted"],
      ["publish", "held"],
      ["upload", "held"],
    ]);
    assert.equal(entries[0].event.id, relay.events[0].id);
    assert.ok(verifyEvent(entries[0].event), "the log keeps the event as signed");
    assert.equal((await Deno.stat(log)).mode! & 0o777, 0o600);
  } finally {
    await relay.close();
    await Deno.remove(dir, { recursive: true });
  }
});
