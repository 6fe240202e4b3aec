// The session's one websocket client (lib/session/shared_stream.ts): made by whichever part needs it
// first, the same one for the other, closed once at the session's end, whoever made it.

import assert from "node:assert/strict";
import { SharedStream } from "../../lib/session/shared_stream.ts";
import type { RelayStream } from "../../lib/stream/relay_stream.ts";

function fake() {
  const made = { count: 0, closed: 0 };
  const make = () => {
    made.count++;
    return { close: () => void made.closed++ } as unknown as RelayStream;
  };
  return { made, make };
}

Deno.test("the first to ask makes it; the next gets the same one", () => {
  const shared = new SharedStream();
  const listener = fake(), resources = fake();
  const a = shared.get(listener.make);
  const b = shared.get(resources.make);
  assert.equal(a, b);
  assert.equal(listener.made.count, 1);
  assert.equal(resources.made.count, 0, "the second part's maker is never called");
});

Deno.test("the session's end closes it, whoever made it; nothing made, nothing closed", () => {
  const shared = new SharedStream();
  const { made, make } = fake();
  shared.close();
  assert.equal(made.closed, 0);
  const late = new SharedStream();
  late.get(make);
  late.close();
  assert.equal(made.closed, 1);
});

Deno.test("asked for after the end: made closed, so nothing is ever opened", () => {
  const shared = new SharedStream();
  shared.close();
  const { made, make } = fake();
  shared.get(make);
  assert.deepEqual(made, { count: 1, closed: 1 });
});
