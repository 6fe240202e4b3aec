// The audit log file (`--audit-log FILE`): opened once at startup, for
// appending, created readable by its owner alone; each entry one line, written
// whole in order. A path that cannot be opened stops startup; a write that
// fails later is said on stderr and never fails the call it records.

import { type AuditEntry, auditLine } from "./audit_record.ts";

/** Where entries go: the file, or a test's list. */
export interface AuditSink {
  append(entry: AuditEntry): Promise<void>;
}

/** Why `path` could not be opened for appending, in words that name it and say what to do. */
export function openFailure(path: string, error: unknown): string {
  const name = JSON.stringify(path);
  if (error instanceof Deno.errors.NotCapable) {
    return `--audit-log: no permission to write ${name}; run with --allow-write=${path}`;
  }
  if (error instanceof Deno.errors.NotFound) {
    return `--audit-log: cannot create ${name}: its folder does not exist`;
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return `--audit-log: cannot write ${name}: permission denied`;
  }
  if (error instanceof Deno.errors.IsADirectory) return `--audit-log: ${name} is a folder, not a file`;
  return `--audit-log: cannot open ${name}: ${(error as Error)?.message ?? String(error)}`;
}

/**
 * How long a call waits for its entry to reach the file before it goes on; the entry is still
 * written, in order, when the file takes it (a stalled disk or pipe must not hang the host's calls).
 */
export const AUDIT_WAIT_MS = 5_000;

export class AuditLog implements AuditSink {
  #file: Deno.FsFile;
  #queue: Promise<void> = Promise.resolve();
  #encoder = new TextEncoder();
  #closed = false;

  private constructor(
    readonly path: string,
    file: Deno.FsFile,
    private log: (line: string) => void,
    private waitMs: number,
  ) {
    this.#file = file;
  }

  /**
   * Opens `path` for appending, creating it with mode 0600 (an existing file keeps its mode; the
   * main thread warns when others can read it). Resolves with the log, or why it cannot be opened.
   */
  static async open(
    path: string,
    log: (line: string) => void,
    waitMs = AUDIT_WAIT_MS,
  ): Promise<{ ok: true; log: AuditLog } | { ok: false; error: string }> {
    try {
      const file = await Deno.open(path, { append: true, create: true, mode: 0o600 });
      return { ok: true, log: new AuditLog(path, file, log, waitMs) };
    } catch (error) {
      return { ok: false, error: openFailure(path, error) };
    }
  }

  /**
   * Appends one entry as one line; entries are written in the order given. Resolves once it is
   * written, or after the wait bound (saying so). Never rejects.
   */
  append(entry: AuditEntry): Promise<void> {
    const line = this.#encoder.encode(`${auditLine(entry)}\n`);
    this.#queue = this.#queue.then(async () => {
      if (this.#closed) return;
      try {
        // One write call for the line where the OS allows it: O_APPEND keeps a whole write together.
        for (let offset = 0; offset < line.length;) offset += await this.#file.write(line.subarray(offset));
      } catch (error) {
        // Each missing entry is said, with what it would have recorded.
        const what = typeof entry.event?.id === "string" ? ` event ${entry.event.id}` : "";
        this.log(
          `audit log: could not write the entry for ${entry.tool}${what} (${entry.outcome}) to ` +
            `${JSON.stringify(this.path)}: ${(error as Error).message}; the call goes on`,
        );
      }
    });
    return this.#bounded(`the entry for ${entry.tool}`);
  }

  /** Waits for what is queued, at most the wait bound; past it, says so and goes on. */
  async #bounded(what: string): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), this.waitMs));
    const result = await Promise.race([this.#queue, late]);
    clearTimeout(timer);
    if (result === "late") {
      this.log(
        `audit log: ${JSON.stringify(this.path)} has not taken ${what} within ${
          this.waitMs / 1000
        } s (a stalled ` +
          `disk or pipe?); tinyagent goes on, and writes it when the file takes it`,
      );
    }
  }

  /** Waits for the entries written so far (at most the wait bound), then closes the file. */
  async close(): Promise<void> {
    await this.#bounded("the last entries");
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#file.close();
    } catch {
      // A write still stuck in it: the process is ending, and what it said stands.
    }
  }
}
