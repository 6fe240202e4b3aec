// Behind a proxy, a run from source sends nothing through it but the relay's CONNECTs. Deno itself
// checks its download host for a newer Deno half a second into a `deno run`, in the background and
// through HTTPS_PROXY, whenever DENO_DIR holds no answer from the last day (latest.txt, written
// only when the check got one); bin/tinyagent turns that off (DENO_NO_UPDATE_CHECK=1). Shown on a
// fresh DENO_DIR, warmed with the program's packages as a user's first `deno cache main.ts` does,
// with the launcher run in a user's environment, which does not have the variable. While tinyagent
// runs, a control `deno run` in the same environment and DENO_DIR, through a second proxy that
// refuses everything, shows the check is due there and has had its time: tinyagent answered before
// the control started, so a check of its own would have gone before the control's. That warm-up
// needs the npm registry: with TINYAGENT_OFFLINE=1 this test is left out, and says so.

import assert from "node:assert/strict";
import { type ConnectProxy, startConnectProxy } from "../support/connect_proxy.ts";
import { startStrictRelay } from "../support/strict_relay/mod.ts";
import { cacheProgram } from "../support/deno_cache.ts";
import { newKey, ROOT } from "../support/tinyagent.ts";
import { within } from "../support/waits.ts";
import { HANDSHAKE_VERSIONS } from "../support/contract.ts";

const OFFLINE = Deno.env.get("TINYAGENT_OFFLINE") === "1";
const posix = Deno.build.os !== "windows";
if (OFFLINE) {
  console.warn(
    "note: TINYAGENT_OFFLINE=1, so the proxy test is ignored: warming its fresh DENO_DIR needs npm",
  );
}
const UPDATE_CHECK = "CONNECT dl.deno.land:443 HTTP/1.1";
const encoder = new TextEncoder();

type Message = { id?: unknown; result?: unknown };

/** Each stdout line as it comes, parsed. */
async function* messages(stdout: ReadableStream<Uint8Array>): AsyncGenerator<Message> {
  let buffer = "";
  for await (const chunk of stdout.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    for (let at; (at = buffer.indexOf("\n")) !== -1; buffer = buffer.slice(at + 1)) {
      yield JSON.parse(buffer.slice(0, at));
    }
  }
}

/** `bin/tinyagent mcp` in `env` and nothing else, with `ask` for one request and its answer. */
function launch(env: Record<string, string>, relayUrl: string) {
  const child = new Deno.Command(`${ROOT}bin/tinyagent`, {
    args: ["mcp", "--relay", relayUrl],
    cwd: env.HOME,
    clearEnv: true,
    env: { ...env, TINY_PRIVATE_KEY: newKey().hex },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const answers = messages(child.stdout);
  const writer = child.stdin.getWriter();
  const send = (message: Record<string, unknown>) =>
    writer.write(encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`));
  const ask = async (message: Record<string, unknown>): Promise<Message> => {
    await send(message);
    const { value } = await within(60_000, `the answer to ${message.method}`, answers.next());
    assert.equal(value?.id, message.id, JSON.stringify(value));
    return value!;
  };
  const end = async () => {
    await writer.close();
    assert.equal((await child.status).code, 0, await stderr);
  };
  return { child, send, ask, end };
}

/**
 * Runs a `deno run` in `env` with its update check on, through `refusing`, until that proxy has
 * seen the check: it is due on this DENO_DIR, and has had its half second.
 */
async function controlCheck(env: Record<string, string>, refusing: ConnectProxy): Promise<void> {
  await Deno.writeTextFile(
    `${env.HOME}/wait.ts`,
    "await Deno.stdin.readable.pipeTo(new WritableStream());\n",
  );
  const control = new Deno.Command(Deno.execPath(), {
    args: ["run", "wait.ts"],
    cwd: env.HOME,
    clearEnv: true,
    env: { ...env, HTTPS_PROXY: refusing.url },
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    // A proxy's record has no event to wait on: looked at every 20 ms.
    await within(
      30_000,
      "the control's update check",
      (async () => {
        while (!refusing.requests.some((request) => request.line === UPDATE_CHECK)) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })(),
    );
  } finally {
    await control.stdin.close();
    await control.status;
  }
}

Deno.test({
  name:
    "bin/tinyagent behind HTTPS_PROXY, on a fresh DENO_DIR: the proxy sees the relay's CONNECTs, nothing else",
  ignore: OFFLINE || !posix,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "tinyagent-proxy-only-" });
    const relay = await startStrictRelay({ tls: true });
    const proxy = startConnectProxy();
    const refusing = startConnectProxy({ refuse: 403 });
    let tinyagent: ReturnType<typeof launch> | undefined;
    try {
      await Deno.mkdir(`${dir}/home`);
      await cacheProgram(`${dir}/deno`);
      const denoBin = Deno.execPath().slice(0, Deno.execPath().lastIndexOf("/"));
      const user = {
        PATH: `${denoBin}:/usr/bin:/bin`,
        HOME: `${dir}/home`,
        DENO_DIR: `${dir}/deno`,
        DENO_CERT: relay.caFile!,
        HTTPS_PROXY: proxy.url,
      };
      tinyagent = launch(user, relay.url);
      const params = { protocolVersion: HANDSHAKE_VERSIONS[0], capabilities: {}, clientInfo: { name: "t" } };
      await tinyagent.ask({ id: 1, method: "initialize", params });
      await controlCheck(user, refusing);
      // A real call, signed and sent to the relay through the proxy.
      await tinyagent.send({ method: "notifications/initialized" });
      const call = await tinyagent.ask({
        id: 2,
        method: "tools/call",
        params: { name: "list_rooms", arguments: {} },
      });
      assert.equal((call.result as { isError?: boolean }).isError, false, JSON.stringify(call));
      await tinyagent.end();
      await proxy.close(); // every connection it took is read and recorded

      const lines = proxy.requests.map((request) => request.line);
      assert.ok(lines.length >= 1, "the relay was reached through the proxy");
      assert.deepEqual([...new Set(lines)], [`CONNECT ${relay.host} HTTP/1.1`], lines.join("\n"));
    } finally {
      try {
        tinyagent?.child.kill("SIGKILL");
      } catch {
        // already gone
      }
      await tinyagent?.child.status;
      await proxy.close();
      await refusing.close();
      await relay.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
