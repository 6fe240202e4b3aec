// Waits with an end, for tests whose rule, once broken, would otherwise wait forever: a failure
// that names what did not come, rather than a hung suite.

/** `promise`, or a failure naming `what` after `ms`. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) =>
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)
  );
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A file every write to fails once it is open, as on a disk that filled or went away: a FIFO
 * whose reader leaves. `fn` gets its path and what makes the reader leave (call it once the
 * writer has opened it). POSIX only (mkfifo).
 */
export async function withBrokenFile(
  fn: (path: string, readerLeaves: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.fifo`;
  try {
    const made = await new Deno.Command("mkfifo", { args: [path] }).output();
    if (!made.success) throw new Error(`mkfifo ${path} failed`);
    // Opening a FIFO waits for the other end: this resolves once the writer has opened it.
    const reader = Deno.open(path, { read: true });
    await fn(path, async () => (await reader).close());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Resolves once `holds()` is true, checked every few milliseconds; a failure naming `what` after `ms`.
 * For what a test can only look at, not await: a child's stderr, read apart from its stdout, may come
 * later than an answer written after it.
 */
export async function until(ms: number, what: string, holds: () => boolean): Promise<void> {
  const end = Date.now() + ms;
  while (!holds()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
