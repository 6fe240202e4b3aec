// The room write tools' builders and checks, each refusal in tinyrelay's words and order
// (mcp_tools.go's mcpBuild*/mcpCheck*, mcp_attachments.go), their templates' tags, and a reply's or
// in-thread request's root followed to the thread root (room_threads.go's roomThreadRoot).

import assert from "node:assert/strict";
import type { NostrEvent } from "nostr-tools/pure";
import type { BuildContext, Built } from "./write_kit.ts";
import { resolveThread, ROOM_WRITES, roomReplyRoot } from "./write_room.ts";

const NOW = 1_800_000_000;
const ME = "a1".repeat(32);
const YOU = "b2".repeat(32);
const HASH = "c3".repeat(32);

const ctx = (events: NostrEvent[] = []): BuildContext => ({
  actor: ME,
  now: NOW,
  event: (id) => events.find((e) => e.id === id),
  activeGrant: () => undefined,
});

const build = (tool: string, args: Record<string, unknown>, events?: NostrEvent[]): Built =>
  ROOM_WRITES[tool].build!(args, ctx(events));
const check = (tool: string, ev: NostrEvent) => ROOM_WRITES[tool].check!(ev, NOW);

/** The template a builder makes, or fails the test with its refusal. */
function unsigned(tool: string, args: Record<string, unknown>) {
  const built = build(tool, args);
  if ("error" in built) throw new Error(`${tool}: ${built.error}`);
  assert.equal(built.unsigned.created_at, NOW);
  return built.unsigned;
}

const refusal = (tool: string, args: Record<string, unknown>) => {
  const built = build(tool, args);
  return "error" in built ? built.error : undefined;
};

let serial = 0;
function ev(kind: number, tags: string[][], content = "x", pubkey = ME): NostrEvent {
  serial++;
  return { id: serial.toString(16).padStart(64, "0"), pubkey, created_at: NOW, kind, tags, content, sig: "" };
}

const file = (o: Record<string, unknown> = {}) => ({
  url: `https://relay.test/media/${HASH}.png`,
  sha256: HASH,
  size: 5,
  type: "image/png",
  room: "general",
  filename: "cat.png",
  ...o,
});

Deno.test("post_message: a room, then content or attachments; mentions as p tags, each once", () => {
  assert.equal(refusal("post_message", { content: "hi" }), "room is required and must be a room id");
  assert.equal(
    refusal("post_message", { room: "Gen eral", content: "hi" }),
    "room is required and must be a room id",
  );
  assert.equal(refusal("post_message", { room: "general" }), "content or attachments is required");
  assert.equal(
    refusal("post_message", { room: "general", content: " \n\t" }),
    "content or attachments is required",
  );
  assert.deepEqual(
    unsigned("post_message", { room: "general", content: "hi", mentions: [YOU, "nope", YOU, ME] }),
    {
      kind: 9,
      created_at: NOW,
      tags: [["h", "general"], ["p", YOU], ["p", ME]],
      content: "hi",
    },
  );
});

Deno.test("post_message: attachments become imeta tags and links after the text", () => {
  const doc = file({ url: "https://relay.test/media/x.pdf", type: "application/pdf", filename: "a [b].pdf" });
  const message = unsigned("post_message", {
    room: "general",
    content: "see",
    attachments: [file(), doc],
    mentions: [YOU],
  });
  assert.deepEqual(message.tags, [
    ["h", "general"],
    ["imeta", `url ${file().url}`, "m image/png", `x ${HASH}`, "size 5", "filename cat.png"],
    [
      "imeta",
      "url https://relay.test/media/x.pdf",
      "m application/pdf",
      `x ${HASH}`,
      "size 5",
      "filename a [b].pdf",
    ],
    ["p", YOU],
  ]);
  assert.equal(
    message.content,
    `see\n![image](${file().url})\n[a \\[b\\].pdf](https://relay.test/media/x.pdf)`,
  );
  assert.equal(
    unsigned("post_message", { room: "general", attachments: [file()] }).content,
    `![image](${file().url})`,
  );
  const cases: [unknown[], string][] = [
    [Array(9).fill(file()), "attach up to 8 files per message"],
    [[file({ size: -1 })], "attachment needs url, sha256, non-negative integer size and type"],
    [[file({ sha256: "nope" })], "attachment needs url, sha256, non-negative integer size and type"],
    [[file({ room: "ops" })], "upload the attachment to the destination room first"],
  ];
  for (const [attachments, want] of cases) {
    assert.equal(refusal("post_message", { room: "general", content: "x", attachments }), want);
  }
});

Deno.test("start_thread: a subject from the title, after the room", () => {
  assert.deepEqual(
    unsigned("start_thread", { room: "general", title: "  Plans ", content: "go", attachments: [file()] })
      .tags,
    [
      ["h", "general"],
      ["subject", "Plans"],
      ["imeta", `url ${file().url}`, "m image/png", `x ${HASH}`, "size 5", "filename cat.png"],
    ],
  );
  assert.deepEqual(unsigned("start_thread", { room: "general", title: " ", content: "go" }).tags, [[
    "h",
    "general",
  ]]);
  assert.equal(unsigned("start_thread", { room: "general", content: "go" }).kind, 11);
  assert.equal(
    refusal("start_thread", { room: "general", title: "t" }),
    "content or attachments is required",
  );
});

Deno.test("reply_in_thread: a room, a root and content; the root's author when given", () => {
  assert.equal(
    refusal("reply_in_thread", { content: "x", root: HASH }),
    "room is required and must be a room id",
  );
  assert.equal(
    refusal("reply_in_thread", { room: "general", content: "x" }),
    "root and content or attachments are required",
  );
  assert.equal(
    refusal("reply_in_thread", { room: "general", root: HASH }),
    "root and content or attachments are required",
  );
  assert.deepEqual(
    unsigned("reply_in_thread", { room: "general", root: HASH, root_pubkey: YOU, content: "x" }),
    {
      kind: 12,
      created_at: NOW,
      tags: [["h", "general"], ["e", HASH], ["p", YOU]],
      content: "x",
    },
  );
  assert.deepEqual(unsigned("reply_in_thread", { room: "general", root: HASH, content: "x" }).tags, [[
    "h",
    "general",
  ], ["e", HASH]]);
});

Deno.test("react: target, its author and +, - or one emoji; the room when given", () => {
  const base = { target: HASH, target_pubkey: YOU };
  assert.equal(
    refusal("react", { target: HASH, content: "+" }),
    "target, target_pubkey and content are required",
  );
  assert.equal(refusal("react", { ...base }), "target, target_pubkey and content are required");
  // Go's unicode.IsSpace is Unicode's White_Space: U+0085 is a space, U+FEFF is not.
  for (const content of ["+", "-", "👍", "👍🏽", "🇫🇷", "❤️", "\ufeff"]) {
    assert.deepEqual(unsigned("react", { ...base, content }).tags, [["e", HASH], ["p", YOU]], content);
  }
  for (
    const content of ["yes", "a", "1", "++", "👍 ", "🙂x", "é", "٣", "🙂\u00a0", "\u0085", "😀".repeat(11)]
  ) {
    assert.equal(refusal("react", { ...base, content }), "content must be +, - or one emoji", content);
  }
  assert.deepEqual(unsigned("react", { ...base, content: "+", room: "general" }), {
    kind: 7,
    created_at: NOW,
    tags: [["e", HASH], ["p", YOU], ["h", "general"]],
    content: "+",
  });
});

Deno.test("create_room: the new id, a name, and about and visibility when given", () => {
  assert.equal(refusal("create_room", { name: "Ops" }), "room is required and must be a room id");
  assert.equal(refusal("create_room", { room: "ops", name: "  " }), "name is required");
  assert.deepEqual(
    unsigned("create_room", { room: "ops", name: " Ops ", about: " on call ", visibility: "members" }),
    {
      kind: 9007,
      created_at: NOW,
      tags: [["h", "ops"], ["name", "Ops"], ["about", "on call"], ["visibility", "members"]],
      content: "",
    },
  );
  assert.deepEqual(unsigned("create_room", { room: "ops", name: "Ops", about: " " }).tags, [["h", "ops"], [
    "name",
    "Ops",
  ]]);
});

Deno.test("request_decision: a room message, or a comment under another event", () => {
  const ask = { pubkey: YOU, request: "approve", content: "ok?" };
  assert.equal(
    refusal("request_decision", { ...ask, pubkey: "" }),
    "pubkey, request and content are required",
  );
  assert.equal(
    refusal("request_decision", { ...ask, request: "vote" }),
    "pubkey, request and content are required",
  );
  assert.equal(
    refusal("request_decision", { ...ask, content: " " }),
    "pubkey, request and content are required",
  );
  assert.equal(refusal("request_decision", ask), "room or root is required");
  assert.equal(
    refusal("request_decision", { ...ask, root: HASH, root_pubkey: ME }),
    "root needs root_kind and root_pubkey",
  );
  assert.equal(
    refusal("request_decision", { ...ask, root: HASH, root_kind: 1621 }),
    "root needs root_kind and root_pubkey",
  );
  assert.equal(
    refusal("request_decision", { ...ask, room: "general", expiration: NOW }),
    "expiration must be in the future",
  );

  assert.deepEqual(unsigned("request_decision", { ...ask, room: "general" }), {
    kind: 9,
    created_at: NOW,
    tags: [["h", "general"], ["request", "approve"], ["p", YOU]],
    content: "ok?",
  });
  const inThread = unsigned("request_decision", {
    ...ask,
    room: "general",
    root: HASH,
    expiration: NOW + 60,
    subject: " Go? ",
  });
  assert.deepEqual(inThread.tags, [
    ["h", "general"],
    ["e", HASH, "", "root"],
    ["request", "approve"],
    ["p", YOU],
    ["expiration", String(NOW + 60)],
    ["subject", "Go?"],
  ]);
  const comment = unsigned("request_decision", {
    ...ask,
    request: "question",
    root: HASH,
    root_kind: 1621,
    root_pubkey: ME,
  });
  assert.equal(comment.kind, 1111);
  assert.deepEqual(comment.tags, [
    ["E", HASH, "", ME],
    ["K", "1621"],
    ["P", ME],
    ["e", HASH, "", ME],
    ["k", "1621"],
    ["p", ME],
    ["request", "question"],
    ["p", YOU],
  ]);
  // The root's author is not tagged again when it is the person asked.
  const own = unsigned("request_decision", { ...ask, root: HASH, root_kind: 1621, root_pubkey: YOU });
  assert.deepEqual(own.tags.filter((t) => t[0] === "p"), [["p", YOU]]);
});

Deno.test("room writes: each check of a signed event, in order", () => {
  const cases: [string, NostrEvent, string | undefined][] = [
    ["post_message", ev(9, [["h", "general"]]), undefined],
    ["post_message", ev(1, [["h", "general"]], " "), "kind 1 is not a chat message"],
    ["post_message", ev(9, [["h", "Gen"]], " "), "the h tag must name the room"],
    ["post_message", ev(9, [["h", "general"]], " "), "content must not be empty"],
    [
      "post_message",
      ev(9, [["h", "general"], ["imeta", "url https://x.test/a", "m image/png"]]),
      "imeta attachment needs url, m and x fields",
    ],
    [
      "post_message",
      ev(9, [["h", "general"], ["imeta", "url ftp://x.test/a", "m image/png", `x ${HASH}`]]),
      "attachment URL must be absolute HTTP or HTTPS without credentials",
    ],
    [
      "post_message",
      ev(9, [["h", "general"], ["imeta", "url https://x.test/a", "m image/png", `x ${HASH}`, "size -1"]]),
      "imeta size must be a non-negative integer",
    ],
    ["start_thread", ev(9, [["h", "general"]]), "kind 9 is not a thread"],
    ["start_thread", ev(11, [["h", "general"], ["subject", "s"]]), undefined],
    ["reply_in_thread", ev(12, [["h", "general"]], " "), "the e tag must name the thread root"],
    ["reply_in_thread", ev(12, [["h", "general"], ["e", HASH]], " "), "content must not be empty"],
    ["reply_in_thread", ev(11, [["h", "general"], ["e", HASH]]), "kind 11 is not a thread reply"],
    ["react", ev(9, []), "kind 9 is not a reaction"],
    ["react", ev(7, [["e", HASH]], "+"), "the e and p tags must name the event and its author"],
    ["react", ev(7, [["e", HASH], ["p", YOU], ["h", "Gen"]], "+"), "the h tag must name a room"],
    ["react", ev(7, [["e", HASH], ["p", YOU]], "ok"), "content must be +, - or one emoji"],
    ["react", ev(7, [["e", HASH], ["p", YOU]], "-"), undefined],
    ["create_room", ev(9007, [["h", "ops"]], ""), "the name tag must not be empty"],
    [
      "create_room",
      ev(9007, [["h", "ops"], ["name", "Ops"], ["visibility", "secret"]], ""),
      "the visibility tag must be open or members",
    ],
    ["create_room", ev(9007, [["h", "ops"], ["name", "Ops"]], ""), undefined],
    ["create_room", ev(9, [["h", "ops"]]), "kind 9 is not a room creation"],
  ];
  for (const [tool, event, want] of cases) assert.equal(check(tool, event), want, `${tool}: ${want}`);
});

Deno.test("request_decision: each check of a signed request, in order", () => {
  const asked = [["request", "decide"], ["p", YOU]];
  const comment = [["E", HASH], ["K", "1621"], ["P", ME], ["e", HASH], ["k", "1621"]];
  const cases: [NostrEvent, string | undefined][] = [
    [ev(9, [["h", "general"], ...asked]), undefined],
    [ev(1111, [...comment, ...asked]), undefined],
    [ev(1, asked), "kind 1 is not a chat message or comment"],
    [ev(9, asked), "the h tag must name the room"],
    [
      ev(1111, [["E", HASH], ["K", "1621"], ["P", ME], ["e", HASH], ...asked]),
      "the E, K, P, e and k tags must name the root event, its kind and its author",
    ],
    [
      ev(9, [["h", "general"], ["request", "maybe"], ["p", YOU]]),
      "the request tag must be approve, decide or question",
    ],
    [ev(9, [["h", "general"], ["request", "decide"]]), "a p tag must name the person asked"],
    [
      ev(9, [["h", "general"], ["request", "decide"], ["p", YOU], ["p", "nope"]]),
      "a p tag must name the person asked",
    ],
    [
      ev(9, [["h", "general"], ...asked, ["expiration", String(NOW)]]),
      "the expiration tag must be a Unix time in the future",
    ],
    [
      ev(9, [["h", "general"], ...asked, ["expiration", "soon"]]),
      "the expiration tag must be a Unix time in the future",
    ],
    [ev(9, [["h", "general"], ...asked, ["expiration", String(NOW + 1)]]), undefined],
    [ev(9, [["h", "general"], ...asked], " "), "content must not be empty"],
  ];
  for (const [event, want] of cases) {
    assert.equal(check("request_decision", event), want, JSON.stringify(event.tags));
  }
});

Deno.test("a room reply's root: its marked root, else its marked reply, else its one unmarked e", () => {
  const cases: [NostrEvent, string][] = [
    [ev(12, [["e", "01".repeat(32), "", "reply"], ["e", "02".repeat(32), "", "root"]]), "02".repeat(32)],
    [ev(12, [["e", "01".repeat(32), "", "reply"]]), "01".repeat(32)],
    [ev(12, [["e", "nothex"], ["e", "03".repeat(32)], ["e", "04".repeat(32)]]), "03".repeat(32)],
    [ev(12, [["e", "05".repeat(32), "", "mention"], ["e", "06".repeat(32)]]), ""],
    [ev(9, [["e", "07".repeat(32)]]), "07".repeat(32)],
    [ev(11, [["e", "08".repeat(32)]]), ""],
  ];
  for (const [event, want] of cases) assert.equal(roomReplyRoot(event), want, JSON.stringify(event.tags));
});

Deno.test("a reply to a reply is resolved to the thread root before signing", () => {
  const root = ev(11, [["h", "general"]], "thread", YOU);
  const first = ev(12, [["h", "general"], ["e", root.id], ["p", YOU]], "one");
  const second = ev(12, [["h", "general"], ["e", first.id]], "two");
  const elsewhere = ev(11, [["h", "ops"]]);
  const note = ev(1, [["h", "general"]]);
  const loopA = ev(12, [["h", "general"], ["e", "0a".repeat(32)]]);
  loopA.id = "0b".repeat(32);
  const loopB = ev(12, [["h", "general"], ["e", loopA.id]]);
  loopB.id = "0a".repeat(32);
  const events = [root, first, second, elsewhere, note, loopA, loopB];
  const reply = (to: string) => ({
    kind: 12,
    created_at: NOW,
    tags: [["h", "general"], ["e", to], ["p", ME]],
    content: "r",
  });
  const resolved = (to: string) => resolveThread(reply(to), ctx(events));

  assert.deepEqual(resolved(second.id), {
    unsigned: { ...reply(root.id), tags: [["h", "general"], ["e", root.id], ["p", YOU]] },
  });
  assert.deepEqual(resolved(root.id), {
    unsigned: { ...reply(root.id), tags: [["h", "general"], ["e", root.id], ["p", YOU]] },
  });
  for (const to of [HASH, elsewhere.id, note.id, loopA.id]) {
    assert.deepEqual(resolved(to), { error: "not found: thread" }, to);
  }

  // An in-thread request (kind 9) has its e resolved, its p (the person asked) kept.
  const request = {
    kind: 9,
    created_at: NOW,
    tags: [["h", "general"], ["e", second.id, "", "root"], ["request", "approve"], ["p", ME]],
    content: "?",
  };
  const done = resolveThread(request, ctx(events));
  assert.deepEqual(done, {
    unsigned: {
      ...request,
      tags: [["h", "general"], ["e", root.id, "", "root"], ["request", "approve"], ["p", ME]],
    },
  });
  // Without a room or an e, or of another kind, nothing is looked up.
  const plain = { kind: 9, created_at: NOW, tags: [["h", "general"]], content: "x" };
  assert.deepEqual(resolveThread(plain, ctx()), { unsigned: plain });
  const thread = { kind: 11, created_at: NOW, tags: [["h", "general"], ["e", HASH]], content: "x" };
  assert.deepEqual(resolveThread(thread, ctx()), { unsigned: thread });
});
