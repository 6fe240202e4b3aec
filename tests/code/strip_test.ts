// TypeScript in a program (lib/code/strip.ts): types stripped without checking, the program then runs
// as written; a strip error names its line; plain JavaScript means what it meant.

import assert from "node:assert/strict";
import { CODE_MAX_CHARS } from "../../lib/code/messages.ts";
import { runProgram } from "../../lib/code/sandbox.ts";
import { stripTypes, triedAsWritten } from "../../lib/code/strip.ts";
import { within } from "../support/waits.ts";
import { FakeBridge } from "./fake_bridge.ts";

/** What `code` returns when run (TypeScript allowed unless `typescript` is false). */
async function valueOf(code: string, typescript = true): Promise<unknown> {
  const outcome = await within(30_000, "outcome", runProgram(code, new FakeBridge(), { typescript }));
  assert.equal(outcome.end, "returned", outcome.error);
  return outcome.value;
}

Deno.test("stripTypes: TypeScript's syntax stripped, the program runs as written", async (t) => {
  const cases: [string, string[], unknown][] = [
    ["interfaces and type aliases", [
      "interface Room { id: string; n?: number }",
      "type Id = string;",
      "async function run(relay: unknown): Promise<Room> { const id: Id = 'r1'; return { id }; }",
    ], { id: "r1" }],
    ["generics, in functions and calls", [
      "function first<T>(items: T[]): T | undefined { return items[0]; }",
      "const run = async () => first<number>([7, 8]);",
    ], 7],
    ["`as`, `satisfies`, and `!`", [
      "const run = async () => {",
      "  const o = { a: 1 } satisfies Record<string, number>;",
      "  const v = (o as any).a as number;",
      "  const m = new Map([[1, 'x']]);",
      "  return [v, m.get(1)!];",
      "};",
    ], [1, "x"]],
    ["optional and typed parameters, a typed rest", [
      "function f(a: number, b?: number, ...rest: number[]): number { return a + (b ?? 0) + rest.length; }",
      "async function run() { return [f(1), f(1, 2, 3, 4)]; }",
    ], [1, 5]],
    ["enums", [
      "enum Color { Red, Green = 5, Blue }",
      "enum Kind { A = 'a' }",
      "async function run() { return [Color.Red, Color.Green, Color.Blue, Color[5], Kind.A]; }",
    ], [0, 5, 6, "Green", "a"]],
    ["classes with parameter properties, modifiers and an abstract base", [
      "abstract class Base { abstract name(): string; }",
      "class Room extends Base {",
      "  constructor(private readonly id: string) { super(); }",
      "  name(): string { return 'room ' + this.id; }",
      "}",
      "async function run() { return new Room('r1').name(); }",
    ], "room r1"],
    ["declare, type-only imports and a typed relay", [
      "import type { Relay } from './relay';",
      "declare const hint: string;",
      "async function run(relay: Relay) { return typeof relay; }",
    ], "object"],
    ["no types type-checked: a wrong type still runs", [
      "async function run(): Promise<number> { return 'text' as any; }",
    ], "text"],
  ];
  for (const [name, lines, value] of cases) {
    await t.step(name, async () => assert.deepEqual(await valueOf(lines.join("\n")), value));
  }
});

Deno.test("stripTypes: plain JavaScript means what it meant", async (t) => {
  const programs = [
    "async function run() { const a = [3, 1, 2]; return a.sort((x, y) => x - y).map((x) => x * 2); }",
    "const run = async () => { let s = ''; for (const k of Object.keys({ b: 1, a: 2 })) s += k; return s; };",
    "async function run() { const a = 1, b = 2, c = 3; return [a < b, b > c, a < b > c]; }",
    "class A { #x = 1; get x() { return this.#x; } static make() { return new A(); } }\n" +
    "async function run() { return A.make().x; }",
    "async function run() { const { a, ...rest } = { a: 1, b: 2 };\n" +
    "  return [a, rest, 2 ** 10, 1_000, `t${a}`]; }",
    "async function run() { label: for (;;) { break label; } return typeof undefined; }",
  ];
  for (const code of programs) {
    await t.step(code.slice(0, 60), async () => {
      const stripped = await stripTypes(code);
      assert.equal(stripped.ok, true);
      assert.deepEqual(await valueOf(code), await valueOf(code, false));
    });
  }
});

Deno.test("triedAsWritten: a program without a `<`, of an acceptable size, is tried as JavaScript first", () => {
  const cases: [string, boolean][] = [
    ["async function run(relay) { return (await relay.list_issues({})).items.length; }", true],
    ["async function run() { const x: number = 1; return x; }", true], // compiles only once stripped
    ["async function run() { for (let i = 0; i < 3; i++); }", false],
    ["async function run() { return [1].reduce<number>((a, b) => a + b, 0); }", false],
    [" ".repeat(CODE_MAX_CHARS + 1), false],
  ];
  for (const [code, expected] of cases) assert.equal(triedAsWritten(code), expected, code.slice(0, 80));
});

Deno.test("runProgram: JavaScript tried as written, TypeScript still stripped, `<` still read as TypeScript's", async (t) => {
  await t.step("valid JavaScript that sucrase refuses runs as written", async () => {
    const code = "async function run() { const f = false ? (a) : b => b + 1; return f(1); }";
    assert.equal((await stripTypes(code)).ok, false); // what every program met before
    assert.equal(await valueOf(code), 2);
  });
  await t.step("TypeScript without a `<`: its compile fails, so it is stripped and runs", async () => {
    assert.equal(await valueOf("async function run() { const x: number = 2; return x * 3; }"), 6);
  });
  await t.step("a type argument that also reads as JavaScript is TypeScript's", async () => {
    // As JavaScript: (reduce < number) > ((a, b) => a + b, 0), a ReferenceError at run time.
    assert.equal(
      await valueOf("async function run() { return [1, 2].reduce<number>((a, b) => a + b, 0); }"),
      3,
    );
  });
  await t.step("a syntax error without a `<` is still the stripper's, naming its line", async () => {
    const outcome = await within(
      30_000,
      "outcome",
      runProgram("async function run() {\n  const f = (a) => ;\n}", new FakeBridge()),
    );
    assert.equal(outcome.end, "syntax");
    assert.match(outcome.error ?? "", /^SyntaxError: .+ \(line 2, column \d+\)$/);
    assert.deepEqual([outcome.calls, outcome.logs], [[], []]);
  });
});

Deno.test("stripTypes: lines are kept, so the program's errors name its own lines", async () => {
  const code = "interface A {\n  x: number;\n}\nasync function run() {\n  throw new Error('line 5');\n}";
  const outcome = await within(30_000, "outcome", runProgram(code, new FakeBridge()));
  assert.match(outcome.error ?? "", /program\.js:5/);
});

Deno.test("stripTypes: a strip error is a syntax error naming its line", async (t) => {
  await t.step("a malformed type", async () => {
    const stripped = await stripTypes("const a = 1;\nlet x: = 3;");
    assert.deepEqual(stripped, { ok: false, message: "SyntaxError: Unexpected token (line 2, column 8)" });
  });
  await t.step("as the program's outcome", async () => {
    const outcome = await runProgram("async function run() {\n  let y: number[ = [];\n}", new FakeBridge());
    assert.equal(outcome.end, "syntax");
    assert.match(outcome.error ?? "", /^SyntaxError: .+ \(line 2, column \d+\)$/);
  });
  await t.step("a program too large to read", async () => {
    const stripped = await stripTypes(" ".repeat(CODE_MAX_CHARS + 1));
    assert.deepEqual(stripped, {
      ok: false,
      message: `the program is too large (${CODE_MAX_CHARS + 1} characters, at most ${CODE_MAX_CHARS})`,
    });
  });
  await t.step("nesting too deep to read", async () => {
    const stripped = await stripTypes(`const a = ${"(".repeat(100_000)}1${")".repeat(100_000)};`);
    assert.equal(stripped.ok, false);
    assert.match((stripped as { message: string }).message, /^SyntaxError: /);
  });
});
