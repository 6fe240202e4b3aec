// The architecture, checked: lib/ is folders, each a layer, and every import points down (or
// stays in its folder), with no module cycle. The order is docs/architecture.md's.

import assert from "node:assert/strict";

const LIB = new URL("../lib/", import.meta.url);

/** Top to bottom: a module may import from its own layer or any layer below it. */
export const LAYERS = [
  "sandbox",
  "session",
  "cli",
  "rpc",
  "code",
  "host",
  "diagnose",
  "facade",
  "listen",
  "oversight",
  "stream",
  "relay",
  "key",
  "transport",
  "wire",
] as const;

/** Every .ts file under lib/, relative to it. */
export function libFiles(dir = LIB, prefix = ""): string[] {
  const files: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isDirectory) files.push(...libFiles(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`));
    else if (entry.name.endsWith(".ts")) files.push(`${prefix}${entry.name}`);
  }
  return files.sort();
}

/** The lib/ files a module imports (static, dynamic and type-only), relative to lib/. */
function importsOf(file: string): string[] {
  const text = Deno.readTextFileSync(new URL(file, LIB));
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+\.ts)["']/g)) {
    const target = new URL(match[1], new URL(file, LIB)).href;
    if (target.startsWith(LIB.href)) found.push(target.slice(LIB.href.length));
  }
  return found;
}

const layerOf = (file: string) => LAYERS.indexOf(file.split("/")[0] as (typeof LAYERS)[number]);

Deno.test("lib/ is folders, one per layer, and nothing else", () => {
  const folders = [...Deno.readDirSync(LIB)].map((entry) => `${entry.name}${entry.isDirectory ? "/" : ""}`)
    .sort();
  assert.deepEqual(folders, LAYERS.map((layer) => `${layer}/`).sort());
});

Deno.test("every import points down a layer or stays in its folder", () => {
  const upward: string[] = [];
  for (const file of libFiles()) {
    for (const target of importsOf(file)) {
      if (layerOf(target) < layerOf(file)) upward.push(`${file} imports ${target}`);
    }
  }
  assert.deepEqual(upward, []);
});

Deno.test("no module cycle in lib/", () => {
  const graph = new Map(libFiles().map((file) => [file, importsOf(file)]));
  const state = new Map<string, "visiting" | "done">();
  const cycles: string[] = [];
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "visiting") {
      cycles.push([...path.slice(path.indexOf(file)), file].join(" → "));
      return;
    }
    state.set(file, "visiting");
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    state.set(file, "done");
  };
  for (const file of graph.keys()) visit(file, []);
  assert.deepEqual(cycles, []);
});

Deno.test("docs/architecture.md names every module in lib/, and only those", async () => {
  const section = await Deno.readTextFile(new URL("../docs/architecture.md", import.meta.url));
  const named = new Set([...section.matchAll(/`lib\/([a-z_]+\/[a-z0-9_]+\.ts)`/g)].map((match) => match[1]));
  const files = libFiles();
  assert.deepEqual(files.filter((file) => !named.has(file)), [], "in lib/ but not in docs/architecture.md");
  assert.deepEqual(
    [...named].filter((file) => !files.includes(file)).sort(),
    [],
    "in the table but not in lib/",
  );
  for (const layer of LAYERS) {
    assert.ok(section.includes(`| \`lib/${layer}/\``), `the layer table names lib/${layer}/`);
  }
});
