// Sign and resubmit end to end: the relay returns a template, tinyagent signs
// it exactly as returned (verified here with nostr-tools) and calls again,
// or refuses with the contract's text and calls nothing more.

import assert from "node:assert/strict";
import { verifyEvent } from "nostr-tools/pure";
import type { StrictRelay } from "../support/strict_relay/mod.ts";
import { type TestKey, type Tinyagent, withFacade } from "../support/tinyagent.ts";
import { grantRepository, requestBy, requestTo, threadIn } from "../support/relay_holds.ts";
import {
  AUTHORIZATION_KINDS,
  authorizationRefusalText,
  CONTRACT_KINDS,
  GRANT_KIND,
  unexpectedKindText as unexpected,
} from "../support/contract.ts";

type Result = {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

async function call(facade: Tinyagent, name: string, args: Record<string, unknown>): Promise<Result> {
  const answer = await facade.request("tools/call", { name, arguments: args });
  assert.ok(answer.result, JSON.stringify(answer.error));
  return answer.result as Result;
}

const callsTo = (relay: StrictRelay, tool: string) =>
  relay.requests.filter((r) => (r.json as { params?: { name?: string } })?.params?.name === tool);

/** The repository the agent's grant names (create_issue, create_pull_request and comment write there). */
const OWNER = "a".repeat(64);

/**
 * Each write tool's arguments, in the relay's own names, for a relay that holds what each write names:
 * a thread, someone's request asking the agent, the agent's own request, a repository in its grant.
 */
function writeArgs(relay: StrictRelay, key: TestKey): Record<string, Record<string, unknown>> {
  grantRepository(relay, key.pubkey, OWNER, "r");
  const thread = threadIn(relay);
  const asked = requestTo(relay, key.pubkey);
  const own = requestBy(relay, key.secretKey);
  const answer = { e: asked.id, p: asked.pubkey, room: "general" };
  return {
    create_issue: { owner: OWNER, repo: "r", title: "t", content: "body" },
    create_pull_request: { owner: OWNER, repo: "r", title: "t", commit: "c".repeat(40), clone: "https://x" },
    comment: {
      owner: OWNER,
      repo: "r",
      root: "b".repeat(64),
      root_kind: 1621,
      root_pubkey: OWNER,
      content: "hi",
    },
    post_message: { room: "general", content: "hello" },
    start_thread: { room: "general", title: "t", content: "x" },
    reply_in_thread: { room: "general", root: thread.id, content: "x" },
    react: { target: thread.id, target_pubkey: thread.pubkey, content: "+", room: "general" },
    publish_wiki_page: { d: "page", title: "Page", content: "x" },
    propose_wiki_merge: { d: "page", destination: OWNER, source: "b".repeat(64), content: "take mine" },
    request_decision: { pubkey: "a".repeat(64), request: "approve", content: "ok?", room: "general" },
    request_grant: { reason: "need it", changes: { rooms: ["ops"] } },
    request_job: { room: "general", assignees: ["a".repeat(64)], content: "do" },
    accept_job: answer,
    job_progress: { ...answer, content: "half" },
    job_result: { ...answer, content: "done" },
    job_error: { ...answer, content: "failed" },
    cancel_job: { e: own.id, room: "general" },
  };
}

Deno.test("every write tool: the template is signed as returned and resubmitted", async (t) => {
  await withFacade({ args: ["--allow-writes"] }, async (facade, relay, key) => {
    for (const [tool, args] of Object.entries(writeArgs(relay, key))) {
      await t.step(tool, async () => {
        const result = await call(facade, tool, args);
        assert.equal(result.isError, false, JSON.stringify(result));
        const [first, second] = callsTo(relay, tool).slice(-2);
        assert.equal(
          JSON.parse(first.bodyText).params.arguments.event,
          undefined,
          "the first call carries no event",
        );
        const event = JSON.parse(second.bodyText).params.arguments.event;
        assert.equal(relay.published.at(-1)?.id, event.id, "the relay accepted and published it");
        assert.ok(verifyEvent(event), "nostr-tools verifies the signature");
        assert.equal(event.pubkey, key.pubkey);
        assert.ok(CONTRACT_KINDS[tool].includes(event.kind));
        // The second call repeats the original arguments, plus event.
        assert.deepEqual({ ...JSON.parse(second.bodyText).params.arguments, event: undefined }, {
          ...args,
          event: undefined,
        });
        // The host sees the publish result, never the template.
        assert.deepEqual(result.structuredContent, { event_id: event.id, accepted: true, message: "" });
        assert.ok(!JSON.stringify(result).includes('"unsigned"'));
      });
    }
  });
});

Deno.test("the event is signed exactly as returned; only a missing created_at is filled", async (t) => {
  await withFacade({ args: ["--allow-writes"] }, async (facade, relay) => {
    const tags = [["h", "general"], ["p", "c".repeat(64), "wss://x", "mention"], [
      "emoji",
      "ü",
      "https://e/ü.png",
    ]];
    await t.step("kind, tags, content and created_at untouched", async () => {
      relay.setTool(
        "post_message",
        ({ args }) =>
          args.event
            ? {
              content: [{ type: "text", text: "ok" }],
              structuredContent: { event_id: (args.event as { id: string }).id, accepted: true, message: "" },
              isError: false,
            }
            : {
              content: [{ type: "text", text: "sign" }],
              structuredContent: {
                unsigned: { kind: 9, created_at: 1_700_000_000, tags, content: "  héllo\n" },
                next: "sign it",
              },
              isError: false,
            },
      );
      await call(facade, "post_message", { room: "general" });
      const event = JSON.parse(callsTo(relay, "post_message").at(-1)!.bodyText).params.arguments.event;
      assert.ok(verifyEvent(event));
      assert.equal(event.kind, 9);
      assert.equal(event.created_at, 1_700_000_000);
      assert.deepEqual(event.tags, tags);
      assert.equal(event.content, "  héllo\n");
    });
    await t.step("a missing created_at is filled with the current time", async () => {
      relay.setTool(
        "post_message",
        ({ args }) =>
          args.event ? { content: [{ type: "text", text: "ok" }], isError: false } : {
            content: [{ type: "text", text: "sign" }],
            structuredContent: { unsigned: { kind: 9, tags: [], content: "x" } },
            isError: false,
          },
      );
      await call(facade, "post_message", { room: "general" });
      const event = JSON.parse(callsTo(relay, "post_message").at(-1)!.bodyText).params.arguments.event;
      assert.ok(verifyEvent(event));
      assert.ok(Math.abs(event.created_at - Date.now() / 1000) < 10);
    });
  });
});

function templateFrom(kind: unknown, extra: Record<string, unknown> = {}) {
  return () => ({
    content: [{ type: "text", text: "here is your event" }],
    structuredContent: {
      unsigned: { kind, created_at: 1_700_000_000, tags: [["p", "a".repeat(64)]], content: "", ...extra },
      next: "sign",
    },
    isError: false,
  });
}

Deno.test("templates that are not signed", async (t) => {
  await withFacade({ args: ["--allow-writes"] }, async (facade, relay) => {
    const refusals: [string, string, unknown, string][] = [
      [
        `a grant (${GRANT_KIND}) from request_grant`,
        "request_grant",
        GRANT_KIND,
        unexpected(GRANT_KIND, "request_grant"),
      ],
      ["a kind 1 from post_message", "post_message", 1, unexpected(1, "post_message")],
      ["any kind from upload_attachment", "upload_attachment", 9, unexpected(9, "upload_attachment")],
      ["a template from a read tool", "read_room", 9, unexpected(9, "read_room")],
      // Each authorization kind from a different write tool.
      ...AUTHORIZATION_KINDS.map((kind, i): [string, string, unknown, string] => {
        const tool = ["comment", "upload_attachment", "post_message"][i];
        return [`a ${kind} from ${tool}`, tool, kind, authorizationRefusalText(kind, tool)];
      }),
    ];
    for (const [name, tool, kind, text] of refusals) {
      await t.step(name, async () => {
        relay.setTool(tool, templateFrom(kind));
        const before = callsTo(relay, tool).length;
        const result = await call(facade, tool, {});
        assert.equal(result.isError, true);
        assert.equal(result.content[0].text, text);
        if (!AUTHORIZATION_KINDS.includes(kind as number)) {
          assert.equal(
            (result.structuredContent!.unsigned as { kind: number }).kind,
            kind,
            "the relay's result is carried",
          );
        }
        assert.equal(callsTo(relay, tool).length, before + 1, "the relay is not called a second time");
        assert.equal(relay.published.length, 0);
      });
    }
    const passthrough: [string, () => Record<string, unknown>][] = [
      ["tags that are not arrays of strings", templateFrom(9, { tags: [["p", 5]] })],
      ["a negative kind", templateFrom(-9)],
      ["a kind that is not an integer", templateFrom(9.5)],
      ["a kind that is a string", templateFrom("9")],
      ["an isError result carrying a template", () => ({ ...templateFrom(9)(), isError: true })],
    ];
    for (const [name, handler] of passthrough) {
      await t.step(`${name}: passed through unchanged, unsigned`, async () => {
        relay.setTool("post_message", handler);
        const before = callsTo(relay, "post_message").length;
        const result = await call(facade, "post_message", {});
        const expected = handler();
        assert.deepEqual(result.content, expected.content);
        assert.deepEqual(result.structuredContent, expected.structuredContent);
        assert.equal(result.isError, expected.isError);
        assert.equal(callsTo(relay, "post_message").length, before + 1);
      });
    }
  });
});

Deno.test("without --allow-writes nothing is signed", async () => {
  await withFacade({ args: ["--tools", "read_room"] }, async (facade, relay) => {
    relay.setTool("read_room", templateFrom(9));
    const result = await call(facade, "read_room", { id: "x" });
    assert.equal(result.isError, true);
    assert.equal(result.content[0].text, unexpected(9, "read_room"));
    assert.equal(callsTo(relay, "read_room").length, 1);
  });
});
