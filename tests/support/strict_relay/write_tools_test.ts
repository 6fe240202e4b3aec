// A write tool's two calls as tinyrelay's mcpWrite and mcpPublish answer them (mcp_tools.go;
// read_shapes_facts §2), with the relay stubbed: the template, the builder's and the check's refusals
// with the shape, the event parsed as every event is (event.Parse's order and words), the relay's
// verdict, and a resubmission judged by its event alone.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from "nostr-tools/pure";
import type { Receipt } from "./event_gates.ts";
import { WRITE_TOOL_DEFS } from "./tools_write.ts";
import { SHAPES } from "./write_shapes.ts";
import { callGrantRequest, callWrite, isWriteTool, WRITE_SPECS, type WriteDeps } from "./write_tools.ts";

const NOW = 1_800_000_000;
const SK = generateSecretKey();
const ME = getPublicKey(SK);
const NEXT =
  "Sign this event with your Nostr key and call the tool again with the signed event as the event argument.";

const sign = (o: Partial<NostrEvent> = {}, sk = SK): NostrEvent =>
  JSON.parse(JSON.stringify(finalizeEvent({
    kind: o.kind ?? 9,
    created_at: o.created_at ?? NOW,
    tags: o.tags ?? [["h", "general"]],
    content: o.content ?? "hello",
  }, sk)));

/** A relay that answers every publish with `verdict` and records what it was given. */
function relay(
  verdict: (ev: NostrEvent) => Omit<Receipt, "event_id"> = () => ({ accepted: true, message: "" }),
) {
  const published: NostrEvent[] = [];
  const lookups: string[] = [];
  const deps: WriteDeps = {
    actor: ME,
    now: NOW,
    event: (id) => (lookups.push(id), undefined),
    activeGrant: () => undefined,
    grant: () => ({
      eventId: "c3".repeat(32),
      owner: "b2".repeat(32),
      agent: ME,
      active: true,
      kinds: [9],
      rooms: ["general"],
      rate: 60,
    }),
    publish: (ev) => (published.push(ev), { event_id: ev.id, ...verdict(ev) }),
  };
  return { deps, published, lookups };
}

Deno.test("write tools: the table's write tools are exactly those with a builder and a shape", () => {
  const names = WRITE_TOOL_DEFS.map((tool) => tool.name);
  assert.deepEqual([...Object.keys(WRITE_SPECS), "request_grant"].sort(), [...names].sort());
  for (const name of names) assert.ok(isWriteTool(name), name);
  for (const name of ["list_rooms", "upload_attachment", "read_attachment", "set_policy"]) {
    assert.ok(!isWriteTool(name), name);
  }
});

Deno.test("write tools: without an event, the template and what to do next", () => {
  const { deps, published } = relay();
  const unsigned = { kind: 9, created_at: NOW, tags: [["h", "general"]], content: "a <b> & c" };
  assert.deepEqual(callWrite("post_message", { room: "general", content: "a <b> & c" }, deps), {
    content: [{
      type: "text",
      text: JSON.stringify({ next: NEXT, unsigned }).replace("<", "\\u003c").replace(">", "\\u003e").replace(
        "&",
        "\\u0026",
      ),
    }],
    structuredContent: { next: NEXT, unsigned },
    isError: false,
  });
  assert.deepEqual(published, []);
});

Deno.test("write tools: a template the builder cannot make, or whose thread is not found", () => {
  const { deps } = relay();
  const failure = (text: string, shape: string) => ({
    content: [{ type: "text", text: `${text}\n${shape}` }],
    structuredContent: { expected: shape },
    isError: true,
  });
  assert.deepEqual(
    callWrite("post_message", { room: "general" }, deps),
    failure("content or attachments is required", SHAPES.message),
  );
  assert.deepEqual(
    callWrite("reply_in_thread", { room: "general", root: "ab".repeat(32), content: "x" }, deps),
    failure("not found: thread", SHAPES.reply),
  );
  assert.deepEqual(callWrite("publish_event", {}, deps), {
    content: [{ type: "text", text: "event is required. Expected a signed Nostr event." }],
    structuredContent: { expected: SHAPES.anyEvent },
    isError: true,
  });
  assert.deepEqual(callWrite("publish_event", { event: null }, deps), callWrite("publish_event", {}, deps));
});

Deno.test("write tools: a signed event is parsed as every event is, in event.Parse's order", () => {
  const { deps, published } = relay();
  const good = sign();
  const drop = (member: string) => {
    const copy: Record<string, unknown> = { ...good };
    delete copy[member];
    return copy;
  };
  const cases: [unknown, string][] = [
    [
      "text",
      "invalid event JSON: json: cannot unmarshal string into Go value of type map[string]json.RawMessage",
    ],
    [
      [good],
      "invalid event JSON: json: cannot unmarshal array into Go value of type map[string]json.RawMessage",
    ],
    [drop("id"), "invalid: missing id"],
    [{ ...drop("sig"), pubkey: 1 }, "invalid: missing sig"],
    [
      { ...good, created_at: "1" },
      "invalid event JSON: json: cannot unmarshal string into Go struct field Event.created_at of type int64",
    ],
    [
      { ...good, created_at: 1.5 },
      "invalid event JSON: json: cannot unmarshal number 1.5 into Go struct field Event.created_at of type int64",
    ],
    [
      { ...good, tags: [["h", 1]] },
      "invalid event JSON: json: cannot unmarshal number into Go struct field Event.tags of type string",
    ],
    [{ ...good, id: good.id.toUpperCase() }, "invalid: bad id"],
    [{ ...good, pubkey: "ab" }, "invalid: bad pubkey"],
    [{ ...good, sig: "ab" }, "invalid: bad sig"],
    [{ ...good, id: "x", pubkey: "ab", sig: "ab" }, "invalid: bad id"],
    [{ ...good, pubkey: "ab", sig: "ab" }, "invalid: bad pubkey"],
    [{ ...good, sig: "ab", kind: 65536 }, "invalid: bad sig"],
    [{ ...good, kind: 65536, created_at: -1 }, "invalid: kind out of range"],
    [{ ...good, kind: 65536 }, "invalid: kind out of range"],
    [{ ...good, created_at: -1 }, "invalid: bad created_at"],
    [{ ...good, tags: null }, "invalid: tags must be a list"],
    [{ ...good, tags: [["h", "general"], []] }, "invalid: bad tag"],
    [{ ...good, content: "edited" }, "invalid: id or signature does not match content"],
  ];
  for (const [event, problem] of cases) {
    assert.deepEqual(callWrite("post_message", { event }, deps), {
      content: [{ type: "text", text: `The event is not acceptable: ${problem}\n${SHAPES.message}` }],
      structuredContent: { expected: SHAPES.message },
      isError: true,
    }, problem);
  }
  assert.deepEqual(published, []);
});

Deno.test("write tools: then the tool's own check, then the relay's verdict", () => {
  const refuse = relay((ev) =>
    ev.content === "no" ? { accepted: false, message: "restricted: nope" } : { accepted: true, message: "" }
  );
  const note = sign({ kind: 1 });
  const checked = callWrite("post_message", { event: note }, refuse.deps) as { content: { text: string }[] };
  assert.equal(
    checked.content[0].text,
    `The event is not acceptable: kind 1 is not a chat message\n${SHAPES.message}`,
  );
  const no = sign({ content: "no" });
  assert.deepEqual(callWrite("post_message", { event: no }, refuse.deps), {
    content: [{ type: "text", text: "The relay rejected the event: restricted: nope" }],
    structuredContent: { event_id: no.id, accepted: false, message: "restricted: nope" },
    isError: true,
  });
  const yes = sign({ content: "yes" });
  assert.deepEqual(callWrite("post_message", { event: yes }, refuse.deps), {
    content: [{ type: "text", text: `{"accepted":true,"event_id":"${yes.id}","message":""}` }],
    structuredContent: { accepted: true, event_id: yes.id, message: "" },
    isError: false,
  });
  // publish_event takes any valid event: it has no check of its own.
  assert.equal(
    callWrite("publish_event", { event: sign({ kind: 30023, tags: [] }) }, refuse.deps).isError,
    false,
  );
  assert.deepEqual(refuse.published.map((e) => e.content), ["no", "yes", "hello"]);
});

Deno.test("write tools: a resubmission is judged by its event alone, the other arguments ignored", () => {
  const { deps, published, lookups } = relay();
  const reply = sign({ kind: 12, tags: [["h", "general"], ["e", "cd".repeat(32)]] });
  const args = { event: reply, room: "Not A Room", root: "nope", content: "" };
  assert.equal(callWrite("reply_in_thread", args, deps).isError, false);
  assert.deepEqual(published, [reply]);
  assert.deepEqual(lookups, [], "a signed reply's root is not looked up: it is checked as submitted");
});

Deno.test("request_grant: its template, its signed request's own checks, the same publish", () => {
  const { deps, published } = relay();
  const template = callGrantRequest({ reason: "need ops", changes: { rooms: ["ops"] } }, deps);
  const { unsigned, next } = template.structuredContent as { unsigned: NostrEvent; next: string };
  assert.equal(next, NEXT);
  assert.equal(unsigned.kind, 1111);
  assert.deepEqual(callGrantRequest({ reason: " ", changes: { rooms: ["ops"] } }, deps), {
    content: [{
      type: "text",
      text: `reason must be 1 to 500 valid UTF-8 characters\n${SHAPES.grantRequest}`,
    }],
    structuredContent: { expected: SHAPES.grantRequest },
    isError: true,
  });
  const theirs = sign(unsigned, generateSecretKey());
  assert.deepEqual(callGrantRequest({ event: theirs }, deps), {
    content: [{
      type: "text",
      text:
        `The grant request is not acceptable: the event pubkey must match the authenticated agent\n${SHAPES.grantRequest}`,
    }],
    structuredContent: { expected: SHAPES.grantRequest },
    isError: true,
  });
  const mine = sign(unsigned);
  assert.equal(callGrantRequest({ event: mine, reason: "ignored" }, deps).isError, false);
  assert.deepEqual(published, [mine]);
});
