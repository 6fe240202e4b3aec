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

export class AuditLog implements AuditSink {
  #file: Deno.FsFile;
  #queue: Promise<void> = Promise.resolve();
  #encoder = new TextEncoder();
  #closed = false;

  private constructor(readonly path: string, file: Deno.FsFile, private log: (line: string) => void) {
    this.#file = file;
  }

  /**
   * Opens `path` for appending, creating it with mode 0600 (an existing file keeps its mode; the
   * main thread warns when others can read it). Resolves with the log, or why it cannot be opened.
   */
  static async open(
    path: string,
    log: (line: string) => void,
  ): Promise<{ ok: true; log: AuditLog } | { ok: false; error: string }> {
    try {
      const file = await Deno.open(path, { append: true, create: true, mode: 0o600 });
      return { ok: true, log: new AuditLog(path, file, log) };
    } catch (error) {
      return { ok: false, error: openFailure(path, error) };
    }
  }

  /** Appends one entry as one line; entries are written in the order given. Never rejects. */
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
    return this.#queue;
  }

  /** Waits for the entries written so far, then closes the file. */
  async close(): Promise<void> {
    await this.#queue;
    if (this.#closed) return;
    this.#closed = true;
    this.#file.close();
  }
}
