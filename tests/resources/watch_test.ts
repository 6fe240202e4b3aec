// What a subscription watches (lib/resources/watch.ts): the filter of the events that change a
// room, a thread or a long task, from the subscription on; other kinds are not watched.

import assert from "node:assert/strict";
import { JOB_KINDS, ROOM_KINDS, THREAD_KINDS, WATCHABLE, watchFilter } from "../../lib/resources/watch.ts";
import { id } from "./fixtures.ts";

const SINCE = 1767225600;

Deno.test("a room, a thread and a long task each have the filter of what changes them", () => {
  assert.deepEqual(watchFilter({ kind: "room", values: { id: "general" } }, SINCE), {
    kinds: ROOM_KINDS,
    "#h": ["general"],
    since: SINCE,
  });
  assert.deepEqual(watchFilter({ kind: "thread", values: { id: "general", event: id("11") } }, SINCE), {
    kinds: [9, 12],
    "#e": [id("11")],
    "#h": ["general"],
    since: SINCE,
  });
  assert.deepEqual(watchFilter({ kind: "job", values: { id: id("60") } }, SINCE), {
    kinds: [43002, 43003, 43004, 43005, 43006],
    "#e": [id("60")],
    since: SINCE,
  });
});

Deno.test("the room's kinds are the ones its transcript shows; a thread's are its replies", () => {
  assert.deepEqual([...ROOM_KINDS].sort((a, b) => a - b), [7, 9, 11, 12, 40002, 40003, 44100, 44101]);
  assert.deepEqual(THREAD_KINDS, [9, 12]);
  assert.deepEqual(JOB_KINDS, [43002, 43003, 43004, 43005, 43006]);
});

Deno.test("the other kinds are not watched", () => {
  assert.deepEqual(WATCHABLE, ["room", "thread", "job"]);
  const others = [
    { kind: "repo", values: { owner: id("d4"), name: "x" } },
    { kind: "issue", values: { owner: id("d4"), name: "x", id: id("30") } },
    { kind: "pull", values: { owner: id("d4"), name: "x", id: id("30") } },
    { kind: "wiki", values: { d: "start" } },
    { kind: "file", values: { sha256: id("ab") } },
  ] as const;
  for (const address of others) assert.equal(watchFilter(address, SINCE), undefined, address.kind);
});

Deno.test("a filter is a new object each time: a caller may keep it", () => {
  const a = watchFilter({ kind: "room", values: { id: "general" } }, SINCE)!;
  (a.kinds as number[]).push(1);
  assert.deepEqual(watchFilter({ kind: "room", values: { id: "general" } }, SINCE)!.kinds, ROOM_KINDS);
});
