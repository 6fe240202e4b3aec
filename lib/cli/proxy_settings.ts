import type { Proxy } from "../transport/tunnel.ts";

// Which proxy, if any, stands between tinyagent and the relay: HTTPS_PROXY
// for an https relay (reached through a CONNECT tunnel), HTTP_PROXY for an
// http one, unless NO_PROXY names the relay's host. Read from the environment
// the main thread holds, before the sandbox narrows it; the sandbox then
// allows the proxy's host:port as well. Pure.

export type ProxyResult = { ok: true; proxy?: Proxy } | { ok: false; error: string };

/** The variables read, in the order they are tried (lowercase first, as curl does). */
export function proxyVariables(scheme: "http:" | "https:"): string[] {
  const name = scheme === "https:" ? "https_proxy" : "http_proxy";
  return [name, name.toUpperCase()];
}
export const NO_PROXY_VARIABLES = ["no_proxy", "NO_PROXY"];

function firstSet(env: (name: string) => string | undefined, names: string[]): [string, string] | undefined {
  for (const name of names) {
    const value = env(name)?.trim();
    if (value) return [name, value];
  }
  return undefined;
}

/**
 * Whether NO_PROXY excludes `hostname:port`: `*`, the host itself, a parent
 * domain (`example.com` or `.example.com` covers `relay.example.com`), or
 * `host:port` for that port only. IP addresses match exactly (no ranges).
 */
export function bypassesProxy(noProxy: string, hostname: string, port: number): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return true;
    const [name, entryPort] = splitHostPort(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    const domain = name.replace(/^\*?\./, "");
    if (host === domain || host.endsWith(`.${domain}`)) return true;
  }
  return false;
}

/** `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 address, split. */
function splitHostPort(entry: string): [string, number | undefined] {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return [bracketed[1], bracketed[2] === undefined ? undefined : Number(bracketed[2])];
  const parts = entry.split(":");
  return parts.length === 2 && /^\d+$/.test(parts[1]) ? [parts[0], Number(parts[1])] : [entry, undefined];
}

/** The proxy for a relay at `url`, from the environment; an unusable proxy setting is an error naming the variable. */
export function proxyFor(url: URL, env: (name: string) => string | undefined): ProxyResult {
  const scheme = url.protocol === "https:" ? "https:" : "http:";
  const setting = firstSet(env, proxyVariables(scheme));
  if (!setting) return { ok: true };
  const noProxy = firstSet(env, NO_PROXY_VARIABLES);
  const port = Number(url.port || (scheme === "https:" ? 443 : 80));
  if (noProxy && bypassesProxy(noProxy[1], url.hostname, port)) return { ok: true };
  const [name, value] = setting;
  let proxy: URL;
  try {
    proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  } catch {
    return { ok: false, error: `${name} is not a proxy URL` };
  }
  if (proxy.protocol !== "http:") {
    return {
      ok: false,
      error: `${name}: only an http:// proxy is supported (one that takes CONNECT), not ${proxy.protocol}//`,
    };
  }
  if (!proxy.hostname) return { ok: false, error: `${name} names no host` };
  const proxyPort = Number(proxy.port || 80);
  const result: Proxy = {
    hostname: proxy.hostname.replace(/^\[|\]$/g, ""),
    port: proxyPort,
    netHost: `${proxy.hostname}:${proxyPort}`,
    display: `http://${proxy.host}`,
    variable: name,
  };
  if (proxy.username || proxy.password) {
    const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
    result.authorization = `Basic ${new TextEncoder().encode(credentials).toBase64()}`;
  }
  return { ok: true, proxy: result };
}
