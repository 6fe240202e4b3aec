/**
 * Tests for the size rules' lint plugin (scripts/lint_size.ts): which files it holds to them, what
 * counts as a line of code, and the function rule as `deno lint` runs it, in a checkout whose path
 * a URL has to escape (a space: the rules once held no file there).
 *
 * Run: deno test --allow-net=127.0.0.1 --allow-env --allow-run --allow-read --allow-write tests/lint_size_test.ts
 */
import assert from "node:assert/strict";
import { codeLines, governed, rootOf } from "../scripts/lint_size.ts";
import { loaderEnv } from "./support/tinyagent.ts";

Deno.test("the root is a path: a space or a letter outside ASCII in it is not left escaped", () => {
  const root = rootOf(new URL("file:///home/a%20b/caf%C3%A9/"));
  assert.equal(root, "/home/a b/café/");
  assert.ok(governed("/home/a b/café/lib/resources/links.ts", root));
});

Deno.test("held: lib/ and the root's entry files; not the tests, the scripts, or what lies outside", () => {
  const root = "/c/";
  assert.ok(governed("/c/lib/resources/links.ts", root));
  assert.ok(governed("/c/main.ts", root));
  assert.ok(!governed("/c/tests/layers_test.ts", root));
  assert.ok(!governed("/c/scripts/lint_size.ts", root));
  assert.ok(!governed("/elsewhere/lib/x.ts", root));
});

Deno.test("lines of code: neither blank lines nor comments", () => {
  const text = "a;\n\n// b\n/* c\n d */ e;\n";
  const comment = (from: string, to: string): [number, number] => {
    const start = text.indexOf(from);
    return [start, text.indexOf(to, start) + to.length];
  };
  assert.deepEqual([...codeLines(text, [comment("//", "b"), comment("/*", "*/")])], [0, 4]);
});

/** A function of `lines` lines, every one of them code. */
function functionOf(name: string, lines: number): string {
  const body = Array.from({ length: lines - 4 }, (_, i) => `  x += ${i};`);
  return [`export function ${name}(): number {`, "  let x = 0;", ...body, "  return x;", "}", ""].join("\n");
}

Deno.test("deno lint refuses a function of 66 lines of code, not one of 65, under a folder with a space", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const root = `${dir}/a checkout`;
    await Deno.mkdir(`${root}/lib`, { recursive: true });
    await Deno.mkdir(`${root}/scripts`);
    await Deno.copyFile(new URL("../scripts/lint_size.ts", import.meta.url), `${root}/scripts/lint_size.ts`);
    await Deno.writeTextFile(
      `${root}/deno.json`,
      JSON.stringify({ lint: { plugins: ["./scripts/lint_size.ts"] } }),
    );
    await Deno.writeTextFile(`${root}/lib/fits.ts`, functionOf("fits", 65));
    await Deno.writeTextFile(`${root}/lib/over.ts`, functionOf("over", 66));
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["lint", "--json"],
      cwd: root,
      env: loaderEnv(),
      stdout: "piped",
      stderr: "piped",
    }).output();
    const report = JSON.parse(new TextDecoder().decode(out.stdout));
    const found = (report.diagnostics as { filename: string; code: string; message: string }[])
      .map((d) => [d.filename.split("/").pop(), d.code, d.message]);
    assert.deepEqual(found, [[
      "over.ts",
      "size/function-lines",
      "66 lines of code in one function; at most 65: split it",
    ]]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
