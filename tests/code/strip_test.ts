// TypeScript in a program (lib/code/strip.ts): types stripped without checking, the program then runs
// as written; what is more than types, a strip error and a failure inside the stripper each name the
// model's line; plain JavaScript means what it meant.

import assert from "node:assert/strict";
import { CODE_MAX_CHARS } from "../../lib/code/messages.ts";
import { BY_NAME, type Stripper } from "../../lib/code/packages.ts";
import { runProgram } from "../../lib/code/sandbox.ts";
import {
  GuardedStripper,
  retriedAsWritten,
  STRIPPER_MEMORY_BOUND,
  stripTypes,
  triedAsWritten,
} from "../../lib/code/strip.ts";
import { within } from "../support/waits.ts";
import { FakeBridge } from "./fake_bridge.ts";

/** What `code` returns when run (TypeScript allowed unless `typescript` is false). */
async function valueOf(code: string, typescript = true): Promise<unknown> {
  const outcome = await within(30_000, "outcome", runProgram(code, new FakeBridge(), { typescript }));
  assert.equal(outcome.end, "returned", outcome.error);
  return outcome.value;
}

/** How `code` ends when run, and its error. */
async function endOf(code: string): Promise<{ end: string; error: string }> {
  const outcome = await within(30_000, "outcome", runProgram(code, new FakeBridge()));
  return { end: outcome.end, error: outcome.error ?? "" };
}

Deno.test("stripTypes: TypeScript's syntax stripped, the program runs as written", async (t) => {
  const cases: [string, string[], unknown][] = [
    ["interfaces and type aliases", [
      "interface Room { id: string; n?: number }",
      "type Id = string;",
      "async function run(relay: unknown): Promise<Room> { const id: Id = 'r1'; return { id }; }",
    ], { id: "r1" }],
    ["generics, in functions, calls and arrows", [
      "function first<T>(items: T[]): T | undefined { return items[0]; }",
      "const pair = <T,>(a: T, b: T): [T, T] => [a, b];",
      "const run = async () => [first<number>([7, 8]), pair<string>('a', 'b')];",
    ], [7, ["a", "b"]]],
    ["`as`, `as const`, `satisfies`, and `!`", [
      "const run = async () => {",
      "  const o = { a: 1 } satisfies Record<string, number>;",
      "  const v = (o as any).a as number;",
      "  const m = new Map([[1, 'x']]);",
      "  const k = ['k'] as const;",
      "  let late!: number;",
      "  late = 2;",
      "  return [v, m.get(1)!, k[0], late];",
      "};",
    ], [1, "x", "k", 2]],
    ["optional, typed and `this` parameters, a typed rest, overloads", [
      "function f(a: number, b?: number, ...rest: number[]): number { return a + (b ?? 0) + rest.length; }",
      "function g(this: void, s: string): string;",
      "function g(this: void, s: any): any { return s + '!'; }",
      "async function run() { return [f(1), f(1, 2, 3, 4), g('hi')]; }",
    ], [1, 5, "hi!"]],
    ["classes with modifiers, implements, declared fields and an abstract base", [
      "interface Named { name(): string }",
      "abstract class Base implements Named { abstract name(): string; protected static kind?: string; }",
      "class Room extends Base implements Named {",
      "  private readonly id: string;",
      "  declare hint: string;",
      "  constructor(id: string) { super(); this.id = id; }",
      "  public name(): string { return 'room ' + this.id; }",
      "}",
      "async function run() { return [new Room('r1').name(), 'hint' in new Room('r2')]; }",
    ], ["room r1", false]],
    ["declare, type-only imports, a type-only namespace and a typed relay", [
      "import type { Relay } from './relay';",
      "declare const hint: string;",
      "declare enum Ambient { A }",
      "namespace Types { export type Id = string }",
      "async function run(relay: Relay): Promise<Types.Id> { return typeof relay; }",
    ], "object"],
    ["no types type-checked: a wrong type still runs", [
      "async function run(): Promise<number> { return 'text' as any; }",
    ], "text"],
  ];
  for (const [name, lines, value] of cases) {
    await t.step(name, async () => assert.deepEqual(await valueOf(lines.join("\n")), value));
  }
});

Deno.test("stripTypes: what is more than types is a syntax error naming its line and what to write", async (t) => {
  const cases: [string, string, number, RegExp][] = [
    ["an enum", "enum Color { Red, Green = 5 }", 2, /enum .*\(line 2, column 1\).*as an object/],
    ["a const enum", "const enum Kind { A = 'a' }", 2, /enum .*\(line 2, column 1\).*as an object/],
    ["a parameter property", "class Room { constructor(private id: string) {} }", 2, /parameter property/],
    [
      "a namespace with values",
      "namespace Util {\n  export const x = 1;\n}",
      2,
      /namespace .*plain functions/,
    ],
    ["an angle-bracket assertion", "const x = <number>(1 as any);", 2, /`<T>expr`.*use the 'as' syntax/],
    ["an import assigned", "import fs = require('fs');", 2, /a program cannot import modules/],
  ];
  for (const [name, line, at, said] of cases) {
    await t.step(name, async () => {
      const code = `// a program\n${line}\nasync function run(relay: any) { return 1; }`;
      const { end, error } = await endOf(code);
      assert.equal(end, "syntax");
      assert.match(error, new RegExp(`^SyntaxError: .*\\(line ${at}, column \\d+\\)`));
      assert.match(error, said);
    });
  }
  await t.step("a parameter property: what to write instead", async () => {
    const { error } = await endOf("class Room { constructor(private id: string) {} }");
    assert.match(
      error,
      /\(line 1, column 34\): .*declare the field in the class and assign it in the constructor/,
    );
  });
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
    "async function run() { const f = false ? (a) : b => b + 1; return [f(1), 1 < 2]; }",
    "async function run() { var let = 1; const x = let\n++let; return [x, let < 3]; }",
  ];
  for (const code of programs) {
    await t.step(code.slice(0, 60), async () => {
      const stripped = await stripTypes(code);
      assert.equal(stripped.ok, true, stripped.ok ? "" : stripped.message);
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

Deno.test("retriedAsWritten: a program the stripper did not strip is run as written, if it was not already", () => {
  const cases: [string, boolean][] = [
    ["async function run() { with ({ a: 1 }) return a < 2; }", true],
    ["async function run() { with ({ a: 1 }) return a; }", false], // already run as written
    ["<".repeat(CODE_MAX_CHARS + 1), false],
  ];
  for (const [code, expected] of cases) assert.equal(retriedAsWritten(code), expected, code.slice(0, 80));
});

Deno.test("runProgram: JavaScript tried as written, TypeScript still stripped, `<` still read as TypeScript's", async (t) => {
  await t.step(
    "valid JavaScript that the stripper refuses runs as written, with or without a `<`",
    async () => {
      const programs: [string, unknown][] = [
        ["async function run() { const o = { a: 1 }; with (o) { return a + 1; } }", 2],
        ["async function run() { const o = { a: 1 }; with (o) { return a < 2; } }", true],
        ["async function run() { return [010, 1 < 2]; }", [8, true]],
      ];
      for (const [code, value] of programs) {
        assert.equal((await stripTypes(code)).ok, false, code); // the stripper refuses it
        assert.deepEqual(await valueOf(code), value);
      }
    },
  );
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

Deno.test("stripTypes: lines are kept, so the program's errors name its own lines", async (t) => {
  await t.step("a throw", async () => {
    const code = "interface A {\n  x: number;\n}\nasync function run() {\n  throw new Error('line 5');\n}";
    const outcome = await within(30_000, "outcome", runProgram(code, new FakeBridge()));
    assert.match(outcome.error ?? "", /program\.js:5/);
  });
  await t.step("a syntax error QuickJS finds after the strip, at the column the model wrote", async () => {
    const code = "type T = Array<{ a: number }>;\nasync function run(): Promise<T> {\n" +
      "  const t: T = [];\n  return t;\n}\nconst late: number = 1 +;";
    const { end, error } = await endOf(code);
    assert.equal(end, "syntax");
    assert.match(error, /\(line 6, column 2[45]\)$/);
  });
});

Deno.test("stripTypes: a top-level return or await is a syntax error naming its line, as before", async (t) => {
  const cases: [string, string, number][] = [
    ["return, in TypeScript", "const x: number = 1;\nreturn x;", 2],
    ["return, with a `<`", "const a = 1 < 2;\nreturn a;", 2],
    ["await, in TypeScript", "async function run() { return 1; }\nconst x: number = await run();", 2],
    ["await, with a `<`", "const a = 1 < 2;\nawait 1;\nasync function run() { return a; }", 2],
  ];
  for (const [name, code, line] of cases) {
    await t.step(name, async () => {
      const { end, error } = await endOf(code);
      assert.equal(end, "syntax");
      assert.match(error, new RegExp(`^SyntaxError: .+ \\(line ${line}, column \\d+\\)$`));
    });
  }
});

Deno.test("stripTypes: a strip error is a syntax error naming its line", async (t) => {
  await t.step("a malformed type", async () => {
    const stripped = await stripTypes("const a = 1;\nlet x: = 3;");
    assert.equal(stripped.ok, false);
    assert.match(
      (stripped as { message: string }).message,
      /^SyntaxError: Unexpected token `=`.* \(line 2, column 8\)$/,
    );
  });
  await t.step("as the program's outcome", async () => {
    const outcome = await runProgram("async function run() {\n  let y: number[ = [];\n}", new FakeBridge());
    assert.equal(outcome.end, "syntax");
    assert.match(outcome.error ?? "", /^SyntaxError: .+ \(line 2, column \d+\)$/);
  });
  await t.step("on a line that is not ASCII: the line alone", async () => {
    const stripped = await stripTypes("const a = 'é';\nconst s = '日本'; let x: = 3;");
    assert.match((stripped as { message: string }).message, /^SyntaxError: .* \(line 2\)$/);
  });
  await t.step("a program too large to read", async () => {
    const stripped = await stripTypes(" ".repeat(CODE_MAX_CHARS + 1));
    assert.deepEqual(stripped, {
      ok: false,
      message: `the program is too large (${CODE_MAX_CHARS + 1} characters, at most ${CODE_MAX_CHARS})`,
    });
  });
});

Deno.test("stripTypes: a program nested too deeply for the stripper is refused, and the next one strips", async (t) => {
  const deep: [string, string][] = [
    ["parentheses (the WebAssembly traps)", `const a = ${"(".repeat(100_000)}1${")".repeat(100_000)};`],
    ["a chain of calls (V8's stack)", `const a = f${"()".repeat(20_000)};`],
    ["nested blocks", `${"if (x) {".repeat(5_000)}${"}".repeat(5_000)} const t: T = 1 < 2;`],
  ];
  for (const [name, code] of deep) {
    await t.step(name, async () => {
      const stripped = await stripTypes(code);
      assert.equal(stripped.ok, false);
      assert.match((stripped as { message: string }).message, /^SyntaxError: the program nests too deeply/);
      assert.deepEqual(await stripTypes("let b: Array<number> = [1];"), {
        ok: true,
        code: "let b                = [1];",
      });
    });
  }
  await t.step("through the whole path, then a TypeScript program runs", async () => {
    const nested = `${"[".repeat(50_000)}${"]".repeat(50_000)}`;
    const { end, error } = await endOf(`async function run(): Promise<unknown> { return ${nested}; }`);
    assert.equal(end, "syntax");
    assert.match(error, /^SyntaxError: the program nests too deeply to be read/);
    assert.equal(await valueOf("async function run(): Promise<number> { return 6 * 7; }"), 42);
  });
});

/** A stand-in for swc whose WebAssembly fails on `fails`, its memory `bytes` large. */
function failingSwc(fails: string, bytes: number, canary = true): Stripper {
  let stack = 1024;
  const wasm = {
    memory: new WebAssembly.Memory({ initial: 1 }),
    __wbindgen_add_to_stack_pointer: (delta: number) => stack += delta,
  };
  Object.defineProperty(wasm.memory, "buffer", { get: () => ({ byteLength: bytes }) });
  const transformSync = (code: string) => {
    if (code === fails) {
      stack = -928; // where a trap leaves it
      throw new WebAssembly.RuntimeError("memory access out of bounds");
    }
    if (stack !== 1024) throw new WebAssembly.RuntimeError("memory access out of bounds");
    return { code: canary ? code.replace(": number", "        ") : code };
  };
  return { transformSync, __wasm: wasm } as unknown as Stripper;
}

Deno.test("GuardedStripper: after a failure inside the WebAssembly, its stack is put back or it is set aside", async (t) => {
  await t.step("the real stripper: its stack put back", async () => {
    const guarded = new GuardedStripper(await BY_NAME.stripper());
    for (let round = 0; round < 3; round++) {
      const failed = guarded.strip(`x = ${"(".repeat(3_000)}1${")".repeat(3_000)};`);
      assert.match(
        (failed as { message: string }).message,
        /nests too deeply to be read \((RuntimeError|RangeError): /,
      );
      assert.deepEqual(guarded.strip("let a: number = 1;"), { ok: true, code: "let a         = 1;" });
    }
  });
  await t.step("its stack put back, its memory within the bound: it goes on", () => {
    const guarded = new GuardedStripper(failingSwc("deep", STRIPPER_MEMORY_BOUND));
    assert.equal(guarded.strip("deep").ok, false);
    assert.deepEqual(guarded.strip("let a: number = 1;"), { ok: true, code: "let a         = 1;" });
  });
  const setAside = [
    ["its memory past the bound", failingSwc("deep", STRIPPER_MEMORY_BOUND + 1), /memory grew past 32 MiB/],
    [
      "the canary not stripped as it should be",
      failingSwc("deep", 1024, false),
      /no longer strips correctly/,
    ],
  ] as const;
  for (const [name, swc, why] of setAside) {
    await t.step(`set aside: ${name}`, () => {
      const guarded = new GuardedStripper(swc);
      const failed = guarded.strip("deep") as { message: string };
      assert.match(
        failed.message,
        /^SyntaxError: the program nests too deeply .*; the TypeScript stripper failed/,
      );
      assert.match(failed.message, why);
      const later = guarded.strip("let a: number = 1;") as { ok: boolean; message: string };
      assert.equal(later.ok, false, "never called again");
      assert.match(later.message, /is set aside .*: write the program in JavaScript$/);
    });
  }
  await t.step("set aside: no stack pointer to put back", () => {
    const swc = failingSwc("deep", 1024);
    const guarded = new GuardedStripper({ transformSync: swc.transformSync } as unknown as Stripper);
    assert.match((guarded.strip("deep") as { message: string }).message, /its stack cannot be put back/);
  });
});
