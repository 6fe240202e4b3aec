/**
 * The documentation works as written: the README, then docs/ and CONTRIBUTING.md in the order of
 * tests/support/docs.ts, as one reader following along. Every ```sh block carries a marker on the line
 * before it:
 *   <!-- readme-check: run -->                 run here, in that order, as one reader would
 *   <!-- readme-check: covered by <file> -->   that test covers it (the file must exist)
 *   <!-- readme-check: not here: <why> -->     it cannot run on a development machine, and why
 * and the Claude Desktop configuration (```json, `host config`) is started exactly as a host would.
 * The run blocks get a fresh HOME, `tinyagent` on PATH from this checkout (the README's own link
 * line puts it there), this suite's Deno cache and npm cache, a `claude` that is Claude Code through
 * npx, and a free RELAY_PORT. The local-relay block then runs again, twice, with npm's `deno` (the
 * Node wrapper) first on PATH: it must stop its relay either way. What the docs name (commands,
 * flags, files, links) is checked in docs_names_test.ts.
 *
 * Run: deno test --allow-net=127.0.0.1 --allow-env --allow-run --allow-read --allow-write tests/docs_test.ts
 */
import assert from "node:assert/strict";
import { findOnPath, npmDeno } from "./support/npm_deno.ts";
import { freePort, ROOT } from "./support/tinyagent.ts";
import { CONTRACT_READ } from "./support/contract.ts";
import { claudeEnv, claudeShim, denoDir, OFFLINE } from "./support/claude_code.ts";
import { DOCS } from "./support/docs.ts";

const decoder = new TextDecoder();

type Marker =
  | { kind: "run" }
  | { kind: "covered"; file: string }
  | { kind: "not-here"; why: string }
  | { kind: "host-config" };

interface Block {
  /** The doc it is in, relative to the checkout. */
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  text: string;
  marker?: Marker;
}

const MARKER = /^<!-- readme-check: (.*) -->$/;

/** A marker's words, or an error naming what is wrong with them. */
export function parseMarker(words: string): Marker | string {
  if (words === "run") return { kind: "run" };
  if (words === "host config") return { kind: "host-config" };
  const covered = /^covered by (\S+)$/.exec(words);
  if (covered) return { kind: "covered", file: covered[1] };
  const notHere = /^not here: (.+)$/.exec(words);
  if (notHere) return { kind: "not-here", why: notHere[1] };
  return `unknown readme-check marker "${words}"`;
}

/** The fenced blocks of `markdown`, each with the marker on the last non-blank line before it. */
export function fencedBlocks(markdown: string, doc = "README.md"): { blocks: Block[]; errors: string[] } {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  const errors: string[] = [];
  let pending: { marker: Marker; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const marker = MARKER.exec(line.trim());
    if (marker) {
      if (pending) errors.push(`line ${pending.line}: a readme-check marker with no block after it`);
      const parsed = parseMarker(marker[1]);
      if (typeof parsed === "string") errors.push(`line ${i + 1}: ${parsed}`);
      else pending = { marker: parsed, line: i + 1 };
      continue;
    }
    const fence = /^```(\S*)\s*$/.exec(line);
    if (fence) {
      const end = lines.indexOf("```", i + 1);
      if (end < 0) {
        errors.push(`line ${i + 1}: a fence that never closes`);
        break;
      }
      blocks.push({
        doc,
        line: i + 1,
        lang: fence[1],
        text: lines.slice(i + 1, end).join("\n"),
        marker: pending?.marker,
      });
      pending = undefined;
      i = end;
      continue;
    }
    if (line.trim() !== "" && pending) {
      errors.push(`line ${pending.line}: a readme-check marker not directly before a block`);
      pending = undefined;
    }
  }
  if (pending) errors.push(`line ${pending.line}: a readme-check marker with no block after it`);
  return { blocks, errors: errors.map((error) => `${doc}: ${error}`) };
}

/** What is wrong with the blocks' markers: a shell block without one, a marker on the wrong block. */
export function markerProblems(blocks: Block[], exists: (file: string) => boolean): string[] {
  const problems: string[] = [];
  for (const block of blocks) {
    const at = `${block.doc}:${block.line} (\`\`\`${block.lang})`;
    if (block.lang === "sh" && !block.marker) {
      problems.push(`${at}: a shell block without a readme-check marker`);
    }
    if (!block.marker) continue;
    if (block.marker.kind === "host-config" && block.lang !== "json") {
      problems.push(`${at}: "host config" marks a JSON host configuration`);
    }
    if (block.marker.kind !== "host-config" && block.lang !== "sh") {
      problems.push(`${at}: only shell blocks are run, covered or excused`);
    }
    if (block.marker.kind === "covered" && !exists(block.marker.file)) {
      problems.push(`${at}: covered by ${block.marker.file}, which does not exist`);
    }
  }
  return problems;
}

function exists(file: string): boolean {
  try {
    return Deno.statSync(`${ROOT}${file}`).isFile;
  } catch {
    return false;
  }
}

/** The shell and JSON blocks of every doc, in reading order. */
async function docBlocks(): Promise<Block[]> {
  const all: Block[] = [];
  for (const doc of DOCS) {
    const { blocks, errors } = fencedBlocks(await Deno.readTextFile(`${ROOT}${doc}`), doc);
    assert.deepEqual(errors, []);
    all.push(...blocks);
  }
  return all;
}

Deno.test("docs: marker rules", async (t) => {
  await t.step("a shell block without a marker, a stray marker and a missing file are found", () => {
    const { blocks, errors } = fencedBlocks(
      [
        "```sh",
        "echo unmarked",
        "```",
        "<!-- readme-check: covered by tests/nope_test.ts -->",
        "",
        "```sh",
        "echo covered",
        "```",
        "<!-- readme-check: run -->",
        "some prose",
        "<!-- readme-check: sometimes -->",
        "```yaml",
        "a: 1",
        "```",
      ].join("\n"),
    );
    assert.deepEqual(errors, [
      "README.md: line 9: a readme-check marker not directly before a block",
      'README.md: line 11: unknown readme-check marker "sometimes"',
    ]);
    assert.deepEqual(markerProblems(blocks, () => false), [
      "README.md:1 (```sh): a shell block without a readme-check marker",
      "README.md:6 (```sh): covered by tests/nope_test.ts, which does not exist",
    ]);
  });

  await t.step("offline, a block loses its registry lines only, each said", () => {
    assert.equal(
      withoutRegistry("mkdir -p ~/.x\nclaude mcp list\nnpx -y tool\necho claude is here"),
      "mkdir -p ~/.x\n: left out, it needs the npm registry\n: left out, it needs the npm registry\necho claude is here",
    );
  });

  await t.step("the README gives the test command, the one .ci/run runs", async () => {
    const readme = (await docBlocks()).filter((block) => block.doc === "README.md");
    const command = readme.find((block) => /\btask test\b/.test(block.text))?.text.trim();
    const run = (await Deno.readTextFile(`${ROOT}.ci/run`)).trimEnd().split("\n");
    assert.equal(run.at(-1), command);
  });

  await t.step("every doc follows them", async () => {
    const blocks = await docBlocks();
    assert.deepEqual(markerProblems(blocks, exists), []);
    assert.ok(blocks.filter((block) => block.marker?.kind === "run").length >= 5, "blocks are run");
    assert.equal(blocks.filter((block) => block.marker?.kind === "host-config").length, 1);
  });
});

/** The lines a run needs the npm registry for: npx, and Claude Code through it. */
const NEEDS_REGISTRY = /\bnpx\b|^claude /;

/** A block's text without the lines that need the registry, each left as a comment that says so. */
export function withoutRegistry(text: string): string {
  return text.split("\n").map((line) =>
    NEEDS_REGISTRY.test(line) ? `: left out, it needs the npm registry` : line
  )
    .join("\n");
}

/** Whether something listens on the loopback port. */
async function listening(port: number): Promise<boolean> {
  try {
    (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    return true;
  } catch {
    return false;
  }
}

/** The run blocks as one script: each announced on stderr, a relay left running stopped at the end. */
function script(blocks: Block[]): string {
  return [
    "set -e",
    "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
    ...blocks.map((block) => `echo "readme-check: ${block.doc}:${block.line}" >&2\n${block.text}`),
  ].join("\n");
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function sh(source: string, env: Record<string, string>, signal: AbortSignal): Promise<Run> {
  const { code, stdout, stderr } = await new Deno.Command("sh", {
    args: ["-c", source],
    cwd: ROOT,
    env: { ...env, DENO_NO_UPDATE_CHECK: "1" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal,
  }).output();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** Starts the Claude Desktop entry as configured, does the handshake, and returns tinyagent's stderr. */
async function startHostConfig(
  block: Block,
  env: Record<string, string>,
): Promise<{ answer: string; stderr: string }> {
  const server = JSON.parse(block.text).mcpServers.tiny as { command: string; args: string[] };
  const child = new Deno.Command(server.command, {
    args: server.args,
    env: { ...env, DENO_NO_UPDATE_CHECK: "1" },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(
    `${
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "readme", version: "0" },
        },
      })
    }\n`,
  ));
  await writer.close();
  const [out, err, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.status,
  ]);
  assert.equal(status.code, 0, err);
  return { answer: out, stderr: err };
}

Deno.test({
  name:
    "docs: every run block runs as written, in reading order, and the Claude Desktop entry starts with the key from its file",
  ignore: Deno.build.os === "windows",
  fn: async (t) => {
    const blocks = await docBlocks();
    const home = await Deno.makeTempDir({ prefix: "tinyagent-docs-" });
    const deno = Deno.execPath();
    const denoBin = deno.slice(0, deno.lastIndexOf("/"));
    try {
      const shims = await claudeShim(`${home}/shims`);
      const relayPort = freePort();
      const env: Record<string, string> = {
        HOME: home,
        RELAY_PORT: String(relayPort),
        // As a reader's: ~/.local/bin first (the README links tinyagent there), then deno and npx.
        PATH: `${home}/.local/bin:${shims}:${denoBin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
        DENO_DIR: await denoDir(),
        ...claudeEnv(),
      };
      const run = blocks.filter((block) => block.marker?.kind === "run")
        .map((block) => OFFLINE ? { ...block, text: withoutRegistry(block.text) } : block);
      const signal = AbortSignal.timeout(300_000);
      const result = await sh(script(run), env, signal);
      const output = `${result.stdout}\n${result.stderr}`;
      const keyLine = (await Deno.readTextFile(`${home}/.hermes/.env`).catch(() => ""))
        .split("\n").findLast((line) => line.startsWith("TINY_PRIVATE_KEY="));
      const key = keyLine?.slice("TINY_PRIVATE_KEY=".length) ?? "";

      await t.step("the run blocks exit 0", () => {
        assert.equal(result.code, 0, output.slice(-6000));
      });

      await t.step("each did what its doc says", async () => {
        assert.match(key, /^[0-9a-f]{64}$/, "keygen appended a key line to ~/.hermes/.env");
        assert.equal(
          (await Deno.stat(`${home}/.hermes/.env`)).mode! & 0o777,
          0o600,
          "only the reader may read it",
        );
        assert.match(result.stdout, /^tinyagent's packages are cached$/m, "deno cache, checked");
        assert.match(result.stdout, /run from source\)/, "tinyagent --version from the linked checkout");
        assert.match(result.stdout, /^npub: npub1[0-9a-z]+$/m, "whoami");
        assert.match(result.stdout, /^verdict: ok$/m, "diagnose against the local relay");
        assert.match(result.stdout, /^verdict: needs-grant$/m, "diagnose asking for a room the grant lacks");
        assert.match(result.stdout, /^exit status 2$/m);
        assert.match(result.stdout, /^sandbox: confined$/m, "sandbox-check");
        const offered = new RegExp(`^offered to a host, in order \\(${CONTRACT_READ.length + 1}\\):$`, "m");
        assert.match(result.stdout, offered, "tinyagent tools: the read tools and tiny_diagnose");
        assert.match(
          result.stdout,
          /"items":\[\{[^\]]*"id":"general"/,
          "tinyagent call, a read: the relay's rooms",
        );
        assert.match(result.stdout, /"accepted":true/, "tinyagent call, a write signed and published");
        assert.ok(!await listening(relayPort), "the README's kill stopped the relay: its port is free");
        assert.match(result.stdout, /relay received \d+ signed POSTs; tinyagent exited 0/, "the demo");
        // docs/hermes-plugin.md: the helper's wrapper, named for the plugin, passed its flags on.
        const hermesEnv = (await Deno.readTextFile(`${home}/.hermes/.env`)).split("\n");
        assert.ok(
          hermesEnv.includes(`TINY_CLI_PATH=${home}/.local/bin/tinyagent-hermes`),
          "the wrapper is named",
        );
        assert.equal((await Deno.stat(`${home}/.tinyagent/hermes.jsonl`)).mode! & 0o777, 0o600);
        if (!OFFLINE) {
          // The README's first try: Claude Code connected to the local relay.
          assert.match(result.stdout, /tiny: tinyagent mcp --relay http:\/\/127\.0\.0\.1:\d+ - ✔ Connected/);
          // docs/oversight.md: the same server with every oversight flag connects,
          // and its audit log was created where the line says, readable by the reader alone.
          const log = `${home}/.tinyagent/audit.jsonl`;
          assert.ok(
            result.stdout.includes(
              `tiny: tinyagent mcp --relay https://relay.example.test --allow-writes --confirm-writes --max-writes 20 ` +
                `--audit-log ${log} - ✔ Connected`,
            ),
            result.stdout.slice(-2000),
          );
          assert.equal((await Deno.stat(log)).mode! & 0o777, 0o600);
        }
      });

      await t.step("the key never shows in what the reader's terminal printed", () => {
        assert.ok(key.length === 64 && !output.includes(key));
      });

      await t.step({
        name: "Claude Code's configuration holds the placeholder, never the key",
        ignore: OFFLINE,
        fn: async () => {
          const config = await Deno.readTextFile(`${home}/.claude.json`);
          assert.ok(config.includes('"TINY_PRIVATE_KEY": "${TINY_PRIVATE_KEY}"'), config);
          assert.ok(!config.includes(key));
          // -s user: the top-level mcpServers, there in every directory, not one project's.
          assert.ok(JSON.parse(config).mcpServers?.tiny, "the user scope holds the server");
        },
      });

      await t.step("the Claude Desktop entry runs tinyagent with the key from ~/.hermes/.env", async () => {
        const block = blocks.find((candidate) => candidate.marker?.kind === "host-config")!;
        // A desktop app's short PATH (and deno, which the checkout's launcher runs); no key in it.
        const { answer, stderr } = await startHostConfig(block, {
          HOME: home,
          PATH: `/usr/bin:/bin:${denoBin}`,
          DENO_DIR: env.DENO_DIR,
        });
        assert.match(answer, /"serverInfo"/);
        const npub = /^npub: (npub1[0-9a-z]+)$/m.exec(result.stdout)?.[1];
        assert.ok(npub && stderr.includes(` as ${npub}:`), stderr);
        assert.ok(!(answer + stderr).includes(key));
      });
      await t.step({
        name: "the local-relay block stops its relay with npm's deno (a Node wrapper) too, twice in a row",
        ignore: findOnPath("node") === null,
        fn: async () => {
          const block = blocks.find((candidate) => candidate.text.includes("deno task relay"))!;
          // The block needs the key in the shell, as the README's earlier export line puts it there;
          // its Claude Code lines have run once already and are not what this step is about.
          const exportKey = blocks.flatMap((candidate) => candidate.text.split("\n"))
            .find((line) => line.startsWith('export "$(grep'))!;
          const npm = await npmDeno(`${home}/npm-deno`, "beside bin.cjs");
          const wrapped = { ...env, PATH: `${npm.binDir}:${env.PATH}` };
          for (const attempt of [1, 2]) {
            const again = await sh(
              `set -e\n${exportKey}\n${withoutRegistry(block.text)}`,
              wrapped,
              AbortSignal.timeout(120_000),
            );
            assert.equal(again.code, 0, `attempt ${attempt}: ${again.stdout}\n${again.stderr}`);
            assert.match(again.stdout, /^verdict: ok$/m, `attempt ${attempt}: the relay started on its port`);
            assert.ok(!await listening(relayPort), `attempt ${attempt}: the relay's port is free again`);
          }
          assert.ok(await npm.ran(), "the block's deno was npm's wrapper");
        },
      });
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});
