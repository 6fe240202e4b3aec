// What is said when a program does not return (lib/code/messages.ts): syntax errors named by line, the
// bridge's own stack lines left out, and which end a thrown error means.

import assert from "node:assert/strict";
import { callLimitMessage } from "../../lib/code/calls.ts";
import {
  limitMessage,
  programPosition,
  programStack,
  stripErrorMessage,
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
  });
  await t.step("sucrase's (LINE:COLUMN) suffix", () => {
    assert.equal(
      stripErrorMessage(new SyntaxError("Unexpected token (2:11)")),
      "SyntaxError: Unexpected token (line 2, column 11)",
    );
    assert.equal(stripErrorMessage(new Error("odd")), "SyntaxError: odd");
    assert.match(stripErrorMessage(new RangeError("Maximum call stack size exceeded")), /nests too deeply/);
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
