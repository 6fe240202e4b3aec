// The first TLS connection a process makes spends ~40 ms, synchronously,
// building the runtime's store of trusted roots (DENO_CERT, DENO_TLS_CA_STORE
// and the bundled ones); the store is then shared by every thread. Built on
// the main thread while the sandboxed worker boots, it is never built on the
// worker's, where it would stall the host's handshake and the first call.

/** Builds the trust store with a throwaway TLS client over a loopback pair; any failure is ignored. */
export async function warmTrustStore(): Promise<void> {
  let listener: Deno.Listener | undefined;
  try {
    listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    const [tcp, server] = await Promise.all([
      Deno.connect({ hostname: "127.0.0.1", port }),
      listener.accept(),
    ]);
    const handshake = Deno.startTls(tcp, { hostname: "localhost" }); // the store is built here
    server.close(); // no server speaks: the handshake fails, as it should
    await handshake.then((tls) => tls.close(), () => {});
  } catch {
    // No permission to listen or connect here: the worker builds the store on its first connection.
  } finally {
    listener?.close();
  }
}
