// What a program leaves behind, bounded: its log lines and its returned value share one budget of UTF-8
// bytes (ProgramLimits.outputBytes). Lines are kept in order while they fit; once one does not, it and
// every later line are only counted. At the end the value comes first: the kept lines are trimmed from
// the last until the value fits beside them, and a value larger than the whole budget is cut to it.
// A program that writes far more than it could ever show (RUNAWAY_FACTOR times the budget) is told to
// stop. Pure.

import { utf8Length } from "../facade/bounds.ts";

export interface LogLine {
  level: string;
  text: string;
}

/** How many times the budget a program may write in logs before it is stopped as a runaway. */
export const RUNAWAY_FACTOR = 16;

/** What is left of the output once the program has ended. */
export interface FinishedOutput {
  /** The returned value: parsed JSON, or the JSON text cut to the budget when valueTruncated. */
  value?: unknown;
  valueTruncated?: true;
  logs: LogLine[];
  logsDropped: number;
}

const encoder = new TextEncoder();

/** `text` cut to at most `limit` UTF-8 bytes, on a character boundary. */
export function cutToBytes(text: string, limit: number): string {
  if (text.length * 3 <= limit) return text;
  const { read } = encoder.encodeInto(text, new Uint8Array(limit));
  return text.slice(0, read);
}

export class OutputBudget {
  #logs: LogLine[] = [];
  #sizes: number[] = [];
  #kept = 0;
  #dropped = 0;
  #written = 0;
  #closed = false;

  constructor(readonly limitBytes: number) {}

  /** Keeps or counts one line; false once the program has written more than a runaway's worth. */
  add(line: LogLine): boolean {
    const bytes = utf8Length(line.text);
    this.#written += bytes;
    if (!this.#closed && this.#kept + bytes <= this.limitBytes) {
      this.#logs.push(line);
      this.#sizes.push(bytes);
      this.#kept += bytes;
    } else {
      this.#closed = true;
      this.#dropped++;
    }
    return this.#written <= RUNAWAY_FACTOR * this.limitBytes;
  }

  /** Counts a line that could not be read (the prelude bounds every line, so this is a defence). */
  skip(): void {
    this.#closed = true;
    this.#dropped++;
  }

  /**
   * The output once the program has ended: `json` is the value's JSON text as it crossed (at most the
   * budget in UTF-16 units, cut inside the guest) and `length` its full length; both absent when the
   * program returned nothing.
   */
  finish(json?: string, length = json?.length ?? 0): FinishedOutput {
    let value: unknown;
    let valueTruncated: true | undefined;
    let valueBytes = 0;
    if (json !== undefined) {
      valueBytes = utf8Length(json);
      if (length > json.length || valueBytes > this.limitBytes) {
        value = cutToBytes(json, this.limitBytes);
        valueTruncated = true;
        valueBytes = utf8Length(value as string);
      } else value = JSON.parse(json);
    }
    const logs = [...this.#logs];
    let kept = this.#kept;
    let dropped = this.#dropped;
    while (logs.length > 0 && kept + valueBytes > this.limitBytes) {
      logs.pop();
      kept -= this.#sizes[logs.length];
      dropped++;
    }
    return {
      ...(json === undefined ? {} : { value }),
      ...(valueTruncated ? { valueTruncated } : {}),
      logs,
      logsDropped: dropped,
    };
  }
}
