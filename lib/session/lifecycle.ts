// When the host is gone: the process ends promptly rather than signing and
// sending for nobody. stdout closing is noticed by the line writer; these are
// the other two signs, the host process ending and a termination signal.

const PARENT_POLL_MS = 250;

/**
 * Resolves when this process's parent (the host) ends: on POSIX the process
 * is then adopted by another, and its parent id changes. The poll holds
 * nothing open, so it never keeps the process alive on its own.
 */
export function parentGone(): Promise<string> {
  const parent = Deno.ppid;
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (Deno.ppid === parent) return;
      clearInterval(timer);
      resolve(`its process ${parent} ended`);
    }, PARENT_POLL_MS);
    Deno.unrefTimer(timer);
  });
}

/**
 * Ends the process at SIGTERM or SIGINT, quietly and with status 0: a host
 * stopping its server (MCP's stdio shutdown) is an ordinary end, not a crash.
 * Windows delivers only SIGINT (and SIGBREAK) to a console program.
 */
export function exitOnTermination(): void {
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT", "SIGBREAK"] : ["SIGTERM", "SIGINT"];
  for (const signal of signals) Deno.addSignalListener(signal, () => Deno.exit(0));
}
