// Sign and resubmit (facade.md): the three conditions, the kind table, the
// authorization kinds, and templates that are not recognized.

import assert from "node:assert/strict";
import {
  decideSigning,
  eventToSign,
  recognizeTemplate,
  type Template,
} from "../../lib/facade/signing_rules.ts";
import {
  AUTHORIZATION_KINDS,
  authorizationRefusalText as authorization,
  CONTRACT_KINDS,
  CONTRACT_READ,
  CONTRACT_WRITE,
  GRANT_KIND,
  TINY_DIAGNOSE,
  unexpectedKindText as unexpected,
} from "../support/contract.ts";

/** Tools outside both lists: never signed for. */
const OTHER_TOOLS = ["publish_event", "read_management", TINY_DIAGNOSE, "set_status", "create_room"];

/** Every kind in the table plus the extra kinds the contract singles out. */
const KINDS = [
  ...new Set([...Object.values(CONTRACT_KINDS).flat(), 0, 1, GRANT_KIND, ...AUTHORIZATION_KINDS, 65535]),
].sort((a, b) => a - b);

function templateResult(unsigned: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    content: [{ type: "text", text: "sign and resubmit" }],
    structuredContent: { unsigned, next: "sign this event and call the tool again with event" },
    ...extra,
  };
}

function template(kind: number): Template {
  return {
    kind,
    created_at: 1_700_000_000,
    tags: [["h", "general"], ["p", "ab".repeat(32), "wss://relay.example.test", "mention"]],
    content: "hello ✓ 😀",
  };
}

/** What the contract says must happen for one tool, kind and flag. */
function expected(tool: string, kind: number, allowWrites: boolean) {
  if (AUTHORIZATION_KINDS.includes(kind)) {
    return { action: "refuse", message: authorization(kind, tool) };
  }
  if (allowWrites && (CONTRACT_KINDS[tool] ?? []).includes(kind)) return { action: "sign" };
  return { action: "refuse", message: unexpected(kind, tool), showResult: true };
}

Deno.test("the full tool × kind signing table", async (t) => {
  for (const allowWrites of [true, false]) {
    await t.step(`write tools, allowWrites=${allowWrites}`, () => {
      let signed = 0;
      for (const tool of CONTRACT_WRITE) {
        for (const kind of KINDS) {
          const unsigned = template(kind);
          const decision = decideSigning(tool, templateResult(unsigned), allowWrites);
          const want = expected(tool, kind, allowWrites);
          const label = `${tool} kind ${kind} allowWrites=${allowWrites}`;
          assert.equal(decision.action, want.action, label);
          if (decision.action === "sign") {
            signed++;
            assert.deepEqual(decision.template, unsigned, label);
          } else if (decision.action === "refuse") {
            assert.equal(decision.message, want.message, label);
            if (want.showResult) assert.equal(decision.showResult, true, label);
          }
        }
      }
      // Every (tool, kind) pair in the table is signed, and only with writes allowed.
      assert.equal(signed, allowWrites ? Object.values(CONTRACT_KINDS).flat().length : 0);
    });
  }
  for (const allowWrites of [true, false]) {
    await t.step(`read tools and tools outside both lists never sign, allowWrites=${allowWrites}`, () => {
      for (const tool of [...CONTRACT_READ, ...OTHER_TOOLS]) {
        for (const kind of KINDS) {
          const decision = decideSigning(tool, templateResult(template(kind)), allowWrites);
          const label = `${tool} kind ${kind}`;
          assert.equal(decision.action, "refuse", label);
          if (decision.action !== "refuse") continue;
          if (AUTHORIZATION_KINDS.includes(kind)) {
            assert.equal(decision.message, authorization(kind, tool), label);
          } else {
            assert.equal(decision.message, unexpected(kind, tool), label);
            assert.equal(decision.showResult, true, label);
          }
        }
      }
    });
  }
});

Deno.test("authorization kinds are refused whatever the tool and flags", async (t) => {
  for (const kind of AUTHORIZATION_KINDS) {
    await t.step(`kind ${kind}`, () => {
      for (const tool of [...CONTRACT_WRITE, ...CONTRACT_READ, ...OTHER_TOOLS]) {
        for (const allowWrites of [true, false]) {
          const decision = decideSigning(tool, templateResult(template(kind)), allowWrites);
          assert.equal(decision.action, "refuse");
          if (decision.action === "refuse") assert.equal(decision.message, authorization(kind, tool));
        }
      }
    });
  }
});

Deno.test(`an agent grant (kind ${GRANT_KIND}) is never signed`, () => {
  for (const tool of [...CONTRACT_WRITE, ...CONTRACT_READ, ...OTHER_TOOLS]) {
    for (const allowWrites of [true, false]) {
      const decision = decideSigning(tool, templateResult(template(GRANT_KIND)), allowWrites);
      assert.notEqual(decision.action, "sign", tool);
      assert.equal(decision.action, "refuse", tool);
      if (decision.action === "refuse") {
        assert.equal(decision.message, unexpected(GRANT_KIND, tool));
        assert.equal(decision.showResult, true);
      }
    }
  }
});

Deno.test("templates that are not recognized pass through unchanged", async (t) => {
  const good = { kind: 9, created_at: 1_700_000_000, tags: [["h", "general"]], content: "hi" };
  // Sanity: the baseline is signed, so each variant below fails only for its own defect.
  assert.equal(decideSigning("post_message", templateResult(good), true).action, "sign");

  const malformed: [string, unknown][] = [
    ["tags is a string", { ...good, tags: "h,general" }],
    ["tags is an object", { ...good, tags: { h: "general" } }],
    ["tags missing", { kind: 9, content: "hi" }],
    ["a tag is a string", { ...good, tags: ["h"] }],
    ["a tag holds a number", { ...good, tags: [["h", 1]] }],
    ["a tag holds null", { ...good, tags: [["h", null]] }],
    ["a tag holds a nested array", { ...good, tags: [["h", ["general"]]] }],
    ["a tag is null", { ...good, tags: [null] }],
    ["kind negative", { ...good, kind: -1 }],
    ["kind float", { ...good, kind: 9.5 }],
    ["kind string", { ...good, kind: "9" }],
    ["kind null", { ...good, kind: null }],
    ["kind missing", { created_at: 1, tags: [], content: "hi" }],
    ["kind boolean", { ...good, kind: true }],
    ["content missing", { kind: 9, created_at: 1, tags: [] }],
    ["content not a string", { ...good, content: 9 }],
    ["unsigned is an array", [9, 1, [], "hi"]],
    ["unsigned is a string", JSON.stringify(good)],
    ["unsigned is null", null],
  ];
  for (const [name, unsigned] of malformed) {
    await t.step(name, () => {
      for (const tool of ["post_message", "read_room"]) {
        for (const allowWrites of [true, false]) {
          assert.deepEqual(decideSigning(tool, templateResult(unsigned), allowWrites), { action: "pass" });
        }
      }
      assert.equal(recognizeTemplate(templateResult(unsigned)), undefined);
    });
  }
  await t.step("malformed authorization-kind templates also pass (not recognized at all)", () => {
    const result = templateResult({ kind: AUTHORIZATION_KINDS[0], tags: [["relay", 1]], content: "" });
    assert.deepEqual(decideSigning("post_message", result, true), { action: "pass" });
  });

  await t.step("isError results are never signed, whatever the template", () => {
    for (const kind of [9, AUTHORIZATION_KINDS[0], GRANT_KIND]) {
      const result = templateResult({ ...good, kind }, { isError: true });
      assert.deepEqual(decideSigning("post_message", result, true), { action: "pass" });
      assert.deepEqual(decideSigning("request_decision", result, true), { action: "pass" });
    }
  });

  const nonObjects: [string, unknown][] = [
    ["a string", "unsigned"],
    ["an array", [{ unsigned: good }]],
    ["a number", 9],
    ["null", null],
    ["a boolean", true],
  ];
  for (const [name, structuredContent] of nonObjects) {
    await t.step(`structuredContent is ${name}`, () => {
      const result = { content: [], structuredContent };
      assert.deepEqual(decideSigning("post_message", result, true), { action: "pass" });
    });
  }
  await t.step("no structuredContent, or one without unsigned", () => {
    assert.deepEqual(decideSigning("post_message", { content: [] }, true), { action: "pass" });
    const published = { structuredContent: { event_id: "ab".repeat(32), accepted: true, message: "" } };
    assert.deepEqual(decideSigning("post_message", published, true), { action: "pass" });
  });
});

Deno.test("a recognized template is taken exactly as returned", async (t) => {
  await t.step("kind, tags, content and created_at are kept as is", () => {
    const unsigned = {
      kind: 1111,
      created_at: 1_234_567,
      tags: [["E", "x", "", "root"], [], ["e"], ["k", "1621"], [" spaced ", "\n", "ünïcödé 😀"]],
      content: "  leading and trailing spaces \n kept  ",
    };
    const decision = decideSigning("comment", templateResult(unsigned), true);
    assert.equal(decision.action, "sign");
    if (decision.action === "sign") assert.deepEqual(decision.template, unsigned);
  });
  await t.step("an empty tag list and empty content are a template", () => {
    const unsigned = { kind: 7, tags: [], content: "" };
    const decision = decideSigning("react", templateResult(unsigned), true);
    assert.equal(decision.action, "sign");
    if (decision.action === "sign") assert.deepEqual(decision.template, unsigned);
  });
  await t.step("extra fields around unsigned (next, etc.) do not matter", () => {
    const result = templateResult({ kind: 9, tags: [], content: "x" }, { _meta: { a: 1 } });
    assert.equal(decideSigning("post_message", result, true).action, "sign");
  });
});

Deno.test("eventToSign", async (t) => {
  const now = 1_750_000_000;
  await t.step("fills a missing created_at with the current time", () => {
    const unsigned: Template = { kind: 9, tags: [["h", "general"]], content: "hi" };
    assert.deepEqual(eventToSign(unsigned, now), {
      kind: 9,
      created_at: now,
      tags: [["h", "general"]],
      content: "hi",
    });
  });
  await t.step("keeps a present created_at, even one far from now", () => {
    for (const createdAt of [1, 1_600_000_000, now + 86_400]) {
      const unsigned: Template = { kind: 9, created_at: createdAt, tags: [], content: "" };
      assert.equal(eventToSign(unsigned, now).created_at, createdAt);
    }
  });
  await t.step("changes nothing else and adds no fields", () => {
    const unsigned: Template = {
      kind: 30818,
      created_at: 42,
      tags: [["d", "page"], ["title", "Päge"], ["a", "30818:ab:page", "wss://x"]],
      content: "# body\n",
    };
    const copy = structuredClone(unsigned);
    const event = eventToSign(unsigned, now);
    assert.deepEqual(event, copy);
    assert.deepEqual(Object.keys(event).sort(), ["content", "created_at", "kind", "tags"]);
    assert.deepEqual(unsigned, copy, "the template itself is not modified");
  });
  await t.step("the whole path: the signed event is the relay's template plus created_at", () => {
    const unsigned = { kind: 43001, tags: [["i", "input", "text"], ["param", "k", "v"]], content: "job" };
    const decision = decideSigning("request_job", templateResult(unsigned), true);
    assert.equal(decision.action, "sign");
    if (decision.action !== "sign") return;
    assert.deepEqual(eventToSign(decision.template, now), { ...unsigned, created_at: now });
  });
});
