/**
 * The MCP bundles and the MCP Registry entry, built by `deno task package` exactly as the release
 * workflow builds them, with stand-ins for the compiled binaries: this machine's is a script that
 * runs this checkout's main.ts under the shipped flags, so the bundle's server is the real one. Each
 * bundle is validated and unpacked with the official bundle CLI, its manifest substituted as Claude
 * Desktop does it (tests/support/mcpb_host.ts), and its server started exactly as the manifest
 * says: the handshake, tools/list and a signed write against the strict relay. server.json is
 * validated against the registry's pinned schema.
 *
 * Run: deno test --allow-net=127.0.0.1 --allow-env --allow-run --allow-read --allow-write tests/bundle_test.ts
 */
import assert from "node:assert/strict";
import { Ajv } from "ajv";
import formats from "ajv-formats";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { verifyEvent } from "nostr-tools/pure";
import config from "../deno.json" with { type: "json" };
import { parseCommand } from "../lib/cli/args.ts";
import { bundledBinary, bundleName, BUNDLES, MCPB_CLI, USER_CONFIG } from "../scripts/bundle.ts";
import { TARGETS } from "../scripts/compile.ts";
import { shippedFlags } from "../scripts/shipped_flags.ts";
import { OFFLINE } from "./support/claude_code.ts";
import { hostLaunch } from "./support/mcpb_host.ts";
import { addBinaries, fakeBinary, makeLayout, packageTask, run } from "./support/release_layout.ts";
import { shellcheckTest } from "./support/shellcheck.ts";
import { startStrictRelay } from "./support/strict_relay/mod.ts";
import { assertNoSecret, loaderEnv, newKey, ROOT } from "./support/tinyagent.ts";
import { budgetSpentText } from "./support/oversight.ts";
import { CONTRACT_READ, CONTRACT_WRITE, TINY_DIAGNOSE } from "./support/contract.ts";

const VERSION = config.version;
const REPO = "example-owner/tinyagent";
/** The registry's schema, supplied (not committed: tests/support/registry/README.md), by its digest. */
const SCHEMA = Deno.env.get("TINYAGENT_REGISTRY_SCHEMA") ??
  new URL("./support/registry/server.schema.2025-12-11.json", import.meta.url).pathname;
const SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0";
const HAVE_SCHEMA = (() => {
  try {
    return Deno.statSync(SCHEMA).isFile;
  } catch {
    return false;
  }
})();
if (!HAVE_SCHEMA) {
  console.warn(
    `note: the MCP Registry's schema is not at ${SCHEMA} (see tests/support/registry/README.md), so ` +
      "validating server.json against it is skipped; the registry's rules are still checked",
  );
}
const LAUNCHER = new URL("../scripts/mcpb_launch.sh", import.meta.url);
const HERE = Deno.build.arch; // x86_64 or aarch64, as the targets name it

/** The official bundle CLI, pinned, through npx. */
function mcpb(args: string[], cwd: string) {
  return run("npx", ["--yes", MCPB_CLI, ...args], cwd);
}

/** This machine's stand-in: the real tinyagent, from this checkout, under the shipped flags. */
function realStandIn(): string {
  const words = [Deno.execPath(), "run", "--quiet", ...shippedFlags(), `${ROOT}main.ts`];
  return `#!/bin/sh\nexec ${words.map((word) => `'${word}'`).join(" ")} "$@"\n`;
}

async function listTree(dir: string, prefix = ""): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory) names.push(...await listTree(`${dir}/${entry.name}`, `${path}/`));
    else names.push(path);
  }
  return names.sort();
}

/** The release built once for the whole file: every target's stand-in, every bundle, server.json. */
const built = (async () => {
  if (Deno.build.os === "windows" || OFFLINE) return undefined;
  const dir = await makeLayout(VERSION);
  await addBinaries(
    dir,
    VERSION,
    TARGETS,
    (target) => target.startsWith(`${HERE}-unknown-linux`) ? realStandIn() : fakeBinary(VERSION, target),
  );
  const result = await packageTask(dir, "--all", "--repo", REPO, VERSION);
  if (result.code !== 0) throw new Error(`deno task package failed: ${result.stderr}`);
  return { dir, release: `${dir}/dist/release`, stderr: result.stderr };
})();

const ignore = Deno.build.os === "windows" || OFFLINE;

/** A bundle unpacked with the official CLI into a fresh folder. */
async function unpacked(os: string): Promise<{ dir: string; manifest: Record<string, unknown> }> {
  const { release } = (await built)!;
  const dir = await Deno.makeTempDir({ prefix: `tinyagent-bundle-${os}-` });
  const result = await mcpb(["unpack", `${release}/tinyagent-${VERSION}-${os}.mcpb`, dir], dir);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  return { dir, manifest: JSON.parse(await Deno.readTextFile(`${dir}/manifest.json`)) };
}

Deno.test({
  name: "bundles: one per OS, valid for the official CLI, each with the binaries its CPUs need",
  ignore,
  fn: async (t) => {
    const { release } = (await built)!;
    await t.step("deno task package made one bundle per OS, listed in SHA256SUMS", async () => {
      const names = BUNDLES.map((bundle) => bundleName(VERSION, bundle.os));
      assert.deepEqual(names, ["linux", "macos", "windows"].map((os) => `tinyagent-${VERSION}-${os}.mcpb`));
      const sums = await Deno.readTextFile(`${release}/SHA256SUMS`);
      for (const name of names) {
        const digest = bytesToHex(sha256(await Deno.readFile(`${release}/${name}`)));
        assert.ok(sums.includes(`${digest}  ${name}\n`), `${name} in SHA256SUMS`);
      }
    });
    for (const bundle of BUNDLES) {
      await t.step(
        `${bundle.os}: mcpb validate passes; unpacked, it holds the launcher and every CPU's binary`,
        async () => {
          const { dir, manifest } = await unpacked(bundle.os);
          try {
            const valid = await mcpb(["validate", `${dir}/manifest.json`], dir);
            assert.equal(valid.code, 0, valid.stdout + valid.stderr);
            assert.equal(manifest.version, VERSION);
            assert.equal(manifest.manifest_version, "0.2");
            assert.deepEqual((manifest.compatibility as { platforms: string[] }).platforms, [
              bundle.platform,
            ]);
            const binaries = bundle.targets.map(bundledBinary);
            const expected = bundle.os === "windows"
              ? ["manifest.json", "server/tinyagent.exe"]
              : ["manifest.json", "server/launch.sh", ...binaries].sort();
            assert.deepEqual(await listTree(dir), expected);
            for (const target of bundle.targets) {
              const inside = `${dir}/${bundledBinary(target)}`;
              assert.deepEqual(
                await Deno.readFile(inside),
                await Deno.readFile(
                  `${(await built)!.dir}/dist/tinyagent-${target}${target.includes("windows") ? ".exe" : ""}`,
                ),
              );
              if (bundle.os !== "windows") {
                assert.equal((await Deno.stat(inside)).mode! & 0o111, 0o111, `${inside} is executable`);
              }
            }
            if (bundle.os !== "windows") {
              assert.deepEqual(await Deno.readFile(`${dir}/server/launch.sh`), await Deno.readFile(LAUNCHER));
            }
          } finally {
            await Deno.remove(dir, { recursive: true });
          }
        },
      );
    }
  },
});

Deno.test({
  name: "bundles: every setting maps onto a flag or the key variable, and the defaults parse",
  ignore,
  fn: async () => {
    for (const bundle of BUNDLES) {
      const { dir, manifest } = await unpacked(bundle.os);
      try {
        const config = (manifest.server as {
          mcp_config: { command: string; args: string[]; env: Record<string, string> };
        }).mcp_config;
        const text = JSON.stringify(config);
        for (const name of Object.keys(USER_CONFIG)) {
          assert.equal(
            text.split(`\${user_config.${name}}`).length - 1,
            1,
            `${bundle.os}: ${name} is used once`,
          );
        }
        assert.deepEqual(config.env, { TINY_PRIVATE_KEY: "${user_config.private_key}" });
        assert.equal(
          (manifest.user_config as Record<string, { sensitive?: boolean }>).private_key.sensitive,
          true,
        );
        // The host's substitution of the defaults, with a relay and a key: a command tinyagent accepts.
        const launch = hostLaunch(
          manifest,
          { relay_url: "https://relay.example.test", private_key: "k" },
          dir,
        );
        const argv = bundle.os === "windows" ? launch.args : launch.args.slice(1);
        const command = parseCommand(argv);
        assert.equal(command.command, "mcp");
        if (command.command !== "mcp") continue;
        assert.equal(command.allowWrites, false);
        assert.deepEqual(command.exposed, CONTRACT_READ);
        assert.equal(command.oversight.maxWrites, 50);
        assert.equal(command.oversight.confirmWrites, false);
        assert.equal(command.codeMode, undefined, "code mode off by default");
        assert.equal(command.readTool, undefined, "tiny_read off by default");
        if (bundle.os === "windows") assert.equal(launch.command, `${dir}/server/tinyagent.exe`);
        else assert.deepEqual([launch.command, launch.args[0]], ["/bin/sh", `${dir}/server/launch.sh`]);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }
  },
});

/** Starts the unpacked bundle's server exactly as its manifest says, as an SDK host does. */
async function withBundleServer(
  dir: string,
  manifest: Record<string, unknown>,
  values: Record<string, string | number | boolean>,
  fn: (client: Client) => Promise<void>,
): Promise<string> {
  const launch = hostLaunch(manifest, values, dir);
  // The host's own few variables, the manifest's env, and what the stand-in's deno needs to find its
  // packages (a compiled binary needs none of that).
  const transport = new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/",
      ...loaderEnv(),
      ...launch.env,
    },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "bundle-test", version: "1.0.0" });
  try {
    await client.connect(transport);
    await fn(client);
  } finally {
    await client.close();
  }
  return stderr;
}

Deno.test({
  name:
    "bundles: unpacked and started as the manifest says, the server serves the handshake, tools and a signed write",
  ignore,
  fn: async (t) => {
    const { dir, manifest } = await unpacked("linux");
    const relay = await startStrictRelay();
    const key = newKey();
    const base = { relay_url: relay.url, private_key: key.hex };
    try {
      await t.step("writes allowed: every tool, a write signed and published, the budget held", async () => {
        const stderr = await withBundleServer(
          dir,
          manifest,
          { ...base, allow_writes: true, max_writes: 1 },
          async (client) => {
            const { tools } = await client.listTools();
            assert.deepEqual(tools.map((tool: { name: string }) => tool.name), [
              ...CONTRACT_READ,
              ...CONTRACT_WRITE,
              TINY_DIAGNOSE,
            ]);
            const result = await client.callTool({
              name: "post_message",
              arguments: { room: "general", content: "from the bundle" },
            });
            assert.equal(result.isError, false, JSON.stringify(result));
            const event = relay.published.at(-1)!;
            assert.ok(verifyEvent(event));
            assert.equal(event.pubkey, key.pubkey);
            const second = await client.callTool({
              name: "post_message",
              arguments: { room: "general", content: "again" },
            });
            assert.deepEqual(second.content, [{ type: "text", text: budgetSpentText(1, 1) }]);
          },
        );
        assert.match(
          stderr,
          /writes allowed, each with a receipt on stderr; at most 1 write in this session/,
        );
        assertNoSecret(key, stderr, "the bundle server's stderr");
      });
      await t.step("the defaults: read tools only; and a tools setting narrows them", async () => {
        await withBundleServer(dir, manifest, base, async (client) => {
          assert.deepEqual((await client.listTools()).tools.map((tool: { name: string }) => tool.name), [
            ...CONTRACT_READ,
            TINY_DIAGNOSE,
          ]);
        });
        await withBundleServer(dir, manifest, { ...base, tools: "read_room,list_rooms" }, async (client) => {
          assert.deepEqual((await client.listTools()).tools.map((tool: { name: string }) => tool.name), [
            "read_room",
            "list_rooms",
            TINY_DIAGNOSE,
          ]);
        });
      });
      await t.step("code mode on: tiny_search and tiny_execute in place of the relay's tools", async () => {
        await withBundleServer(dir, manifest, { ...base, code_mode: true }, async (client) => {
          assert.deepEqual((await client.listTools()).tools.map((tool: { name: string }) => tool.name), [
            "tiny_search",
            "tiny_execute",
            TINY_DIAGNOSE,
          ]);
        });
      });
      await t.step("the read tool on: tiny_read after tiny_diagnose, reading a tiny:// URI", async () => {
        await withBundleServer(dir, manifest, { ...base, read_tool: true }, async (client) => {
          assert.deepEqual((await client.listTools()).tools.map((tool: { name: string }) => tool.name), [
            ...CONTRACT_READ,
            TINY_DIAGNOSE,
            "tiny_read",
          ]);
          const result = await client.callTool({
            name: "tiny_read",
            arguments: { uri: `tiny://${relay.host}/` },
          });
          assert.equal(result.isError, false, JSON.stringify(result));
        });
      });
      await t.step(
        "confirmation on, with a host that cannot ask (Claude Desktop today): writes refused",
        async () => {
          await withBundleServer(
            dir,
            manifest,
            { ...base, allow_writes: true, confirm_writes: true },
            async (client) => {
              const result = await client.callTool({
                name: "post_message",
                arguments: { room: "general", content: "no" },
              });
              assert.match(
                String((result.content as { text: string }[])[0].text),
                /this host cannot ask its person/,
              );
            },
          );
        },
      );
      await t.step(
        "the test notices a manifest argument renamed, or a setting that maps to nothing",
        async () => {
          const renamed = structuredClone(manifest);
          const args = (renamed.server as { mcp_config: { args: string[] } }).mcp_config.args;
          args[args.indexOf("--max-writes=${user_config.max_writes}")] =
            "--max-write=${user_config.max_writes}";
          await assert.rejects(withBundleServer(dir, renamed, base, async () => {}));
          const orphan = structuredClone(manifest);
          const orphanArgs = (orphan.server as { mcp_config: { args: string[] } }).mcp_config.args;
          orphanArgs[orphanArgs.indexOf("--tools=${user_config.tools}")] = "--tools=${user_config.tool_list}";
          await assert.rejects(withBundleServer(dir, orphan, base, async () => {}));
        },
      );
    } finally {
      await relay.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** Runs the launcher from a bundle's server/ folder with `uname` and `sysctl` as a machine would answer. */
async function launchAs(
  machine: { kernel: string; cpu: string; arm64?: "1" | "0" },
  binaries: Record<string, number>,
): Promise<{ code: number; stdout: string; stderr: string; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "tinyagent-launch-" });
  await Deno.mkdir(`${dir}/server`);
  await Deno.mkdir(`${dir}/bin`);
  await Deno.copyFile(LAUNCHER, `${dir}/server/launch.sh`);
  for (const [name, mode] of Object.entries(binaries)) {
    await Deno.writeTextFile(`${dir}/server/${name}`, `#!/bin/sh\necho "${name} $*"\n`, { mode });
    await Deno.chmod(`${dir}/server/${name}`, mode);
  }
  await Deno.writeTextFile(
    `${dir}/bin/uname`,
    `#!/bin/sh\ncase $1 in -s) echo ${machine.kernel};; -m) echo ${machine.cpu};; *) echo ${machine.kernel} ${machine.cpu};; esac\n`,
    { mode: 0o755 },
  );
  if (machine.arm64 !== undefined) {
    await Deno.writeTextFile(`${dir}/bin/sysctl`, `#!/bin/sh\necho ${machine.arm64}\n`, { mode: 0o755 });
  }
  const result = await new Deno.Command("/bin/sh", {
    args: [`${dir}/server/launch.sh`, "mcp", "--relay", "https://r.test"],
    env: { PATH: `${dir}/bin:/usr/bin:/bin` },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: result.code,
    stdout: decoder.decode(result.stdout),
    stderr: decoder.decode(result.stderr),
    dir,
  };
}

Deno.test({
  name: "the bundle's launcher: the CPU's binary on every Mac and Linux machine, its execute bit restored",
  ignore: Deno.build.os === "windows",
  fn: async (t) => {
    const both = { "tinyagent-x86_64": 0o755, "tinyagent-aarch64": 0o755 };
    const cases: [string, { kernel: string; cpu: string; arm64?: "1" | "0" }, string][] = [
      ["an Apple silicon Mac", { kernel: "Darwin", cpu: "arm64", arm64: "1" }, "tinyagent-aarch64"],
      // Under Rosetta uname says x86_64; the hardware still says Apple silicon.
      [
        "an Apple silicon Mac, the host under Rosetta",
        { kernel: "Darwin", cpu: "x86_64", arm64: "1" },
        "tinyagent-aarch64",
      ],
      ["an Intel Mac", { kernel: "Darwin", cpu: "x86_64", arm64: "0" }, "tinyagent-x86_64"],
      ["an Intel Mac whose sysctl knows no arm64", { kernel: "Darwin", cpu: "x86_64" }, "tinyagent-x86_64"],
      ["x86_64 Linux", { kernel: "Linux", cpu: "x86_64" }, "tinyagent-x86_64"],
      ["arm64 Linux", { kernel: "Linux", cpu: "aarch64" }, "tinyagent-aarch64"],
    ];
    for (const [name, machine, binary] of cases) {
      await t.step(name, async () => {
        const result = await launchAs(machine, both);
        try {
          assert.equal(result.code, 0, result.stderr);
          assert.equal(
            result.stdout,
            `${binary} mcp --relay https://r.test\n`,
            "the arguments passed on as they were",
          );
        } finally {
          await Deno.remove(result.dir, { recursive: true });
        }
      });
    }
    await t.step("a binary unpacked without its execute bit is made executable, then run", async () => {
      const result = await launchAs({ kernel: "Darwin", cpu: "arm64", arm64: "1" }, {
        "tinyagent-aarch64": 0o600,
      });
      try {
        assert.equal(result.code, 0, result.stderr);
        assert.equal((await Deno.stat(`${result.dir}/server/tinyagent-aarch64`)).mode! & 0o111, 0o111);
      } finally {
        await Deno.remove(result.dir, { recursive: true });
      }
    });
    await t.step("a CPU the bundle has no binary for is said, with what it has", async () => {
      const result = await launchAs({ kernel: "Linux", cpu: "riscv64" }, both);
      try {
        assert.equal(result.code, 1);
        assert.match(
          result.stderr,
          /^tinyagent: this bundle has no binary for Linux riscv64 \(it has: tinyagent-aarch64 tinyagent-x86_64 \)\n$/,
        );
      } finally {
        await Deno.remove(result.dir, { recursive: true });
      }
    });
  },
});

shellcheckTest("scripts/mcpb_launch.sh", ROOT);

/** server.json as the package step wrote it, and the sums it computed. */
async function registryEntry() {
  const { release } = (await built)!;
  const entry = JSON.parse(await Deno.readTextFile(`${release}/server.json`)) as Record<string, unknown>;
  const sums = new Map(
    (await Deno.readTextFile(`${release}/SHA256SUMS`)).trimEnd().split("\n").map((
      line,
    ) => [line.slice(66), line.slice(0, 64)]),
  );
  return { entry, sums };
}

Deno.test({
  name:
    "server.json: every bundle with its release URL and SHA-256, deno.json's version, the registry's rules",
  ignore,
  fn: async () => {
    const { entry, sums } = await registryEntry();
    assert.equal(
      entry.$schema,
      "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
    );
    // The namespace GitHub OIDC grants the repository's owner, and the registry's name grammar.
    assert.equal(entry.name, "io.github.example-owner/tinyagent");
    assert.match(String(entry.name), /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    assert.equal(entry.version, VERSION);
    const description = String(entry.description);
    assert.ok(
      description.length >= 1 && description.length <= 100,
      `description: ${description.length} characters`,
    );
    assert.deepEqual(entry.repository, { url: `https://github.com/${REPO}`, source: "github" });
    const packages = entry.packages as {
      identifier: string;
      fileSha256: string;
      registryType: string;
      version: string;
      transport: unknown;
      environmentVariables: { name: string; isSecret: boolean; isRequired: boolean }[];
    }[];
    assert.deepEqual(
      packages.map((pkg) => pkg.identifier),
      BUNDLES.map((bundle) =>
        `https://github.com/${REPO}/releases/download/v${VERSION}/${bundleName(VERSION, bundle.os)}`
      ),
    );
    for (const pkg of packages) {
      const name = pkg.identifier.split("/").at(-1)!;
      // The registry's rules for an mcpb package: an https GitHub release asset whose URL says mcp, with its digest.
      assert.match(pkg.identifier, /^https:\/\/github\.com\/[^/]+\/[^/]+\/releases\/download\/[^/]+\/[^/]+$/);
      assert.ok(pkg.identifier.includes("mcp"));
      assert.match(pkg.fileSha256, /^[a-f0-9]{64}$/);
      assert.equal(pkg.fileSha256, sums.get(name), `${name}: the sum the package step computed`);
      assert.deepEqual([pkg.registryType, pkg.version, pkg.transport], ["mcpb", VERSION, { type: "stdio" }]);
      assert.deepEqual(
        pkg.environmentVariables.map(({ name, isSecret, isRequired }) => ({ name, isSecret, isRequired })),
        [
          { name: "TINY_PRIVATE_KEY", isSecret: true, isRequired: true },
        ],
      );
    }
  },
});

Deno.test({
  name: "server.json: valid for the registry's own schema (when it is supplied, by its digest)",
  ignore: ignore || !HAVE_SCHEMA,
  fn: async () => {
    const { entry } = await registryEntry();
    const schemaBytes = await Deno.readFile(SCHEMA);
    assert.equal(
      bytesToHex(sha256(schemaBytes)),
      SCHEMA_SHA256,
      `${SCHEMA} is not the published schema, unedited`,
    );
    const ajv = new Ajv({ strict: false, allErrors: true });
    (formats as unknown as (ajv: Ajv) => void)(ajv);
    const validate = ajv.compile(JSON.parse(new TextDecoder().decode(schemaBytes)));
    const valid = validate(entry);
    assert.ok(valid, JSON.stringify(validate.errors, null, 2));
    // The schema is strict where it matters: a description over its limit is refused.
    assert.ok(!validate({ ...entry, description: "x".repeat(101) }));
  },
});

Deno.test({
  name: "bundles and server.json: the release built here is removed",
  ignore,
  fn: async () => {
    const { dir } = (await built)!;
    await Deno.remove(dir, { recursive: true });
  },
});
