// The V8 inspector of a child started with `--inspect=127.0.0.1:<port>`: a full garbage collection
// and the live heap size after it, read from outside without changing the child's code.

/** A loopback port that was free a moment ago. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

export class Inspector {
  #socket: WebSocket;
  #nextId = 1;
  #pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data));
      const waiter = this.#pending.get(message.id);
      if (!waiter) return;
      this.#pending.delete(message.id);
      if (message.error) waiter.reject(new Error(`inspector: ${JSON.stringify(message.error)}`));
      else waiter.resolve(message.result);
    };
  }

  /** Connects to the inspector on `port`, retrying while the child starts. */
  static async connect(port: number, timeoutMs = 10_000): Promise<Inspector> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/json/list`);
        const targets = await response.json() as { webSocketDebuggerUrl: string }[];
        const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
        await new Promise((resolve, reject) => {
          socket.onopen = resolve;
          socket.onerror = () => reject(new Error("inspector: cannot open the WebSocket"));
        });
        return new Inspector(socket);
      } catch (error) {
        if (performance.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  #send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Bytes of live JavaScript heap after a full garbage collection. */
  async liveHeap(): Promise<number> {
    await this.#send("HeapProfiler.collectGarbage");
    const usage = await this.#send("Runtime.getHeapUsage") as { usedSize: number };
    return usage.usedSize;
  }

  close(): Promise<void> {
    if (this.#socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.#socket.onclose = () => resolve();
      this.#socket.close();
    });
  }
}
