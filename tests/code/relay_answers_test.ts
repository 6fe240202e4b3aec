// One truth for the twin and code mode's types: every read tool of `deno task relay --seed` answers in
// the shape tinyagent ships for it (lib/code/relay_answers.ts), and so do upload_attachment and a write's
// two answers; a field renamed on either side is caught.

import assert from "node:assert/strict";
import { finalizeEvent, type NostrEvent } from "nostr-tools/pure";
import { answerMisfit, type Shape } from "../../lib/code/answer_shape.ts";
import {
  PUBLISH_ANSWER,
  READ_ANSWERS,
  TEMPLATE_ANSWER,
  UPLOAD_ANSWER,
} from "../../lib/code/relay_answers.ts";
import { CONTRACT_READ } from "../support/contract.ts";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import { relayOptions } from "../support/strict_relay/main.ts";
import { demoContent } from "../support/strict_relay/content_gen.ts";
import { AGENT, call, read } from "../support/strict_relay/content_test_kit.ts";

// deno-lint-ignore no-explicit-any
type Answer = any;

/** Each read of the seeded relay, as a program would make it, and its answer. */
async function readsOf(relay: StrictRelay): Promise<Map<string, Answer>> {
  const answers = new Map<string, Answer>();
  const take = async (tool: string, args: Record<string, unknown> = {}) => {
    const answer = await read(relay, tool, args);
    answers.set(`${tool} ${JSON.stringify(args)}`, answer);
    return answer;
  };
  const rooms = await take("list_rooms");
  const room = await take("read_room", { id: rooms.items.find((r: Answer) => r.id !== "general").id });
  const thread = room.messages.find((m: NostrEvent) => m.kind === 11);
  await take("read_thread", { id: room.room.id, event: thread.id });
  const repos = await take("list_repositories");
  const repo = { owner: repos.items[0].owner, repo: repos.items[0].identifier };
  const tree = await take("read_repository", repo);
  const file = tree.entries.find((e: Answer) => e.type === "blob");
  await take("read_repository", { ...repo, view: "file", path: file.path });
  const history = await take("read_repository", { ...repo, view: "history" });
  await take("read_repository", { ...repo, view: "commit", ref: history.commits[0].oid });
  await take("read_repository", { ...repo, view: "activity" });
  const issues = await take("list_issues", repo);
  await take("read_issue", { ...repo, event: issues.items[0].id });
  const pulls = await take("list_pull_requests", repo);
  if (pulls.items.length > 0) await take("read_pull_request", { ...repo, event: pulls.items[0].id });
  const wiki = await take("list_wiki");
  const page = await take("read_wiki_page", { d: wiki.items[0].d });
  for (const merge of page.merges.slice(0, 1)) await take("read_merge_request", { id: merge.id });
  const jobs = await take("list_jobs");
  await take("read_job", { id: jobs.items[0].id });
  const files = await take("list_files");
  await take("read_file", { hash: files.items[0].sha256 });
  return answers;
}

const toolOf = (key: string) => key.slice(0, key.indexOf(" "));

Deno.test("the seeded twin's reads answer in the shapes tinyagent ships, every tool code mode offers", async () => {
  const relay = await startStrictRelay(relayOptions({ port: 0, prefix: "", help: false }, AGENT.pk));
  try {
    relay.seed(demoContent(AGENT.pk));
    const answers = await readsOf(relay);
    for (const [key, answer] of answers) {
      assert.equal(answerMisfit(READ_ANSWERS[toolOf(key)], answer), undefined, key);
    }
    const checked = new Set([...answers.keys()].map(toolOf));
    // read_status is the operator's (an agent is refused it); read_attachment is checked below.
    const offered = CONTRACT_READ.filter((tool) => tool !== "read_status" && tool !== "read_attachment");
    assert.deepEqual(offered.filter((tool) => !checked.has(tool)), [], "every offered read tool checked");
  } finally {
    await relay.close();
  }
});

Deno.test("the twin's upload, read_attachment and a write's two answers are in the shipped shapes", async () => {
  const relay = await startStrictRelay(relayOptions({ port: 0, prefix: "", help: false }, AGENT.pk));
  try {
    const bytes = btoa("plain words");
    const upload = await read(relay, "upload_attachment", {
      room: "general",
      data: bytes,
      type: "text/plain",
    });
    assert.equal(answerMisfit(UPLOAD_ANSWER, upload), undefined, "upload_attachment");
    // Its text block is the file's text, not the JSON of its answer: read the structured content itself.
    const attachment = (await call(relay, "read_attachment", { sha256: upload.sha256 })).result;
    assert.equal(attachment.content[0].text, "plain words");
    assert.equal(answerMisfit(READ_ANSWERS.read_attachment, attachment.structuredContent), undefined);
    const template = await read(relay, "post_message", { room: "general", content: "hello" });
    assert.equal(answerMisfit(TEMPLATE_ANSWER, template), undefined, "the template");
    const event = finalizeEvent(template.unsigned, AGENT.sk);
    const published = await read(relay, "post_message", { event });
    assert.equal(answerMisfit(PUBLISH_ANSWER, published), undefined, "the publish result");
    const refused = (await call(relay, "post_message", { event: { ...event, id: "0".repeat(64) } })).result;
    assert.equal(refused.isError, true, "a refusal is an error, whose structured content is not the shape");
  } finally {
    await relay.close();
  }
});

Deno.test("a field renamed in the twin's answer, or in the shipped shape, is a misfit", async () => {
  const relay = await startStrictRelay(relayOptions({ port: 0, prefix: "", help: false }, AGENT.pk));
  try {
    const rooms = await read(relay, "list_rooms");
    const renamed = structuredClone(rooms);
    renamed.items[0].member_count = renamed.items[0].members;
    delete renamed.items[0].members;
    assert.match(
      answerMisfit(READ_ANSWERS.list_rooms, renamed)!,
      /member_count is a field the shipped type does not have/,
    );
    const shape = READ_ANSWERS.list_rooms as { object: Record<string, Shape> };
    const room = (shape.object.items as { array: { object: Record<string, Shape> } }).array.object;
    const { members, ...others } = room;
    const shipped: Shape = {
      object: { ...shape.object, items: { array: { object: { ...others, count: members } } } },
    };
    assert.match(answerMisfit(shipped, rooms)!, /answer\.items\[0\]\.(members is a field|count is missing)/);
  } finally {
    await relay.close();
  }
});
