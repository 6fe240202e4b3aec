// The MCP Inspector's CLI (`npx @modelcontextprotocol/inspector --cli`, pinned) as the host: it
// starts tinyagent itself over stdio, as a person checking a server would, and lists the resource
// templates and the resources, and reads a room, an image, a collection and a piece. It needs the npm registry (or npm's
// cache); with TINYAGENT_OFFLINE=1 it is left out, saying so.

import assert from "node:assert/strict";
import { OFFLINE } from "../support/claude_code.ts";
import { seedContent } from "../support/resources_host.ts";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import {
  assertNoSecret,
  hostEnv,
  loaderEnv,
  MAIN,
  narrowFlags,
  newKey,
  type TestKey,
} from "../support/tinyagent.ts";

/** The Inspector the test runs. */
export const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";

/** One Inspector CLI run of `method` against a tinyagent it starts; its JSON answer. */
async function inspect(
  relay: StrictRelay,
  key: TestKey,
  method: string,
  extra: string[] = [],
): Promise<unknown> {
  // The server's environment is what the Inspector passes on: the loader's and the key, nothing else.
  const serverEnv = Object.entries({ ...loaderEnv(), TINY_PRIVATE_KEY: key.hex }).flatMap(([k, v]) => [
    "-e",
    `${k}=${v}`,
  ]);
  const { code, stdout, stderr } = await new Deno.Command("npx", {
    args: [
      "-y",
      INSPECTOR,
      "--cli",
      "--method",
      method,
      ...extra,
      ...serverEnv,
      "--",
      Deno.execPath(),
      "run",
      "--quiet",
      ...narrowFlags(relay.host),
      MAIN,
      "mcp",
      "--relay",
      relay.url,
    ],
    env: hostEnv({
      DENO_NO_UPDATE_CHECK: "1",
      npm_config_cache: Deno.env.get("npm_config_cache") ?? `${Deno.env.get("HOME")}/.npm`,
      npm_config_update_notifier: "false",
      NO_COLOR: "1",
    }),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(stdout), err = new TextDecoder().decode(stderr);
  assertNoSecret(key, out + err, "the Inspector's output");
  assert.equal(code, 0, `the Inspector's ${method} ended with ${code}:\n${err}`);
  return JSON.parse(out);
}

Deno.test({
  name: "the MCP Inspector's CLI lists tinyagent's resource templates and resources, and reads them",
  ignore: OFFLINE,
  fn: async () => {
    const relay = await startStrictRelay();
    const key = newKey();
    const content = seedContent(key.pubkey);
    relay.seed(content.seed);
    const base = `tiny://${relay.host}`;
    try {
      const templates = await inspect(relay, key, "resources/templates/list") as {
        resourceTemplates: { uriTemplate: string }[];
      };
      assert.equal(templates.resourceTemplates.length, 17);
      assert.equal(templates.resourceTemplates[0].uriTemplate, `${base}/room/{id}`);
      const listed = await inspect(relay, key, "resources/list") as { resources: { uri: string }[] };
      assert.ok(listed.resources.some((r) => r.uri === `${base}/room/room-001`));
      const room = await inspect(relay, key, "resources/read", ["--uri", `${base}/room/room-001`]) as {
        contents: { uri: string; mimeType: string; text: string }[];
      };
      assert.equal(room.contents[0].uri, `${base}/room/room-001`);
      assert.equal(room.contents[0].mimeType, "text/markdown");
      assert.ok(room.contents[0].text.includes(content.rooms.rooms[0].messages[0].content));
      const image = await inspect(relay, key, "resources/read", [
        "--uri",
        `${base}/file/${content.files.image.sha256}`,
      ]) as { contents: { mimeType: string; blob: string }[] };
      assert.equal(image.contents[0].mimeType, "image/png");
      assert.equal(atob(image.contents[0].blob).length, content.files.image.bytes.length);
      const rooms = await inspect(relay, key, "resources/read", ["--uri", `${base}/room/`]) as {
        contents: { uri: string; text: string }[];
        _meta: Record<string, { rel: string; href: string }[]>;
      };
      assert.equal(rooms.contents[0].uri, `${base}/room/`);
      assert.ok(
        rooms.contents[0].text.includes(`${base}/room/room-001`),
        "the collection lists its children",
      );
      assert.ok(
        rooms._meta["tinyagent/links"].some((l) => l.rel === "item" && l.href === `${base}/room/room-001`),
      );
      const piece = await inspect(relay, key, "resources/read", [
        "--uri",
        `${base}/file/${content.files.text.sha256}?lines=2-3`,
      ]) as { contents: { uri: string; text: string }[] };
      assert.equal(piece.contents[0].uri, `${base}/file/${content.files.text.sha256}?lines=2-3`);
      assert.equal(piece.contents[0].text, "- tag the commit\n- write the notes\n");
    } finally {
      await relay.close();
    }
  },
});

if (OFFLINE) {
  console.log("inspector_test: TINYAGENT_OFFLINE=1, so the Inspector (from the npm registry) is not run");
}
