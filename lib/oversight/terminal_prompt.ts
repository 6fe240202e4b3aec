// Asking the person at the terminal (`tinyagent call --confirm-writes`): the
// question on stderr, then `[y/N]`, answered by a line on stdin. Only a
// terminal can be asked: with stdin a pipe or a file nobody is there to
// answer, and the write is refused rather than approved by whatever the
// input holds.

import type { AskPerson, ConfirmAnswer } from "./confirmation.ts";

/** The most a typed answer may be: a few characters are expected, the rest is not read. */
const ANSWER_LIMIT = 256;

/** Whether a typed line approves: y or yes, in any case, with spaces around; anything else declines. */
export function approves(line: string): boolean {
  return /^\s*y(es)?\s*$/i.test(line);
}

export interface Terminal {
  isTerminal(): boolean;
  /** Reads what the person types, up to a newline or the end; null at end of input. */
  read(buffer: Uint8Array): Promise<number | null>;
  write(text: string): void;
}

/** The process's own stdin and stderr (stdout stays the command's result). */
export const processTerminal: Terminal = {
  isTerminal: () => Deno.stdin.isTerminal(),
  read: (buffer) => Deno.stdin.read(buffer),
  write: (text) => void Deno.stderr.writeSync(new TextEncoder().encode(text)),
};

/** One line from the terminal; null at end of input; OVERLONG past ANSWER_LIMIT bytes (not read further). */
async function readLine(terminal: Terminal): Promise<string | null | typeof OVERLONG> {
  const bytes: number[] = [];
  const buffer = new Uint8Array(1);
  for (;;) {
    const read = await terminal.read(buffer);
    if (read === null) return bytes.length > 0 ? new TextDecoder().decode(new Uint8Array(bytes)) : null;
    if (read === 0) continue;
    if (buffer[0] === 0x0a) return new TextDecoder().decode(new Uint8Array(bytes));
    if (bytes.length === ANSWER_LIMIT) return OVERLONG;
    bytes.push(buffer[0]);
  }
}

/** A line too long to be an answer: it approves nothing. */
const OVERLONG = Symbol("overlong");

/** Asks at `terminal`, each question bounded by `timeoutMs`. */
export function askAtTerminal(terminal: Terminal, timeoutMs: number): AskPerson {
  return async (question: string): Promise<ConfirmAnswer> => {
    if (!terminal.isTerminal()) {
      return {
        action: "unable",
        why: "--confirm-writes asks at the terminal, and stdin is not a terminal: nobody can answer; run " +
          "tinyagent call in a terminal, or without --confirm-writes",
      };
    }
    terminal.write(`\n${question}\n\n${promptFor(question)} [y/N] `);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((resolve) =>
      timer = setTimeout(() => resolve("timeout"), timeoutMs)
    );
    try {
      const line = await Promise.race([readLine(terminal), timedOut]);
      if (line === "timeout") {
        terminal.write("\n");
        return { action: "timeout", seconds: timeoutMs / 1000 };
      }
      return typeof line === "string" && approves(line) ? { action: "accept" } : { action: "decline" };
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The prompt: an upload is sent, an event signed and published. */
function promptFor(question: string): string {
  return question.startsWith("Upload") ? "Upload it?" : "Sign and publish it?";
}
