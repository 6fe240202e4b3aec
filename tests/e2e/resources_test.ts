// The relay's content as MCP resources, end to end: tinyagent on pipes, the official TypeScript SDK
// client as the host, the strict relay seeded with rooms, the agent's repository, wiki pages, long
// tasks and files. Every template; resources/list paged through 250 rooms; each kind read as
// markdown and as JSON, an image as a blob; completions from live listings; a misspelt room refused
// naming the right one; what --tools leaves out neither listed nor read; a 429 (from a front: the relay
// has none) saying when to retry.

import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { rpcLimitBody } from "../support/rate_front.ts";
import { refusedWith, withResourceHost } from "../support/resources_host.ts";
import { CONTRACT_READ } from "../support/contract.ts";

const INVALID_PARAMS = -32602;

/** Every resources/list page, following nextCursor (bounded). */
async function everyResource(client: Client) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listResources(cursor === undefined ? {} : { cursor });
    pages.push(page.resources.map((r: { uri: string }) => r.uri));
    cursor = page.nextCursor;
  } while (cursor !== undefined && pages.length < 20);
  assert.equal(cursor, undefined, "the listing ends");
  return pages;
}

Deno.test("resources: the capabilities, and one template per kind and collection for the exposed read tools", async () => {
  await withResourceHost({}, async ({ client, base }) => {
    const capabilities = client.getServerCapabilities()!;
    assert.deepEqual(capabilities.resources, { subscribe: true });
    assert.deepEqual(capabilities.completions, {});
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate), [
      `${base}/room/{id}`,
      `${base}/room/{id}/thread/{event}`,
      `${base}/repo/{owner}/{name}`,
      `${base}/repo/{owner}/{name}/issue/{id}`,
      `${base}/repo/{owner}/{name}/pull/{id}`,
      `${base}/wiki/{d}`,
      `${base}/job/{id}`,
      `${base}/file/{sha256}`,
      `${base}/`,
      `${base}/room/`,
      `${base}/room/{id}/thread/`,
      `${base}/repo/`,
      `${base}/repo/{owner}/{name}/issue/`,
      `${base}/repo/{owner}/{name}/pull/`,
      `${base}/wiki/`,
      `${base}/job/`,
      `${base}/file/`,
    ]);
    for (const template of resourceTemplates) {
      assert.ok(template.title && template.description?.includes(base), template.name);
      assert.equal(template.mimeType, template.name === "file" ? undefined : "text/markdown");
    }
    const threads = await client.complete({
      ref: { type: "ref/resource", uri: `${base}/room/{id}/thread/` },
      argument: { name: "id", value: "room-00" },
    });
    assert.ok(threads.completion.values.includes("room-001"), "a collection's variable completes too");
  });
});

Deno.test("resources: the listing pages through 250 rooms, then the repository, the wiki, the open tasks", async () => {
  await withResourceHost({ rooms: 250 }, async ({ client, base, key }) => {
    const first = await client.listResources();
    const room = first.resources.find((r: { uri: string }) => r.uri === `${base}/room/room-001`)!;
    assert.equal(room.name, "room/room-001");
    assert.match(room.title!, /\(#room-001\)$/);
    assert.equal(room.mimeType, "text/markdown");
    assert.match(room.annotations?.lastModified ?? "", /^\d{4}-\d\d-\d\dT/);
    const all = (await everyResource(client)).flat();
    const rooms = all.filter((uri) => uri.startsWith(`${base}/room/room-`));
    assert.equal(rooms.length, 250);
    assert.ok(all.includes(`${base}/room/general`), "and the tasks' room");
    assert.equal(new Set(all).size, all.length, "each resource once");
    assert.ok(all.includes(`${base}/repo/${key.pubkey}/demo`));
    assert.ok(all.includes(`${base}/wiki/getting-started`));
    assert.ok(all.some((uri) => uri.startsWith(`${base}/job/`)));
    const refused = await refusedWith(client.listResources({ cursor: "not-ours" }));
    assert.equal(refused.code, INVALID_PARAMS);
  });
});

Deno.test("resources: each kind reads as markdown and as JSON; an image as a blob, a text file as text", async () => {
  await withResourceHost({}, async ({ client, base, key, content, relay }) => {
    const { rooms, issues, jobs, files } = content;
    const uris = {
      room: `${base}/room/room-001`,
      thread: `${base}/room/room-001/thread/${rooms.thread!.root.id}`,
      repo: `${base}/repo/${key.pubkey}/demo`,
      issue: `${base}/repo/${key.pubkey}/demo/issue/${issues.issues[0].event.id}`,
      pull: `${base}/repo/${key.pubkey}/demo/pull/${issues.pulls[0].event.id}`,
      wiki: `${base}/wiki/getting-started`,
      job: `${base}/job/${jobs.jobs[0].request.id}`,
    };
    const shows: Record<string, string> = {
      room: rooms.rooms[0].messages[0].content,
      thread: "Reply 2",
      repo: "demo",
      issue: issues.issues[0].title,
      pull: issues.pulls[0].event.tags.find((t) => t[0] === "subject")![1],
      wiki: content.wiki.pages[0].title,
      job: jobs.jobs[0].request.content,
    };
    for (const [kind, uri] of Object.entries(uris)) {
      const markdown = await client.readResource({ uri });
      assert.equal(markdown.contents.length, 1, kind);
      const [item] = markdown.contents;
      assert.equal(item.uri, uri, `${kind}: the URI asked`);
      assert.equal(item.mimeType, "text/markdown", kind);
      assert.ok("text" in item && item.text.includes(shows[kind]), `${kind} shows ${shows[kind]}`);
      const json = await client.readResource({ uri: `${uri}?as=json` });
      assert.equal(json.contents[0].mimeType, "application/json", kind);
      assert.equal(json.contents[0].uri, `${uri}?as=json`);
      assert.ok("text" in json.contents[0] && typeof JSON.parse(json.contents[0].text) === "object", kind);
    }
    const image = await client.readResource({ uri: `${base}/file/${files.image.sha256}` });
    assert.equal(image.contents[0].mimeType, "image/png");
    assert.ok("blob" in image.contents[0]);
    assert.deepEqual(
      Uint8Array.from(atob(image.contents[0].blob as string), (c) => c.charCodeAt(0)),
      files.image.bytes,
    );
    // A file whose bytes are over the facade's 256 KiB bound on a structured answer reads as a note:
    // its size, and the pieces to read it in.
    const big = new Uint8Array(300_000).map((_, i) => i % 251);
    const bigSha = Array.from(
      new Uint8Array(await crypto.subtle.digest("SHA-256", big)),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    relay.seed({
      files: [{ bytes: big, type: "application/octet-stream", uploader: key.pubkey, uploaded: 1767225600 }],
    });
    const note = await client.readResource({ uri: `${base}/file/${bigSha}` });
    assert.equal(note.contents[0].mimeType, "text/markdown");
    const words = (note.contents[0] as { text: string }).text;
    assert.match(words, /too big to read whole \(300,000 bytes\)/);
    assert.ok(words.includes(`${base}/file/${bigSha}?range=0-65535`), "its first piece");
    assert.ok(words.includes(`${base}/file/${bigSha}?range=262144-299999`), "its last piece");
    const piece = await client.readResource({ uri: `${base}/file/${bigSha}?range=262144-299999` });
    assert.deepEqual(
      Uint8Array.from(atob((piece.contents[0] as { blob: string }).blob), (c) => c.charCodeAt(0)),
      big.subarray(262144),
      "a binary piece as bytes",
    );
    const text = await client.readResource({ uri: `${base}/file/${files.text.sha256}` });
    assert.equal(text.contents[0].mimeType, "text/plain");
    assert.ok("text" in text.contents[0] && text.contents[0].text.startsWith("Release checklist"));
  });
});

Deno.test("resources: completions from live listings — a room from two letters, an issue given its repository", async () => {
  await withResourceHost({ rooms: 250 }, async ({ client, base, key, content }) => {
    const room = content.rooms.rooms[241];
    const typed = room.name.slice(0, 2).toLowerCase();
    const rooms = await client.complete({
      ref: { type: "ref/resource", uri: `${base}/room/{id}` },
      argument: { name: "id", value: typed },
    });
    assert.ok(rooms.completion.values.length > 0 && rooms.completion.values.length <= 100);
    const starting = content.rooms.rooms.filter((r) => r.name.toLowerCase().startsWith(typed)).map((r) =>
      r.id
    );
    assert.ok(starting.includes(room.id));
    assert.deepEqual(
      rooms.completion.values.slice(0, Math.min(starting.length, 100)).sort(),
      starting.slice(0, 100).sort(),
    );
    const byId = await client.complete({
      ref: { type: "ref/resource", uri: `${base}/room/{id}` },
      argument: { name: "id", value: "room-24" },
    });
    assert.deepEqual(
      byId.completion.values.slice(0, 10),
      Array.from({ length: 10 }, (_, i) => `room-24${i}`),
      "the ids that start so, the third page of rooms included",
    );
    const issues = await client.complete({
      ref: { type: "ref/resource", uri: `${base}/repo/{owner}/{name}/issue/{id}` },
      argument: { name: "id", value: "" },
      context: { arguments: { owner: key.pubkey, name: "demo" } },
    });
    assert.deepEqual(issues.completion.values.sort(), content.issues.issues.map((i) => i.event.id).sort());
    const unknown = await refusedWith(client.complete({
      ref: { type: "ref/resource", uri: `${base}/rooms/{id}` },
      argument: { name: "id", value: "ge" },
    }));
    assert.equal(unknown.code, INVALID_PARAMS);
    assert.match(unknown.message, /is not a resource template here/);
    assert.deepEqual(await client.ping(), {});
  });
});

Deno.test("resources: a misspelt room or file is refused naming the right one", async () => {
  await withResourceHost({}, async ({ client, base, content }) => {
    const refused = await refusedWith(client.readResource({ uri: `${base}/room/rom-007` }));
    assert.equal(refused.code, INVALID_PARAMS);
    assert.match(refused.message, new RegExp(`Nearest that resolves?: ${base}/room/room-007[.,]`));
    assert.deepEqual((refused.data as { nearest: string[] }).nearest[0], `${base}/room/room-007`);
    assert.equal((refused.data as { reason: string }).reason, "unknown-id");
    // read_attachment says "attachment unavailable: …" of a file the relay does not hold.
    const sha = content.files.text.sha256;
    const misspelt = `${sha.slice(0, -1)}${sha.endsWith("0") ? "1" : "0"}`;
    const file = await refusedWith(client.readResource({ uri: `${base}/file/${misspelt}` }));
    assert.equal(file.code, INVALID_PARAMS);
    assert.equal((file.data as { reason: string }).reason, "unknown-id");
    assert.ok((file.data as { nearest: string[] }).nearest.includes(`${base}/file/${sha}`));
  });
});

Deno.test("resources: a kind whose read tool --tools left out is neither listed nor read", async () => {
  const tools = CONTRACT_READ.filter((tool) => tool !== "read_room");
  await withResourceHost({ args: ["--tools", tools.join(",")] }, async ({ client, base, relay }) => {
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.ok(
      !resourceTemplates.some((t: { uriTemplate: string }) =>
        t.uriTemplate.includes("/room/{id}") && !t.uriTemplate.includes("thread")
      ),
    );
    assert.equal(resourceTemplates.length, 14, "the kinds and the collections that need no read_room");
    const listed = (await everyResource(client)).flat();
    assert.ok(listed.length > 0 && !listed.some((uri) => uri.startsWith(`${base}/room/`)));
    const before = relay.requests.length;
    const refused = await refusedWith(client.readResource({ uri: `${base}/room/room-001` }));
    assert.equal(refused.code, INVALID_PARAMS);
    assert.match(refused.message, /not offered here: .*read_room/);
    assert.equal(relay.requests.length, before, "the relay was not asked");
  });
});

Deno.test("resources: a front answering 429 says when to retry, for a resource and a tool alike", async () => {
  await withResourceHost({ front: true }, async ({ client, base, relay, front }) => {
    await client.readResource({ uri: `${base}/room/room-001` }); // the tool table is loaded
    const reached = relay.requests.length;
    const limited = rpcLimitBody("rate-limited: slow down");
    front!.limit(1, { retryAfter: 17, body: limited });
    const refused = await refusedWith(client.readResource({ uri: `${base}/room/room-001` }));
    assert.match(refused.message, /retry after 17 s/);
    assert.equal((refused.data as { retryAfter: number }).retryAfter, 17);
    assert.equal((refused.data as { reason: string }).reason, "rate-limited");
    front!.limit(1, { retryAfter: 3, body: limited });
    const result = await client.callTool({ name: "read_room", arguments: { id: "room-001" } });
    assert.equal(result.isError, true);
    assert.equal(
      (result.content as { text: string }[])[0].text,
      "relay: rate-limited: slow down; retry after 3 s",
    );
    assert.deepEqual(
      front!.answered.map((r) => (r.json as { params: { name: string } }).params.name),
      ["read_room", "read_room"],
      "one call each, answered by the front",
    );
    assert.equal(relay.requests.length, reached, "the relay saw neither");
    const again = await client.readResource({ uri: `${base}/room/room-001` });
    assert.equal(again.contents.length, 1, "served again once the wait is over");
  });
});

Deno.test("resources: with --code-mode the resources are offered as well, read through the relay's tools", async () => {
  await withResourceHost({ args: ["--code-mode"] }, async ({ client, base }) => {
    const { tools } = await client.listTools();
    assert.ok(
      !tools.some((tool: { name: string }) => tool.name === "read_room"),
      "the host is offered the program tools",
    );
    assert.deepEqual(client.getServerCapabilities()?.resources, { subscribe: true });
    const { contents } = await client.readResource({ uri: `${base}/room/room-001` });
    assert.equal(contents[0].uri, `${base}/room/room-001`);
    const listed = await client.listResources();
    assert.ok(listed.resources.some((r: { uri: string }) => r.uri === `${base}/room/room-001`));
    const refused = await refusedWith(client.callTool({ name: "read_room", arguments: { id: "room-001" } }));
    assert.equal(refused.code, INVALID_PARAMS, "while the host calling read_room itself is refused");
  });
});
