// The relay's tool table as the host sees it (facade.md, `tools/list`): fetched
// at the host's first tools/list or tools/call, kept, and fetched again after
// a failed fetch or an unknown-tool report. Beyond the contract, it heals:
// hosts list once and never ask again, so once a host's request found the
// table unavailable it is fetched again in the background, with backoff, until
// it loads; and the host is told (`notifications/tools/list_changed`) whenever
// what tools/list would answer differs from what the host last saw.

import { exposedTable, withOutputSchemas } from "./exposed_table.ts";
import { DIAGNOSE_TOOL } from "./tools.ts";
import { failureText, type RelayAnswer, type RelayFailure } from "../relay/answer.ts";
import type { Tool } from "../wire/mcp.ts";

/** The first background fetch waits this long; each next one twice as long, up to the cap. */
export const RECOVERY_FIRST_MS = 1_000;
/** A relay that stays down is asked about once a minute. */
export const RECOVERY_CAP_MS = 60_000;
/** Up to this fraction is added to each delay, so many sessions do not ask in step. */
export const RECOVERY_JITTER = 0.2;

/** The delay before background fetch number `attempt` (from 0), given a random number in [0, 1). Pure. */
export function recoveryDelayMs(attempt: number, random: number): number {
  const base = Math.min(RECOVERY_CAP_MS, RECOVERY_FIRST_MS * 2 ** Math.min(attempt, 30));
  return Math.round(base * (1 + RECOVERY_JITTER * random));
}

/** Runs `task` after `ms`; returns what cancels it. Real timers in the program, a test's clock in tests. */
export type Scheduler = (ms: number, task: () => void) => () => void;

/** Timers that never keep the process alive on their own. */
export const realTimers: Scheduler = (ms, task) => {
  const timer = setTimeout(task, ms);
  Deno.unrefTimer(timer);
  return () => clearTimeout(timer);
};

export type TableState = { ok: true; table: Tool[] } | { ok: false; failure: RelayFailure };

export interface TableOptions {
  relay: { listTools(): Promise<RelayAnswer> };
  /** Exposed relay tools, in the order they are listed. */
  exposed: readonly string[];
  log(line: string): void;
  /** Called when the host should list the tools again. */
  onChange?: () => void;
  schedule?: Scheduler;
  random?: () => number;
}

/** What the host has seen when it saw no relay tool: tools/list answered `tiny_diagnose` alone. */
const UNAVAILABLE = "unavailable";

export class ToolTable {
  #options: TableOptions;
  #table: Tool[] | undefined;
  /** The same table with the relay's output schemas, for a program's search. */
  #searchable: Tool[] | undefined;
  #failed = false;
  /** The last failure said on stderr, so a relay that stays down is not said again at every fetch. */
  #lastFailure: string | undefined;
  /** A fetch in progress, shared by every request: never two at once. */
  #loading: Promise<TableState> | undefined;
  #cancelRetry: (() => void) | undefined;
  #attempt = 0;
  /** What the host last saw of the relay's tools (a tools/list answer or a notification), as JSON. */
  #hostView: string | undefined;
  /** tools/list requests waiting on a fetch: their answers tell the host, so no notification is needed. */
  #listing = 0;
  #closed = false;

  constructor(options: TableOptions) {
    this.#options = options;
  }

  /** Who to tell when the host should list again (set once the host protocol is there). */
  set onChange(listener: () => void) {
    this.#options.onChange = listener;
  }

  /** The table, if one is held. */
  get held(): Tool[] | undefined {
    return this.#table;
  }

  /** The last fetch failed (and the table is not held). */
  get failed(): boolean {
    return this.#failed;
  }

  /** For a tools/list answer: the table, fetched if needed; the host then has what it was given. */
  async forList(): Promise<TableState> {
    this.#listing++;
    try {
      const state = await this.load();
      this.#hostView = viewOf(state);
      return state;
    } finally {
      this.#listing--;
    }
  }

  /** The table, fetched unless held; a failure starts the background fetches. */
  load(): Promise<TableState> {
    if (this.#table) return Promise.resolve({ ok: true, table: this.#table });
    if (this.#closed) {
      return Promise.resolve({ ok: false, failure: { class: "transport", detail: "the host is gone" } });
    }
    return this.#loading ??= this.#fetch().finally(() => this.#loading = undefined);
  }

  /** The table a program's search reads, if one is held now: never fetched. */
  get searchableHeld(): Tool[] | undefined {
    return this.#table ? this.#searchable : undefined;
  }

  /** The table as a program's search reads it: with the relay's output schemas (withOutputSchemas). */
  async loadSearchable(): Promise<TableState> {
    const state = await this.load();
    return state.ok && this.#table === state.table && this.#searchable
      ? { ok: true, table: this.#searchable }
      : state;
  }

  /** The relay answered a call while the table was down: fetch it now (facade.md, `tools/list`). */
  async refreshAfterAnswer(): Promise<void> {
    if (this.#failed && !this.#closed) await this.load();
  }

  /**
   * The relay reported an unknown tool: its table changed. Dropped; the next tools/list or call
   * fetches it, and a call's fetch that finds a different table tells the host.
   */
  invalidate(): void {
    this.#table = undefined;
    this.#searchable = undefined;
    this.#failed = false;
  }

  /** The host is gone: no more fetches. */
  close(): void {
    this.#closed = true;
    this.#cancelRetry?.();
    this.#cancelRetry = undefined;
  }

  async #fetch(): Promise<TableState> {
    const state = await this.#read();
    if (state.ok) {
      this.#searchable = state.searchable;
      this.#loaded(state.table);
    } else this.#unavailable(state.failure);
    return state.ok ? { ok: true, table: state.table } : state;
  }

  async #read(): Promise<(TableState & { ok: false }) | { ok: true; table: Tool[]; searchable: Tool[] }> {
    const answer = await this.#options.relay.listTools();
    if (!answer.ok) return { ok: false, failure: answer.failure };
    const tools = answer.result.tools;
    if (!Array.isArray(tools)) {
      return {
        ok: false,
        failure: { class: "transport", detail: "the relay's tools/list answer has no tools list" },
      };
    }
    const { value, notes } = exposedTable(tools, this.#options.exposed);
    // Said once per table load, not per call.
    for (const note of notes) this.#options.log(`tools/list: the relay's entry ${note}`);
    return { ok: true, table: value, searchable: withOutputSchemas(value, tools) };
  }

  #loaded(table: Tool[]): void {
    const wasDown = this.#failed;
    this.#table = table;
    this.#failed = false;
    this.#lastFailure = undefined;
    this.#attempt = 0;
    this.#cancelRetry?.();
    this.#cancelRetry = undefined;
    const view = viewOf({ ok: true, table });
    // The first table a host meets is no change; a list in flight tells the host itself.
    const told = this.#hostView !== undefined && view !== this.#hostView && this.#listing === 0 &&
      !this.#closed && this.#options.onChange !== undefined;
    if (this.#hostView === undefined) this.#hostView = view;
    const count = `${table.length} tool${table.length === 1 ? "" : "s"}`;
    if (told) {
      this.#hostView = view;
      this.#options.onChange!();
      this.#options.log(
        wasDown
          ? `the relay's tools are back: ${count}; the host was told`
          : `the relay's tool table changed: ${count}; the host was told`,
      );
    } else if (wasDown) this.#options.log(`the relay's tools are back: ${count}`);
  }

  #unavailable(failure: RelayFailure): void {
    this.#failed = true;
    this.#hostView ??= UNAVAILABLE;
    const text = failureText(failure);
    if (text !== this.#lastFailure) {
      this.#options.log(
        `tools/list: ${text}; offering ${DIAGNOSE_TOOL} only${
          this.#lastFailure === undefined ? "; fetching the table again in the background" : ""
        }`,
      );
      this.#lastFailure = text;
    }
    this.#scheduleRetry();
  }

  /** One background fetch at a time, after the next delay of the schedule. */
  #scheduleRetry(): void {
    if (this.#closed || this.#cancelRetry) return;
    const delay = recoveryDelayMs(this.#attempt++, (this.#options.random ?? Math.random)());
    this.#cancelRetry = (this.#options.schedule ?? realTimers)(delay, () => {
      this.#cancelRetry = undefined;
      void this.load();
    });
  }
}

/** What tools/list answers with this state, as JSON (tiny_diagnose is the same in every answer). */
function viewOf(state: TableState): string {
  return state.ok ? JSON.stringify(state.table) : UNAVAILABLE;
}
