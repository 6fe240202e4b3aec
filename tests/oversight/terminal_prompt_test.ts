// Asking at the terminal (lib/oversight/terminal_prompt.ts), with a scripted terminal: only a
// terminal is asked; y or yes approves, anything else declines; no answer in time is a timeout.

import assert from "node:assert/strict";
import { approves, askAtTerminal, type Terminal } from "../../lib/oversight/terminal_prompt.ts";

function terminal(input: string | null, isTerminal = true): Terminal & { written: string } {
  const bytes = input === null ? undefined : new TextEncoder().encode(input);
  let at = 0;
  const fake = {
    written: "",
    isTerminal: () => isTerminal,
    // null input: a person who never types (a read that never ends).
    read: (buffer: Uint8Array): Promise<number | null> => {
      if (!bytes) return new Promise(() => {});
      if (at >= bytes.length) return Promise.resolve(null);
      buffer[0] = bytes[at++];
      return Promise.resolve(1);
    },
    write: (text: string) => void (fake.written += text),
  };
  return fake;
}

Deno.test("y and yes approve, in any case; everything else declines", () => {
  for (const line of ["y", "Y", "yes", " YES ", "y\r"]) assert.ok(approves(line), line);
  for (const line of ["", "n", "no", "yess", "sure", "y y"]) assert.ok(!approves(line), line);
});

Deno.test("the question on stderr, then [y/N]; the typed line decides", async () => {
  const yes = terminal("yes\nmore input\n");
  assert.deepEqual(await askAtTerminal(yes, 5_000)("Sign and publish this event on r?"), {
    action: "accept",
  });
  assert.equal(yes.written, "\nSign and publish this event on r?\n\nSign and publish it? [y/N] ");
  assert.deepEqual(await askAtTerminal(terminal("\n"), 5_000)("q"), { action: "decline" });
  assert.deepEqual(await askAtTerminal(terminal("n\n"), 5_000)("q"), { action: "decline" });
  assert.deepEqual(
    await askAtTerminal(terminal(""), 5_000)("q"),
    { action: "decline" },
    "end of input declines",
  );
  assert.deepEqual(
    await askAtTerminal(terminal("y"), 5_000)("q"),
    { action: "accept" },
    "a last line without newline",
  );
  const upload = terminal("n\n");
  await askAtTerminal(upload, 5_000)("Upload this file to r?");
  assert.match(upload.written, /Upload it\? \[y\/N\] $/);
});

Deno.test("a very long line is read only so far, and declines", async () => {
  assert.deepEqual(await askAtTerminal(terminal(`y${" ".repeat(10_000)}`), 5_000)("q"), {
    action: "decline",
  });
});

Deno.test("no answer in time is a timeout; stdin that is no terminal is never asked", async () => {
  assert.deepEqual(await askAtTerminal(terminal(null), 30)("q"), { action: "timeout", seconds: 0.03 });
  const piped = terminal("y\n", false);
  const answer = await askAtTerminal(piped, 5_000)("q");
  assert.equal(answer.action, "unable");
  assert.match(
    (answer as { why: string }).why,
    /^--confirm-writes asks at the terminal, and stdin is not a terminal: nobody can answer; run tinyagent call in a terminal, or without --confirm-writes$/,
  );
  assert.equal(piped.written, "", "nothing asked, nothing read");
});
