// What an mcp session serves of the resources before their code loads (lib/session/resource_methods.ts):
// the methods and capabilities, the part loaded on the first request that needs it and never
// before, once however many ask, the host told of changes once its stdout is bound, a clear error
// when the part cannot load; with --read-tool, tiny_read, loading the same part on its first call.

import assert from "node:assert/strict";
import {
  type LoadResources,
  RESOURCE_CAPABILITIES,
  RESOURCE_METHODS,
  resourceMethods,
} from "../../lib/session/resource_methods.ts";
import type { ResourcesParts } from "../../lib/session/resources_session.ts";
import { LineWriter } from "../../lib/host/stdio.ts";
import { SharedStream } from "../../lib/session/shared_stream.ts";

const CONTEXT = { signal: new AbortController().signal };

/** A part that answers every method with its name, counting how often it was loaded and started. */
function fakePart() {
  const seen = { loads: 0, closed: 0, notify: undefined as ((uri: string) => void) | undefined };
  const load = (() => {
    seen.loads++;
    return Promise.resolve({
      startResources: (parts: ResourcesParts) => {
        seen.notify = parts.notify;
        return {
          handle: (method: string) => Promise.resolve({ result: { method } }),
          readTool: (args: Record<string, unknown>) =>
            Promise.resolve({ content: [{ type: "text", text: `read ${args.uri}` }], isError: false }),
          close: () => void seen.closed++,
        };
      },
    });
  }) as unknown as LoadResources;
  return { load, seen };
}

const command = { relay: { base: "https://relay.example/r/acme" } };
const parts = { stream: new SharedStream(), command } as unknown as Omit<ResourcesParts, "notify">;
const withReadTool = { ...parts, command: { ...command, readTool: true } } as unknown as typeof parts;

Deno.test("the methods and the capabilities: resources with subscribe, completions, no list_changed", () => {
  const { methods, capabilities } = resourceMethods(fakePart().load, parts);
  assert.deepEqual([...methods.keys()], [...RESOURCE_METHODS]);
  assert.deepEqual(RESOURCE_METHODS, [
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "completion/complete",
  ]);
  assert.deepEqual(capabilities, { resources: { subscribe: true }, completions: {} });
  assert.deepEqual(RESOURCE_CAPABILITIES, capabilities);
  const none = resourceMethods(undefined, parts);
  assert.equal(none.methods.size, 0, "without the part, nothing is served");
  assert.deepEqual(none.capabilities, {}, "and nothing is declared");
});

Deno.test("the part loads at the first request, once, and answers every method", async () => {
  const { load, seen } = fakePart();
  const { methods } = resourceMethods(load, parts);
  assert.equal(seen.loads, 0, "nothing loads before a request");
  const answers = await Promise.all(
    RESOURCE_METHODS.map((method) => methods.get(method)!({}, CONTEXT)),
  );
  assert.equal(seen.loads, 1);
  assert.deepEqual(answers, RESOURCE_METHODS.map((method) => ({ result: { method } })));
});

Deno.test("the host is told of a change once its stdout is bound, as one notification line", async () => {
  const { load, seen } = fakePart();
  const resources = resourceMethods(load, parts);
  await resources.methods.get("resources/subscribe")!({}, CONTEXT);
  seen.notify!("tiny://relay.example/room/general"); // not bound yet: nobody to tell
  const lines: string[] = [];
  const writer = new LineWriter({
    write: (bytes) => (lines.push(new TextDecoder().decode(bytes)), Promise.resolve()),
  });
  resources.bind(writer);
  seen.notify!("tiny://relay.example/room/general");
  await writer.flush();
  assert.deepEqual(lines.join("").split("\n").filter(Boolean).map((line) => JSON.parse(line)), [{
    jsonrpc: "2.0",
    method: "notifications/resources/updated",
    params: { uri: "tiny://relay.example/room/general" },
  }]);
});

Deno.test("closing closes the part, whether it loaded before or after", async () => {
  const early = fakePart();
  const first = resourceMethods(early.load, parts);
  await first.methods.get("resources/list")!({}, CONTEXT);
  first.close();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(early.seen.closed, 1);
  const late = fakePart();
  const second = resourceMethods(late.load, parts);
  second.close();
  await second.methods.get("resources/list")!({}, CONTEXT);
  assert.equal(late.seen.closed, 1, "started after the end: closed at once");
});

Deno.test("a part that cannot load is a clear error, and the next request tries again", async () => {
  let fail = true;
  const { load: works, seen } = fakePart();
  const load =
    (() =>
      fail
        ? Promise.reject(new Error("cannot read lib/session/resources_session.ts"))
        : works()) as LoadResources;
  const { methods } = resourceMethods(load, parts);
  const refused = await methods.get("resources/read")!({ uri: "x" }, CONTEXT);
  assert.deepEqual(refused, {
    error: {
      code: -32603,
      message: "tinyagent's resources code could not load: cannot read lib/session/resources_session.ts",
    },
  });
  fail = false;
  assert.deepEqual(await methods.get("resources/read")!({}, CONTEXT), {
    result: { method: "resources/read" },
  });
  assert.equal(seen.loads, 1);
});

Deno.test("--read-tool: tiny_read, its entry naming this namespace, its call loading the part once", async () => {
  assert.deepEqual(resourceMethods(fakePart().load, parts).tools, [], "off by default: no tool");
  assert.deepEqual(resourceMethods(undefined, withReadTool).tools, [], "without the part, none");
  const { load, seen } = fakePart();
  const { tools } = resourceMethods(load, withReadTool);
  assert.deepEqual(tools.map((tool) => tool.entry.name), ["tiny_read"]);
  assert.match(tools[0].entry.description!, /tiny:\/\/relay\.example\/r\/acme\/ lists the kinds/);
  assert.equal(seen.loads, 0, "listing it loads nothing");
  const uri = "tiny://relay.example/r/acme/room/general";
  const [a, b] = await Promise.all([tools[0].call({ uri }), tools[0].call({ uri })]);
  assert.deepEqual(a, { content: [{ type: "text", text: `read ${uri}` }], isError: false });
  assert.deepEqual(a, b);
  assert.equal(seen.loads, 1);
  const broken = resourceMethods(() => Promise.reject(new Error("no module")), withReadTool);
  const refused = await broken.tools[0].call({ uri });
  assert.equal(refused.isError, true);
  assert.match(String(refused.content[0].text), /resources code could not load: no module/);
});
