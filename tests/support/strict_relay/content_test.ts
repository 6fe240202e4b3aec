// Content mode's wiki, long tasks and files, the seed's own checks, and the generators' determinism.
// (A 429 is a front's, not the relay's: tests/support/rate_front_test.ts.)

import assert from "node:assert/strict";
import { filesContent, jobsContent, roomsContent, wikiContent } from "./mod.ts";
import { withRelay } from "./nostr_test_kit.ts";
import { AGENT, call, read, readerRefuses, refused, refusedArguments } from "./content_test_kit.ts";

Deno.test("content wiki: pages by name, the preferred version, the history and a merge request", async () => {
  const wiki = wikiContent(5);
  await withRelay({}, async (relay) => {
    relay.seed(wiki.seed);
    const list = await read(relay, "list_wiki");
    assert.deepEqual(Object.keys(list), ["can_approve", "items", "next_cursor"]);
    assert.deepEqual(list.items.map((p: { d: string }) => p.d), wiki.pages.map((p) => p.d).sort());
    const first = list.items.find((p: { d: string }) => p.d === "getting-started");
    assert.deepEqual([first.versions, first.open_merges], [2, 1]);
    assert.equal(first.version.id, wiki.pages[0].versions[0].id, "the newest when nobody liked one");
    const paged = await read(relay, "list_wiki", { limit: 2 });
    assert.deepEqual([paged.items.length, paged.next_cursor], [2, paged.items[1].d]);
    const q = await read(relay, "list_wiki", { q: "RELEASE" });
    assert.deepEqual(q.items.map((p: { d: string }) => p.d), ["release-notes"]);

    const page = await read(relay, "read_wiki_page", { d: "Getting Started!" });
    assert.equal(page.d, "getting-started", "the name is normalized");
    assert.equal(page.preferred_by, "newest");
    assert.equal(page.version.content, wiki.pages[0].versions[0].content);
    assert.deepEqual(page.versions.map((v: { id: string }) => v.id), wiki.pages[0].versions.map((v) => v.id));
    assert.equal(page.history.length, 3, "both current versions and the replaced revision");
    const archived = page.history.find((v: { id: string }) => v.id === wiki.replaced.id);
    assert.equal(archived.superseded_by, wiki.pages[0].versions[1].id);
    assert.deepEqual(page.merges.map((m: { id: string; status: string }) => [m.id, m.status]), [[
      wiki.merge.id,
      "open",
    ]]);
    const mine = await read(relay, "read_wiki_page", { d: "getting-started", author: wiki.authors[0].pk });
    assert.deepEqual([mine.preferred_by, mine.version.author], ["author", wiki.authors[0].pk]);
    const old = await read(relay, "read_wiki_page", { d: "getting-started", version: wiki.replaced.id });
    assert.deepEqual([old.preferred_by, old.version.content], ["version", wiki.replaced.content]);

    await refused(relay, "read_wiki_page", { d: "nothing-here" }, "not found: wiki page");
    await refused(relay, "read_wiki_page", { d: "!!!" }, "invalid: wiki page name");
    await refused(relay, "read_wiki_page", { d: "faq", version: "0".repeat(64) }, "not found: wiki version");
    const abc = { author: "abc" };
    await refusedArguments(relay, "list_wiki", abc, "author does not match ^[0-9a-f]{64}$");
    readerRefuses(wiki.seed, "list_wiki", abc, "invalid: wiki author");
  });
});

Deno.test("content jobs: every state, the filters, and one job's answers oldest first", async () => {
  const content = jobsContent({ assignees: [AGENT.pk] });
  await withRelay({}, async (relay) => {
    relay.seed(content.seed);
    const list = await read(relay, "list_jobs");
    const newest = [...content.jobs].reverse();
    assert.deepEqual(list.items.map((j: { id: string }) => j.id), newest.map((j) => j.request.id));
    assert.deepEqual(
      list.items.map((j: { state: string; status: string }) => [j.state, j.status]),
      newest.map((j) => [j.state, j.status]),
    );
    const done = list.items.find((j: { state: string }) => j.state === "done");
    assert.deepEqual(done.result.artifacts.map((a: { type: string }) => a.type), ["e", "r"]);
    assert.equal(done.progress.kind, 43003);
    assert.ok(list.items[0].assignees.includes(AGENT.pk));
    for (const state of ["open", "done", "failed", "cancelled"]) {
      const want = newest.filter((j) => j.state === state).map((j) => j.request.id);
      assert.deepEqual(
        (await read(relay, "list_jobs", { state })).items.map((j: { id: string }) => j.id),
        want,
      );
    }
    assert.equal(
      (await read(relay, "list_jobs", { mine: true })).items.length,
      0,
      "the agent asked for none",
    );
    await refusedArguments(relay, "list_jobs", { room: "elsewhere" }, "room is not a known argument");
    const paged = await read(relay, "list_jobs", { limit: 4 });
    assert.equal(paged.next_cursor, `${paged.items[3].created_at}:${paged.items[3].id}`);
    const rest = await read(relay, "list_jobs", { cursor: paged.next_cursor });
    assert.equal(rest.items.length, 2);

    const running = content.jobs.find((j) => j.status === "running")!;
    const job = await read(relay, "read_job", { id: running.request.id });
    assert.deepEqual(Object.keys(job), ["answers", "item"]);
    assert.deepEqual(job.answers.map((a: { id: string }) => a.id), running.answers.map((a) => a.id));
    assert.deepEqual(job.item.progress.content, "halfway");
    await refused(relay, "read_job", { id: "0".repeat(64) }, "not found: job request");
    await refusedArguments(relay, "read_job", { id: "short" }, "id does not match ^[0-9a-f]{64}$");
    readerRefuses(content.seed, "read_job", { id: "short" }, "invalid: job id");
    const late = { state: "late" };
    await refusedArguments(
      relay,
      "list_jobs",
      late,
      "state must be one of open, done, failed, cancelled, all",
    );
    readerRefuses(
      content.seed,
      "list_jobs",
      late,
      "invalid: job state must be open, done, failed, cancelled or all",
    );
    await refused(relay, "list_jobs", { cursor: "later" }, "invalid: job cursor");
  });
});

Deno.test("content files: list_files, read_file's preview, read_attachment's image", async () => {
  const files = filesContent({ uploader: AGENT.pk });
  await withRelay({}, async (relay) => {
    relay.seed(files.seed);
    const list = await read(relay, "list_files");
    assert.deepEqual(list.items.map((f: { sha256: string }) => f.sha256), [
      files.text.sha256,
      files.image.sha256,
    ]);
    assert.deepEqual(Object.keys(list.items[0]), [
      "blossom_uri",
      "download_url",
      "sha256",
      "size",
      "type",
      "uploaded",
      "uploader",
      "url",
    ]);
    const one = await read(relay, "list_files", { limit: 1 });
    assert.equal(one.next_cursor, files.text.sha256);
    assert.equal(
      (await read(relay, "list_files", { cursor: one.next_cursor })).items[0].sha256,
      files.image.sha256,
    );

    const text = await read(relay, "read_file", { hash: files.text.sha256 });
    assert.deepEqual([text.content, text.binary, text.name], [
      new TextDecoder().decode(files.text.bytes),
      false,
      "notes.txt",
    ]);
    const image = await read(relay, "read_file", { hash: files.image.sha256 });
    assert.deepEqual([image.binary, "content" in image, image.type], [true, false, "image/png"]);

    const attachment = await call(relay, "read_attachment", { sha256: files.image.sha256 });
    const block = attachment.result.content[0];
    assert.deepEqual([block.type, block.mimeType], ["image", "image/png"]);
    assert.deepEqual(Uint8Array.from(atob(block.data), (c) => c.charCodeAt(0)), files.image.bytes);
    assert.equal(attachment.result.structuredContent.sha256, files.image.sha256);
    await refused(relay, "read_file", { hash: "0".repeat(64) }, "not found: file");
    await refusedArguments(relay, "read_file", { hash: "nothex" }, "hash does not match ^[0-9a-f]{64}$");
    readerRefuses(files.seed, "read_file", { hash: "nothex" }, "invalid: bad blob sha256");
    const none = { sha256: "0".repeat(64) };
    await refused(relay, "read_attachment", none, "attachment unavailable: not found: file");
  });
});

Deno.test("content seed: a malformed seed is refused whole, with what is wrong", async () => {
  const good = roomsContent(1).seed;
  await withRelay({}, async (relay) => {
    const bad: [unknown, RegExp][] = [
      [{ rooms: [{ id: "Bad Room", name: "x" }] }, /room id "Bad Room" is not 1 to 64 of a-z/],
      [
        { rooms: [{ id: "ok", name: "x", members: [{ pubkey: "me" }] }] },
        /a member's pubkey must be 64 lowercase hex/,
      ],
      [{ rooms: "room-001" }, /rooms must be a list/],
      [{ repositories: [{ owner: AGENT.pk, identifier: "a/b" }] }, /must be a non-empty name without \//],
      [{ files: [{ bytes: "x", type: "text/plain" }] }, /a file's bytes must be a Uint8Array/],
      [{ ...good, events: [{ ...good.events![0], content: "tampered" }] }, /id or signature does not match/],
    ];
    for (const [seed, why] of bad) {
      assert.throws(
        () => relay.seed(seed as never),
        (e: Error) => /^strict relay: seed: /.test(e.message) && why.test(e.message),
      );
    }
    assert.equal(relay.rooms.has("ok"), false, "nothing of a refused seed is kept");
    assert.equal(relay.events.length, 0);
    const listed = (await read(relay, "list_rooms")).items.map((r: { id: string }) => r.id);
    assert.deepEqual(listed, ["general"], "the relay's own room alone: nothing of a refused seed is read");
  });
});

Deno.test("content generators: the same options give the same content", () => {
  const a = roomsContent(5, { seed: 9 });
  const b = roomsContent(5, { seed: 9 });
  assert.deepEqual(
    a.rooms.map((r) => [r.id, r.name, r.members]),
    b.rooms.map((r) => [r.id, r.name, r.members]),
  );
  assert.deepEqual(a.seed.events!.map((e) => e.id), b.seed.events!.map((e) => e.id));
  const c = roomsContent(5, { seed: 10 });
  assert.notDeepEqual(a.seed.events!.map((e) => e.id), c.seed.events!.map((e) => e.id));
  assert.throws(() => roomsContent(-1), /roomsContent: -1 is not an integer from 0 to 10000/);
});
