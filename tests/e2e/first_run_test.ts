// A new user's first run from source resolves only what tinyagent runs: the
// npm packages main.ts's graph reaches (nostr-tools and what it needs), never
// deno.lock's whole snapshot with the test-only MCP SDK and its web-server
// tree (deno.json's "npm-lazy-caching"). Counted against a fresh DENO_DIR:
// once filled from the npm registry as a user's machine would be, and once
// offline, seeded with exactly those packages and run with --cached-only.
// The registry run needs the npm registry (CI and these machines reach it);
// set TINYAGENT_OFFLINE=1 to leave that one step out where it cannot be reached.

import assert from "node:assert/strict";
import { shippedFlags } from "../../scripts/shipped_flags.ts";
import { startStrictRelay } from "../support/strict_relay/mod.ts";
import { newKey, ROOT } from "../support/tinyagent.ts";
import { HANDSHAKE_VERSIONS } from "../support/contract.ts";

interface NpmPackage {
  name: string;
  version: string;
  dependencies: string[];
  localPath: string;
}

async function deno(args: string[], env: Record<string, string>, stdin = "") {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  return { code, stdout: new TextDecoder().decode(stdout), stderr: new TextDecoder().decode(stderr) };
}

/** main.ts's npm packages: those its modules name, and everything they depend on (`deno info`). */
async function programPackages(): Promise<Map<string, NpmPackage>> {
  const { code, stdout, stderr } = await deno(["info", "--json", "main.ts"], {});
  assert.equal(code, 0, stderr);
  const info = JSON.parse(stdout) as {
    modules: { kind?: string; npmPackage?: string }[];
    npmPackages: Record<string, NpmPackage>;
  };
  const reached = new Map<string, NpmPackage>();
  const queue = info.modules.flatMap((m) => (m.kind === "npm" && m.npmPackage ? [m.npmPackage] : []));
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    const pkg = info.npmPackages[id];
    const key = `${pkg.name}@${pkg.version}`;
    if (reached.has(key)) continue;
    reached.set(key, pkg);
    queue.push(...pkg.dependencies);
  }
  return reached;
}

/** name@version of every package folder under DENO_DIR/npm/<registry host>/. */
async function cachedPackages(denoDir: string): Promise<string[]> {
  const found: string[] = [];
  const dirs = async (path: string) => {
    try {
      return (await Array.fromAsync(Deno.readDir(path))).filter((e) => e.isDirectory).map((e) => e.name);
    } catch {
      return [];
    }
  };
  for (const host of await dirs(`${denoDir}/npm`)) {
    for (const first of await dirs(`${denoDir}/npm/${host}`)) {
      const names = first.startsWith("@")
        ? (await dirs(`${denoDir}/npm/${host}/${first}`)).map((name) => `${first}/${name}`)
        : [first];
      for (const name of names) {
        for (const version of await dirs(`${denoDir}/npm/${host}/${name}`)) found.push(`${name}@${version}`);
      }
    }
  }
  return found.sort();
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else if (entry.isFile) await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

/** A first session as a host runs one: the handshake, the table, a call (signing loads the stack). */
const SESSION = [
  { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: HANDSHAKE_VERSIONS[0] } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list" },
  { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_rooms", arguments: {} } },
].map((message) => JSON.stringify(message)).join("\n") + "\n";

/** `--version` and a first mcp session in `denoDir`, each checked to succeed. */
async function firstRuns(denoDir: string, extra: string[]): Promise<void> {
  const version = await deno(["run", ...extra, ...shippedFlags(), "main.ts", "--version"], {
    DENO_DIR: denoDir,
  });
  assert.equal(version.code, 0, version.stderr);
  const relay = await startStrictRelay();
  try {
    const key = newKey();
    const session = await deno(
      ["run", ...extra, ...shippedFlags(), "main.ts", "mcp", "--relay", relay.url],
      { DENO_DIR: denoDir, TINY_PRIVATE_KEY: key.hex },
      SESSION,
    );
    assert.equal(session.code, 0, session.stderr);
    const answers = session.stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(answers.map((answer) => answer.id), [1, 2, 3], session.stdout.slice(0, 500));
    assert.equal(answers[2].result.isError, false, "the call went through: the stack was loaded and signed");
  } finally {
    await relay.close();
  }
}

Deno.test("a first run from source fetches only the program's own npm packages", async (t) => {
  const program = await programPackages();
  const expected = [...program.keys()].sort();
  await t.step("main.ts reaches its own packages and what they need, never the test-only MCP SDK", () => {
    // The packages the program names: the signing stack, and code mode's sandbox and type stripper.
    for (const own of ["nostr-tools@", "nostr-wasm@", "quickjs-emscripten-core@", "@swc/wasm-typescript@"]) {
      assert.ok(expected.some((name) => name.startsWith(own)), `${own}: ${expected.join(" ")}`);
    }
    assert.ok(!expected.some((name) => name.startsWith("@modelcontextprotocol/")), expected.join(" "));
    // The type stripper brings no dependency: 12 at most (issue 37), where sucrase's command line brought 28.
    assert.ok(expected.length <= 12, `${expected.length} packages: ${expected.join(" ")}`);
  });
  await t.step(
    "offline: a DENO_DIR holding only those runs --version and a session with --cached-only",
    async () => {
      const denoDir = await Deno.makeTempDir({ prefix: "tinyagent-deno-dir-" });
      try {
        for (const pkg of program.values()) {
          // localPath is <DENO_DIR>/npm/<host>/<name>/<version>: keep the part from <host> on.
          const parts = pkg.localPath.replaceAll("\\", "/").split("/");
          await copyTree(
            pkg.localPath,
            `${denoDir}/npm/${parts.slice(parts.lastIndexOf("npm") + 1).join("/")}`,
          );
        }
        await firstRuns(denoDir, ["--cached-only"]);
      } finally {
        await Deno.remove(denoDir, { recursive: true });
      }
    },
  );
  await t.step({
    name: "from the npm registry into an empty DENO_DIR: --version and a first session fetch exactly those",
    ignore: Deno.env.get("TINYAGENT_OFFLINE") === "1",
    fn: async () => {
      const denoDir = await Deno.makeTempDir({ prefix: "tinyagent-deno-dir-" });
      try {
        await firstRuns(denoDir, []);
        assert.deepEqual(await cachedPackages(denoDir), expected);
      } finally {
        await Deno.remove(denoDir, { recursive: true });
      }
    },
  });
});
