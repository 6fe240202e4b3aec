// The write tools over /mcp as tinyrelay's mcpWrite serves them (mcp_tools.go; read_shapes_facts §2):
// a call without `event` answers {next, unsigned}; a call with one publishes it through the gates and
// answers {accepted, event_id, message}, judged by the event alone; a refusal by the relay, an event the
// tool cannot take and a template it cannot build each have their words and structured content.

import assert from "node:assert/strict";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { finalizeEvent } from "nostr-tools/pure";
import {
  assertFailure,
  assertValue,
  b64,
  call,
  clock,
  enc,
  type Key,
  ME,
  newKey,
  plain,
  signed,
  withRelay,
} from "./mcp_test_kit.ts";
import type { StrictRelay } from "./mod.ts";

const NEXT =
  "Sign this event with your Nostr key and call the tool again with the signed event as the event argument.";
const MESSAGE_SHAPE =
  'Expected a signed kind 9 event with tag ["h","<room id>"] and optional ["p","<pubkey>"] mentions, with the message in content.';
const REPLY_SHAPE =
  'Expected a signed kind 12 event with tags ["h","<room id>"], ["e","<thread root id>"] and optional ["p","<root author>"], with the reply in content.';

/** JSON as Go's encoder writes it: <, > and & escaped. */
const goText = (value: unknown) =>
  JSON.stringify(value).replaceAll("<", "\\u003c").replaceAll(">", "\\u003e").replaceAll("&", "\\u0026");

/** Signs a template as `key` would. */
const sign = (unsigned: Record<string, unknown>, key: Key = ME) =>
  plain(finalizeEvent(unsigned as Parameters<typeof finalizeEvent>[0], key.sk));

const accepted = (id: string, message = "") => ({ accepted: true, event_id: id, message });

function assertRejected(a: Awaited<ReturnType<typeof call>>, id: string, reason: string) {
  assertFailure(a, `The relay rejected the event: ${reason}`, {
    event_id: id,
    accepted: false,
    message: reason,
  });
}

async function template(relay: StrictRelay, tool: string, args: Record<string, unknown>, key: Key = ME) {
  const a = await call(relay, tool, args, { token: { key } });
  assert.equal(a.json.result.isError, false, a.json.result.content[0].text);
  return a.json.result.structuredContent.unsigned as Record<string, unknown>;
}

Deno.test("mcp writes: the template, then the signed event published", async (t) => {
  await withRelay({}, async (relay) => {
    const content = "hello <b> & co";
    let event: ReturnType<typeof sign>;

    await t.step("without event: {next, unsigned}, its text Go's JSON of the map", async () => {
      const a = await call(relay, "post_message", { room: "general", content, mentions: [ME.pk, ME.pk] });
      const unsigned = { kind: 9, created_at: clock.now, tags: [["h", "general"], ["p", ME.pk]], content };
      assertFailureFree(a);
      assert.deepEqual(a.json.result.structuredContent, { next: NEXT, unsigned });
      assert.equal(a.json.result.content[0].text, goText({ next: NEXT, unsigned }));
      assert.deepEqual(relay.published, []);
      event = sign(unsigned);
    });

    await t.step("with the signed event: {accepted, event_id, message}", async () => {
      assertValue(await call(relay, "post_message", { event }), accepted(event.id));
      assert.deepEqual(relay.published.map((e) => e.id), [event.id]);
      assert.deepEqual(relay.events.map((e) => e.id), [event.id]);
    });

    await t.step("the same event again is accepted, and says it is a duplicate", async () => {
      assertValue(
        await call(relay, "post_message", { event }),
        accepted(event.id, "duplicate: already have this event"),
      );
      assert.equal(relay.published.length, 1);
    });

    await t.step("an ephemeral kind is never held, so the same one again is no duplicate", async () => {
      relay.setGrant(ME.pk, null);
      relay.members.add(ME.pk);
      const ping = signed(ME, { kind: 20001, tags: [], content: "ping" });
      assertValue(await call(relay, "publish_event", { event: ping }), accepted(ping.id));
      assertValue(await call(relay, "publish_event", { event: ping }), accepted(ping.id));
      assert.equal(relay.events.filter((e) => e.id === ping.id).length, 2);
      relay.members.delete(ME.pk);
      relay.setGrant(ME.pk, undefined);
    });

    await t.step("an older version of a replaceable event is refused", async () => {
      const profile = signed(ME, { kind: 0, tags: [], content: "{}", created_at: clock.now });
      assertValue(await call(relay, "publish_event", { event: profile }), accepted(profile.id));
      const older = signed(ME, { kind: 0, tags: [], content: '{"name":"x"}', created_at: clock.now - 10 });
      assertRejected(
        await call(relay, "publish_event", { event: older }),
        older.id,
        "duplicate: a newer version exists",
      );
    });
  });
});

/** The result is a value, not a failure. */
function assertFailureFree(a: Awaited<ReturnType<typeof call>>) {
  assert.equal(a.status, 200);
  assert.equal(a.json.result.isError, false, a.json.result.content?.[0]?.text);
}

Deno.test("mcp writes: what the tool cannot take, and what the relay refuses", async (t) => {
  await withRelay({}, async (relay) => {
    await t.step("a template the builder cannot make: its words, then the shape", async () => {
      assertFailure(
        await call(relay, "post_message", { room: "general", content: "  " }),
        `content or attachments is required\n${MESSAGE_SHAPE}`,
        { expected: MESSAGE_SHAPE },
      );
    });

    await t.step("an event the tool does not take: the check's words, then the shape", async () => {
      const note = signed(ME, { kind: 1 });
      const empty = signed(ME, { content: " " });
      const noSig: Record<string, unknown> = signed(ME);
      delete noSig.sig;
      const forged = { ...signed(ME), content: "changed" };
      const cases: [unknown, string][] = [
        [note, "kind 1 is not a chat message"],
        [empty, "content must not be empty"],
        [signed(ME, { tags: [["h", "Not A Room"]] }), "the h tag must name the room"],
        [noSig, "invalid: missing sig"],
        [forged, "invalid: id or signature does not match content"],
        [
          { ...signed(ME), kind: "9" },
          "invalid event JSON: json: cannot unmarshal string into Go struct field Event.kind of type int",
        ],
      ];
      for (const [event, problem] of cases) {
        assertFailure(
          await call(relay, "post_message", { event }),
          `The event is not acceptable: ${problem}\n${MESSAGE_SHAPE}`,
          { expected: MESSAGE_SHAPE },
        );
      }
      assert.deepEqual(relay.published, []);
    });

    await t.step(
      "an event the gates refuse: the relay's reason and {event_id, accepted, message}",
      async () => {
        const elsewhere = signed(ME, { tags: [["h", "ops"]] });
        assertRejected(
          await call(relay, "post_message", { event: elsewhere }),
          elsewhere.id,
          "restricted: agent grant does not allow room ops",
        );
        const orphan = signed(ME, {
          kind: 43002,
          tags: [["h", "general"], ["e", "ab".repeat(32)], ["p", ME.pk]],
        });
        assertRejected(
          await call(relay, "accept_job", { event: orphan }),
          orphan.id,
          "restricted: job accepted must name a request this relay holds",
        );
        assert.deepEqual(relay.published, []);
      },
    );
  });
});

Deno.test("mcp writes: a resubmission is judged by its event alone", async (t) => {
  await withRelay({}, async (relay) => {
    await t.step("the other arguments are ignored, even ones the builder would refuse", async () => {
      const event = signed(ME, { content: "as signed" });
      const args = { room: "elsewhere", content: "", mentions: [newKey().pk], event };
      assertValue(await call(relay, "post_message", args), accepted(event.id));
      assert.equal(relay.events.at(-1)?.content, "as signed");
    });

    await t.step("another key's event is published as that key's, through that key's gates", async () => {
      const other = newKey();
      relay.setGrant(other.pk, null);
      const refused = signed(other, { content: "no grant" });
      assertRejected(
        await call(relay, "post_message", { event: refused }),
        refused.id,
        "restricted: not a member of room general",
      );
      relay.setGrant(other.pk, undefined);
      const theirs = signed(other, { content: "the default grant again" });
      assertValue(await call(relay, "post_message", { event: theirs }), accepted(theirs.id));
      assert.equal(relay.events.at(-1)?.pubkey, other.pk);
    });

    await t.step("NIP-70: a protected event only from its author's session", async () => {
      const other = newKey();
      const guarded = signed(other, { tags: [["h", "general"], ["-"]] });
      assertRejected(
        await call(relay, "post_message", { event: guarded }),
        guarded.id,
        "auth-required: this event may only be published by its author",
      );
      assertValue(
        await call(relay, "post_message", { event: guarded }, { token: { key: other } }),
        accepted(guarded.id),
      );
    });
  });
});

Deno.test("mcp writes: a reply's root is resolved to the thread root before signing", async () => {
  await withRelay({}, async (relay) => {
    const author = newKey();
    const root = signed(author, { kind: 11, content: "thread" });
    const reply = signed(ME, {
      kind: 12,
      tags: [["h", "general"], ["e", root.id], ["p", author.pk]],
      content: "r1",
    });
    relay.inject(root);
    relay.inject(reply);
    const unsigned = await template(relay, "reply_in_thread", {
      room: "general",
      root: reply.id,
      root_pubkey: ME.pk,
      content: "r2",
    });
    assert.deepEqual(unsigned.tags, [["h", "general"], ["e", root.id], ["p", author.pk]]);
    assertFailure(
      await call(relay, "reply_in_thread", { room: "general", root: "cd".repeat(32), content: "r3" }),
      `not found: thread\n${REPLY_SHAPE}`,
      { expected: REPLY_SHAPE },
    );
  });
});

Deno.test("mcp writes: a long task asked, accepted and answered by the key asked", async () => {
  await withRelay({}, async (relay) => {
    const worker = newKey();
    const request = sign(
      await template(relay, "request_job", { room: "general", assignees: [worker.pk], content: "do" }),
    );
    assertValue(await call(relay, "request_job", { event: request }), accepted(request.id));
    const answer = await template(relay, "accept_job", { request }, worker);
    assert.deepEqual(answer.tags, [["h", "general"], ["e", request.id], ["p", ME.pk]]);
    const accept = sign(answer, worker);
    const notAsked = sign(answer);
    assertRejected(
      await call(relay, "accept_job", { event: notAsked }),
      notAsked.id,
      "restricted: job accepted must come from a key the request asked",
    );
    assertValue(
      await call(relay, "accept_job", { event: accept }, { token: { key: worker } }),
      accepted(accept.id),
    );
  });
});

Deno.test("mcp writes: request_grant's request for the current grant, reviewed and published", async () => {
  await withRelay({}, async (relay) => {
    const unsigned = await template(relay, "request_grant", {
      reason: "need ops",
      changes: { rooms: ["ops"] },
    });
    assert.equal(unsigned.kind, 1111);
    const event = sign(unsigned);
    assertValue(await call(relay, "request_grant", { event }), accepted(event.id));
    const nothing = await call(relay, "request_grant", { reason: "again", changes: { rooms: ["general"] } });
    assert.equal(nothing.json.result.isError, true);
    assert.match(nothing.json.result.content[0].text, /^invalid: grant request changes nothing\n/);
  });
});

Deno.test("mcp writes: upload_attachment stores room media and read_attachment gives it back", async () => {
  await withRelay({}, async (relay) => {
    const bytes = enc.encode("hello file");
    const hash = bytesToHex(sha256(bytes));
    const url = `${relay.url}/media/${hash}.txt`;
    assertValue(
      await call(relay, "upload_attachment", { room: "general", data: b64(bytes), type: "text/plain" }),
      {
        filename: "file",
        nip94: [["url", url], ["m", "text/plain"], ["x", hash], ["ox", hash], ["size", "10"], [
          "filename",
          "file",
        ]],
        room: "general",
        sha256: hash,
        size: 10,
        type: "text/plain",
        uploaded: clock.now,
        url,
      },
    );
    assert.deepEqual([...relay.attachments.get(hash)!.rooms], ["general"]);
    const read = await call(relay, "read_attachment", { sha256: hash });
    assert.equal(read.json.result.isError, false);
    assert.equal(read.json.result.structuredContent.data, b64(bytes));
    assertFailure(
      await call(relay, "upload_attachment", { room: "general", data: "aGk", type: "text/plain" }),
      "data must be standard Base64",
    );
    assertFailure(
      await call(relay, "upload_attachment", { room: "ops", data: "aGk=", type: "text/plain" }),
      "upload failed: not found: room",
    );
  });
});
