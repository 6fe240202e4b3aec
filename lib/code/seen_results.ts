// The answers this session has seen from each relay tool, kept only as their merged shapes (shapes.ts),
// for tiny_search's result types. Fed from the facade's call path, which direct calls, programs' calls
// and resource reads all take, so it costs no relay call of its own. An answer is merged after the
// current turn (or when a search asks), never on the way to the caller; at most MAX_WAITING wait, and
// at most MAX_TOOLS tools are kept.

import type { CallToolResult } from "../wire/mcp.ts";
import { programValue } from "./bridge.ts";
import { ResultShape } from "./shapes.ts";

/** Tools whose shapes are kept: more than the relay's whole table. */
export const MAX_TOOLS = 64;
/** Answers waiting to be merged; past it, the oldest are merged at once. */
export const MAX_WAITING = 16;

/** A tool's seen result type, and how many answers it was merged from. */
export interface SeenType {
  type: string;
  answers: number;
}

/** Runs `task` once the current work is done; a real timer that never keeps the process alive. */
export type Later = (task: () => void) => void;

const afterThisTurn: Later = (task) => Deno.unrefTimer(setTimeout(task, 0));

export class SeenResults {
  #shapes = new Map<string, ResultShape>();
  #waiting: [string, unknown][] = [];
  #scheduled = false;

  constructor(private readonly later: Later = afterThisTurn) {}

  /** A relay tool's answer, as the facade gave it: a failed one says nothing of the result's shape. */
  record(tool: string, result: CallToolResult): void {
    if (result.isError === true) return;
    if (!this.#shapes.has(tool) && this.#shapes.size >= MAX_TOOLS) return;
    this.#waiting.push([tool, programValue(result)]);
    if (this.#waiting.length > MAX_WAITING) this.#merge(this.#waiting.splice(0, 1));
    if (!this.#scheduled) {
      this.#scheduled = true;
      this.later(() => this.#flush());
    }
  }

  /** The type seen for `tool` on one line of at most `maxChars`, or undefined when none was seen. */
  typeOf(tool: string, maxChars: number): SeenType | undefined {
    this.#flush();
    const shape = this.#shapes.get(tool);
    return shape ? { type: shape.type(maxChars), answers: shape.answers } : undefined;
  }

  #flush(): void {
    this.#scheduled = false;
    this.#merge(this.#waiting.splice(0));
  }

  #merge(answers: [string, unknown][]): void {
    for (const [tool, value] of answers) {
      let shape = this.#shapes.get(tool);
      if (!shape) {
        if (this.#shapes.size >= MAX_TOOLS) continue;
        this.#shapes.set(tool, shape = new ResultShape());
      }
      shape.absorb(value);
    }
  }
}
