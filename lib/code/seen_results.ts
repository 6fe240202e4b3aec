// The answers this session has seen from each relay tool, kept only as their merged shapes (shapes.ts),
// for tiny_search's result types; and, for a tool whose answer tinyagent ships (relay_answers.ts),
// whether an answer did not fit it, and how: then the seen shape is shown in its place. Fed from the
// facade's call path, which direct calls, programs' calls and resource reads all take, so it costs no
// relay call of its own. An answer is merged after the current turn (or when a search asks), never on
// the way to the caller; at most MAX_WAITING wait, and at most MAX_TOOLS tools are kept.

import type { CallToolResult } from "../wire/mcp.ts";
import { answerMisfit, type Shape } from "./answer_shape.ts";
import { programValue } from "./bridge.ts";
import { ResultShape } from "./shapes.ts";

/** Tools whose shapes are kept: more than the relay's whole table. */
export const MAX_TOOLS = 64;
/** Answers waiting to be merged; past it, the oldest are merged at once. */
export const MAX_WAITING = 16;

/** A tool's seen result type, how many answers it was merged from, and how one differed from the shipped type. */
export interface SeenType {
  type: string;
  answers: number;
  differs?: string;
}

/** Runs `task` once the current work is done; a real timer that never keeps the process alive. */
export type Later = (task: () => void) => void;

/** The shape tinyagent ships for a tool's answers, if it ships one. */
export type Shipped = (tool: string) => Shape | undefined;

const afterThisTurn: Later = (task) => Deno.unrefTimer(setTimeout(task, 0));

export class SeenResults {
  #shapes = new Map<string, ResultShape>();
  #differs = new Map<string, string>();
  #waiting: [string, unknown][] = [];
  #scheduled = false;
  #version = 0;

  constructor(
    private readonly later: Later = afterThisTurn,
    private readonly shipped: Shipped = () => undefined,
  ) {}

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
    if (!shape) return undefined;
    const differs = this.#differs.get(tool);
    return { type: shape.type(maxChars), answers: shape.answers, ...(differs ? { differs } : {}) };
  }

  /**
   * A number that changes whenever a type tiny_search shows may have: a tool's first answer or a new
   * one of a tool shown as seen, or a tool's answer found to differ from the shipped type. An answer
   * that fits the shipped type changes nothing shown, so a table's hash kept under it stays good.
   */
  get version(): number {
    this.#flush();
    return this.#version;
  }

  /** The tools shown as seen (no shipped type, or one an answer did not fit), each with its full type. */
  shownAsSeen(maxChars: number): Record<string, string> {
    this.#flush();
    const shown: Record<string, string> = {};
    for (const [tool, shape] of this.#shapes) {
      if (!this.shipped(tool) || this.#differs.has(tool)) shown[tool] = shape.type(maxChars);
    }
    return shown;
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
      const shipped = this.shipped(tool);
      if (!shipped || this.#differs.has(tool)) {
        this.#version++;
        continue;
      }
      const misfit = answerMisfit(shipped, value);
      if (misfit) {
        this.#differs.set(tool, misfit);
        this.#version++;
      }
    }
  }
}
