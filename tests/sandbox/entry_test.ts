// The two entry points of lib/sandbox/entry.ts (main.ts by literal names, for a confined run and the binary; launch.ts by URL,
// for a checkout) hold the same modules and parts: whatever one runs, the other runs the same code.

import assert from "node:assert/strict";
import { firstWordOfWorker } from "../support/worker_start.ts";
import { ENTRY_MODULES } from "../../lib/sandbox/entry.ts";
import { ALL_PARTS } from "../../lib/session/all_parts.ts";
import { PART_MODULES, type PartName } from "../../lib/session/parts.ts";
import { loaderEnv } from "../support/tinyagent.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("every part is in the table, and each literal loader loads the module the table names", async () => {
  assert.deepEqual(Object.keys(ALL_PARTS).sort(), Object.keys(PART_MODULES).sort());
  for (const name of Object.keys(PART_MODULES) as PartName[]) {
    const byName = await ALL_PARTS[name]();
    const byUrl = await import(new URL(`lib/${PART_MODULES[name]}`, ROOT).href);
    assert.equal(byName, byUrl, name);
  }
});

Deno.test("main.ts names by literal the modules launch.ts loads by URL", async () => {
  const main = await Deno.readTextFile(new URL("main.ts", ROOT));
  for (const [name, path] of Object.entries(ENTRY_MODULES)) {
    assert.ok(
      main.includes(`${name}: () => import("./lib/${path}"),`),
      `main.ts's ${name} loads lib/${path}`,
    );
  }
  assert.match(main, /parts: ALL_PARTS,/);
  const launch = await Deno.readTextFile(new URL("launch.ts", ROOT));
  for (const name of Object.keys(ENTRY_MODULES)) {
    assert.ok(launch.includes(`${name}: byUrl(ENTRY_MODULES.${name}),`), `launch.ts's ${name}`);
  }
});

Deno.test("launch.ts's graph holds the command line and the sandbox, not the program", async () => {
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "launch.ts"],
    cwd: ROOT,
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.equal(code, 0);
  const graph = JSON.parse(new TextDecoder().decode(stdout)) as {
    modules: { specifier: string; dependencies?: { specifier: string; code?: unknown }[] }[];
  };
  // The modules reached by code (deno info also lists those reached by types alone, which a run never reads).
  const byCode = new Set<string>([new URL("launch.ts", ROOT).href]);
  const modules = new Map(graph.modules.map((module) => [module.specifier, module]));
  for (const specifier of byCode) {
    for (const dependency of modules.get(specifier)?.dependencies ?? []) {
      if (!dependency.code) continue;
      const target = (dependency.code as { specifier?: string }).specifier;
      if (target?.startsWith("file:")) byCode.add(target);
    }
  }
  const read = [...byCode].map((specifier) => specifier.slice(ROOT.href.length)).sort();
  for (const path of read) {
    assert.match(
      path,
      /^(launch\.ts|deno\.json|lib\/(cli|sandbox|session|wire|relay|facade|oversight|rpc)\/)/,
    );
  }
  for (const path of Object.values(PART_MODULES)) assert.ok(!read.includes(`lib/${path}`), path);
  assert.ok(!read.includes("lib/session/run.ts"));
});

Deno.test("the compiled binary's worker entry starts with no read permission, holding every part", async () => {
  assert.deepEqual(await firstWordOfWorker(new URL("lib/sandbox/worker_all.ts", ROOT)), { type: "ready" });
});

Deno.test("launch.ts started confined says to run main.ts, in one line, status 1", async () => {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-net=127.0.0.1:9",
      "--allow-env=TINY_PRIVATE_KEY",
      "launch.ts",
      "whoami",
    ],
    cwd: ROOT,
    env: { ...loaderEnv(), TINY_PRIVATE_KEY: "11".repeat(32) },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 1);
  assert.equal(new TextDecoder().decode(stdout), "");
  assert.match(
    new TextDecoder().decode(stderr),
    /^tinyagent: launch\.ts loads tinyagent's modules as a command needs them, .* run main\.ts instead, which names every module up front\n$/,
  );
});
