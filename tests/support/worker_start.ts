// A worker started as the sandbox starts tinyagent's (every permission false, read included), and the
// first thing it says: `{type: "ready"}` once its code has loaded, or the error that stopped it.

const NONE = {
  net: false,
  env: false,
  read: false,
  write: false,
  run: false,
  ffi: false,
  sys: false,
} as const;

/** The first message of a worker started from `url` with no permission; the worker is ended after. */
export async function firstWordOfWorker(url: string | URL): Promise<unknown> {
  const worker = new Worker(url, { type: "module", deno: { permissions: NONE } });
  try {
    return await new Promise<unknown>((resolve, reject) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(event.message));
      };
    });
  } finally {
    worker.terminate();
  }
}
