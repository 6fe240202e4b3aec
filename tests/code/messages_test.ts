// What is said when a program does not return (lib/code/messages.ts): syntax errors named by line, the
// bridge's own stack lines left out, and which end a thrown error means.

import assert from "node:assert/strict";
import { callLimitMessage } from "../../lib/code/calls.ts";
import {
  isStripError,
  limitMessage,
  programPosition,
  programStack,
  stripErrorMessage,
  stripFailureMessage,
  syntaxMessage,
  thrownEnd,
} from "../../lib/code/messages.ts";
import { DEFAULT_LIMITS } from "../../lib/code/program.ts";

Deno.test("syntax messages name the line (and column)", async (t) => {
  await t.step("QuickJS's position, from its stack", () => {
    assert.deepEqual(programPosition("    at program.js:3:9\n"), { line: 3, column: 9 });
    assert.deepEqual(programPosition("    at program.js:3\n"), { line: 3 });
    assert.deepEqual(programPosition("    at elsewhere.js:1:1"), {});
    assert.equal(syntaxMessage("expecting '('", 1, 8), "SyntaxError: expecting '(' (line 1, column 8)");
    assert.equal(syntaxMessage("bad"), "SyntaxError: bad");
  });
  await t.step("an import or an export line: what to do instead", () => {
    const source = "const a = 1;\nimport x from 'y';\nexport async function run() {}";
    assert.match(
      syntaxMessage("expecting '('", 2, 8, source),
      /\(line 2, column 8\): a program cannot import modules/,
    );
    assert.match(
      syntaxMessage("unexpected token", 3, 1, source),
      /: a program is a script; define run without export$/,
    );
    assert.equal(
      syntaxMessage("unexpected token", 1, 1, source),
      "SyntaxError: unexpected token (line 1, column 1)",
    );
    assert.equal(
      syntaxMessage("unexpected token", 1, 1, source, "do this"),
      "SyntaxError: unexpected token (line 1, column 1): do this",
    );
    assert.equal(
      syntaxMessage("x", 2, 1, source, "do this"),
      "SyntaxError: x (line 2, column 1): a program cannot import modules; it reaches the relay only through " +
        "relay.<tool>(args)",
      "the line's own hint, not the advice",
    );
  });
  await t.step("the stripper's refusal: its line, and its column counted in characters", () => {
    const refusal = (startLine: number, startColumn: number, message = "Unexpected token `=`") => ({
      code: "InvalidSyntax",
      message,
      startLine,
      startColumn,
    });
    const source = "let a = 1;\nlet x: = 3;\n\tlet y: = 3;\nlet s = 'é'; let z: = 3;";
    assert.equal(
      stripErrorMessage(refusal(2, 7), source),
      "SyntaxError: Unexpected token `=` (line 2, column 8)",
    );
    // swc counts a tab as 4 columns: the `=` after the tab is its 8th character.
    assert.equal(
      stripErrorMessage(refusal(3, 10), source),
      "SyntaxError: Unexpected token `=` (line 3, column 8)",
    );
    // Past ASCII, how wide swc took a character is not known: the line alone.
    assert.equal(stripErrorMessage(refusal(4, 21), source), "SyntaxError: Unexpected token `=` (line 4)");
    assert.equal(
      stripErrorMessage(refusal(2, 11, "Expected a semicolon."), source),
      "SyntaxError: Expected a semicolon (line 2, column 12)",
      "at the line's end; swc's closing period dropped",
    );
  });
  await t.step("TypeScript that is more than types: what to write instead", () => {
    const unsupported = (message: string) => ({
      code: "UnsupportedSyntax",
      message,
      startLine: 1,
      startColumn: 0,
    });
    const cases: [string, RegExp][] = [
      ["TypeScript enum is not supported in strip-only mode", /as an object \(`const Color = /],
      ["TypeScript parameter property is not supported in strip-only mode", /assign it in the constructor/],
      ["TypeScript namespace declaration is not supported in strip-only mode", /as plain functions$/],
      [
        "Something new is not supported",
        /types are erased and nothing else is compiled; write it another way$/,
      ],
    ];
    for (const [message, advice] of cases) {
      assert.match(stripErrorMessage(unsupported(message), "enum A {}"), advice, message);
    }
    const angle =
      "The angle-bracket syntax for type assertions, `<T>expr`, is not supported in type strip mode. " +
      "Instead, use the 'as' syntax: `expr as T`.";
    assert.equal(
      stripErrorMessage(unsupported(angle), "<T>x"),
      `SyntaxError: ${angle.slice(0, -1)} (line 1, column 1)`,
      "its own advice, no other",
    );
    assert.match(
      stripErrorMessage(
        unsupported("TypeScript import equals declaration is not supported"),
        "import a = b;",
      ),
      /a program cannot import modules/,
    );
  });
  await t.step("a refusal told from a failure inside the stripper", () => {
    assert.equal(isStripError({ code: "InvalidSyntax", message: "m", startLine: 1, startColumn: 0 }), true);
    for (const other of [new RangeError("x"), null, "text", { code: "X", message: "m", startLine: "1" }]) {
      assert.equal(isStripError(other), false, String(other));
    }
    assert.equal(
      stripFailureMessage(new RangeError("Maximum call stack size exceeded")),
      "SyntaxError: the program nests too deeply to be read (RangeError: Maximum call stack size exceeded)",
    );
    assert.match(
      stripFailureMessage(new WebAssembly.RuntimeError("memory access out of bounds")),
      /^SyntaxError: the program nests too deeply to be read \(RuntimeError: memory access out of bounds\)$/,
    );
    assert.equal(
      stripFailureMessage(new WebAssembly.RuntimeError("unreachable")),
      "SyntaxError: the program could not be read: the TypeScript stripper failed (RuntimeError: unreachable)",
    );
  });
});

Deno.test("programStack: the bridge's own frames left out", () => {
  const text = "Error: no\n    at invoke (relay-bridge.js:30:88)\n    at run (program.js:2:7)\n";
  assert.equal(programStack(text), "Error: no\n    at run (program.js:2:7)");
});

Deno.test("thrownEnd: limits by QuickJS's own errors, the call limit, else the program's throw", async (t) => {
  const threw = (name: string, message: string) => ({
    kind: "threw" as const,
    name,
    message,
    text: `${name}: ${message}`,
  });
  const cases: [string, ReturnType<typeof threw>, boolean, string][] = [
    ["out of memory", threw("InternalError", "out of memory"), false, "memory"],
    ["stack overflow", threw("InternalError", "stack overflow"), false, "stack"],
    ["the call limit's error, the limit reached", threw("Error", callLimitMessage(100)), true, "calls"],
    ["the same words, the limit not reached", threw("Error", callLimitMessage(100)), false, "threw"],
    ["the program's own error", threw("TypeError", "x is undefined"), false, "threw"],
    ["a look-alike name", threw("Error", "out of memory"), false, "threw"],
  ];
  for (const [name, thrown, reached, end] of cases) {
    await t.step(name, () => assert.equal(thrownEnd(thrown, DEFAULT_LIMITS, reached).end, end));
  }
  await t.step("a throw is said as the program's error text", () => {
    assert.deepEqual(thrownEnd(threw("Error", "boom"), DEFAULT_LIMITS, false), {
      end: "threw",
      error: "Error: boom",
    });
  });
});

Deno.test("limitMessage: each limit's message carries its figure", () => {
  assert.match(limitMessage("timeout", { ...DEFAULT_LIMITS, wallMs: 300 }), /300 ms/);
  assert.match(limitMessage("memory", DEFAULT_LIMITS), /64 MiB/);
  assert.match(limitMessage("output", { ...DEFAULT_LIMITS, outputBytes: 1024 }), /16384 bytes of logs/);
  assert.match(limitMessage("no-run", DEFAULT_LIMITS), /async function run\(relay\)/);
});
