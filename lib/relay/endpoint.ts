// The relay's address from `--relay`: origin plus an optional tenant prefix.
// Pure; the URLs built here are the exact ones signed in NIP-98 `u` tags.

export interface RelayEndpoint {
  /** Normalized base: origin plus tenant prefix, no trailing slash. */
  base: string;
  /** `<base>/mcp`, the stateless MCP endpoint. */
  mcpUrl: string;
  /** `<base>/manage/rpc`, the NIP-86 management endpoint. */
  manageUrl: string;
  /** `host:port` with the scheme's default port made explicit: the one net permission needed. */
  netHost: string;
  /** The relay's origin: scheme, host and port, without the tenant prefix. */
  origin: string;
}

/** The websocket schemes a relay URL may be written with, and the HTTP scheme each is stored as. */
const WEBSOCKET_SCHEMES: Record<string, string> = { "ws:": "http:", "wss:": "https:" };

/**
 * Validates and normalizes a relay URL. Accepts http and https, and ws and wss (stored as http and
 * https: the relay serves its websocket and its HTTP endpoints on one origin, as the Go peer reads
 * it), without credentials, query or fragment; trailing slashes of the path are dropped so
 * `https://h/r/acme/` and `https://h/r/acme` name the same tenant.
 */
export function parseRelayUrl(
  raw: string,
): { ok: true; endpoint: RelayEndpoint } | { ok: false; error: string } {
  let url: URL;
  try {
    url = new URL(raw);
    const stored = WEBSOCKET_SCHEMES[url.protocol];
    if (stored) url = new URL(`${stored}${raw.trim().slice(url.protocol.length)}`);
  } catch {
    return { ok: false, error: `--relay: ${JSON.stringify(raw)} is not a URL` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      ok: false,
      error: `--relay: ${JSON.stringify(raw)} must be an http or https URL (or ws or wss: the same relay)`,
    };
  }
  if (raw.includes("?") || raw.includes("#")) {
    return { ok: false, error: `--relay: ${JSON.stringify(raw)} must not carry a query or fragment` };
  }
  if (url.username || url.password) {
    return { ok: false, error: "--relay: the URL must not carry a user name or password" };
  }
  if (!url.hostname) return { ok: false, error: `--relay: ${JSON.stringify(raw)} names no host` };
  const path = url.pathname.replace(/\/+$/, "");
  const base = `${url.origin}${path}`;
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return {
    ok: true,
    endpoint: {
      base,
      mcpUrl: `${base}/mcp`,
      manageUrl: `${base}/manage/rpc`,
      netHost: `${url.hostname}:${port}`,
      origin: url.origin,
    },
  };
}

/** The relay's websocket: its base with `ws` for `http` and `wss` for `https`, tenant prefix kept. */
export function webSocketUrl(endpoint: RelayEndpoint): string {
  return endpoint.base.replace(/^http/, "ws");
}
