// The audit log file (lib/oversight/audit_log.ts) against the real file system: created for its
// owner alone, appended line by line in order, a path it cannot open named, and a write that fails
// later said without failing anything.

import assert from "node:assert/strict";
import { AuditLog, openFailure } from "../../lib/oversight/audit_log.ts";
import type { AuditEntry } from "../../lib/oversight/audit_record.ts";
import { withBrokenFile, within } from "../support/waits.ts";

function entry(n: number): AuditEntry {
  return {
    time: new Date(0).toISOString(),
    session: "1@x",
    relay: "https://relay.example.test",
    tool: "post_message",
    arguments: { content: `message ${n}`, text: "line\nbreak" },
    outcome: "accepted",
  };
}

async function opened(path: string, logs: string[] = []): Promise<AuditLog> {
  const result = await AuditLog.open(path, (line) => logs.push(line));
  assert.ok(result.ok, result.ok ? "" : result.error);
  return result.log;
}

Deno.test("a new log is created readable by its owner alone, and entries are appended in order", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/audit.jsonl`;
    const log = await opened(path);
    await Promise.all(Array.from({ length: 50 }, (_, n) => log.append(entry(n))));
    await log.close();
    if (Deno.build.os !== "windows") assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    const lines = (await Deno.readTextFile(path)).split("\n");
    assert.equal(lines.pop(), "", "every line ends with a newline");
    assert.deepEqual(
      lines.map((line) => JSON.parse(line).arguments.content),
      Array.from({ length: 50 }, (_, n) => `message ${n}`),
    );
    // A second session appends; nothing is lost.
    const again = await opened(path);
    await again.append(entry(50));
    await again.close();
    assert.equal((await Deno.readTextFile(path)).split("\n").length, 52);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a path that cannot be opened is named, with why", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const missing = await AuditLog.open(`${dir}/no/such/folder/audit.jsonl`, () => {});
    assert.deepEqual(missing, {
      ok: false,
      error: `--audit-log: cannot create "${dir}/no/such/folder/audit.jsonl": its folder does not exist`,
    });
    const folder = await AuditLog.open(dir, () => {});
    assert.equal(folder.ok, false);
    assert.match(
      folder.ok ? "" : folder.error,
      new RegExp(`^--audit-log: (?:"${dir}" is a folder, not a file|cannot open "${dir}")`),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  assert.equal(
    openFailure("/var/log/a.jsonl", new Deno.errors.NotCapable("no")),
    '--audit-log: no permission to write "/var/log/a.jsonl"; run with --allow-write=/var/log/a.jsonl',
  );
  assert.equal(
    openFailure("/root/a.jsonl", new Deno.errors.PermissionDenied("no")),
    '--audit-log: cannot write "/root/a.jsonl": permission denied',
  );
});

Deno.test({
  name: "a write that fails later is said on stderr, each time, and never rejects",
  ignore: Deno.build.os === "windows",
  fn: () =>
    withBrokenFile(async (path, readerLeaves) => {
      const logs: string[] = [];
      const log = await opened(path, logs);
      await readerLeaves();
      await log.append(entry(1));
      await log.append({ ...entry(2), event: { id: "ab".repeat(32) } });
      await log.close();
      assert.equal(logs.length, 2, logs.join("\n"));
      assert.match(
        logs[0],
        /^audit log: could not write the entry for post_message \(accepted\) to ".+audit\.fifo": .+; the call goes on$/,
      );
      assert.match(
        logs[1],
        new RegExp(
          `^audit log: could not write the entry for post_message event ${"ab".repeat(32)} \\(accepted\\)`,
        ),
      );
    }),
});

Deno.test({
  name: "a file that stops taking writes (a stalled pipe) holds no call past the wait bound, nor the end",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const path = `${dir}/audit.fifo`;
    let reader: Promise<Deno.FsFile> | undefined;
    try {
      assert.ok((await new Deno.Command("mkfifo", { args: [path] }).output()).success);
      // A reader that never reads: once the pipe's buffer is full, every write waits.
      reader = Deno.open(path, { read: true });
      const logs: string[] = [];
      const opened = await within(
        5_000,
        "the log opened on the pipe",
        AuditLog.open(path, (line) => logs.push(line), 100),
      );
      assert.ok(opened.ok);
      const big = { ...entry(1), event: { id: "ab".repeat(32), content: "x".repeat(512 * 1024) } };
      const started = Date.now();
      // Each wait its own deadline, well past the 0.1 s bound: without the bound, a failure, not a hang.
      await within(2_000, "the call's entry given up on after the 0.1 s bound", opened.log.append(big));
      await within(2_000, "the end given up on after the 0.1 s bound", opened.log.close());
      assert.ok(Date.now() - started < 5_000, "neither the call nor the end waited for the stalled file");
      assert.match(
        logs[0],
        /^audit log: ".+audit\.fifo" has not taken the entry for post_message within 0\.1 s/,
      );
      assert.match(logs[1], /has not taken the last entries within 0\.1 s/);
    } finally {
      // The reader leaving fails a write still stuck in the pipe, so a failed run ends too.
      if (reader) (await within(5_000, "the pipe's reader", reader)).close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
