// The signing stack (the secp256k1 curve of curve.ts, nostr-tools' bech32 and noble's SHA-256),
// loaded on first use rather than at start-up: loading it and starting the WASM costs tens of
// milliseconds, more than Deno's own start, and the handshake needs none of it. Every user awaits
// loadNostr(), so no call depends on another having loaded it first.
//
// Run from source, these are npm packages in Deno's cache; a cache the process cannot see (a host
// that filters DENO_DIR out) or a registry it cannot reach (a TLS-inspecting proxy whose CA Deno
// does not trust) makes the load fail. That is tinyagent's own failure, never the relay's: it is a
// PackageLoadError, which says what failed to load and how to fix it, and which the session turns
// into a clear stop.

import { type Curve, loadCurve } from "./curve.ts";

type Stack = {
  curve: Curve;
  nip19: typeof import("nostr-tools/nip19");
  sha2: typeof import("@noble/hashes/sha2.js");
  utils: typeof import("@noble/hashes/utils.js");
};

/** tinyagent's own code could not be loaded; the message names what and says how to fix it. */
export class PackageLoadError extends Error {}

/** The message for a failed load of the signing stack, from the runtime's own error. */
export function packageLoadMessage(error: unknown): string {
  const detail = (error instanceof Error ? error.message : String(error)).split("\n").map((line) =>
    line.trim().replace(/^\d+: /, "")
  ).filter(Boolean).join(": ").replace(/\.$/, "");
  const what = /npm package '([^']+)'/.exec(detail)?.[1];
  return `cannot load tinyagent's own signing code${what ? ` (npm package ${what})` : ""}: ${detail}. ` +
    "Not a relay problem: run from source, tinyagent's npm packages come from Deno's cache " +
    "(DENO_DIR, or Deno's default cache directory), filled from the npm registry. Fix: in the checkout, " +
    "run 'deno cache main.ts' where the registry is reachable (behind a TLS-inspecting proxy, with " +
    "DENO_CERT or NODE_EXTRA_CA_CERTS naming its CA), then check it with " +
    "'deno run --cached-only main.ts keygen >/dev/null'; a host that filters the environment must pass " +
    "the same DENO_DIR to tinyagent. The release binary carries its packages and needs none of this";
}

let loaded: Stack | undefined;
let loading: Promise<Stack> | undefined;

/** Loads the stack once; later calls resolve at once. A failure is a PackageLoadError, every time. */
export function loadNostr(): Promise<Stack> {
  if (loaded) return Promise.resolve(loaded);
  return loading ??= Promise.all([
    loadCurve(),
    import("nostr-tools/nip19"),
    import("@noble/hashes/sha2.js"),
    import("@noble/hashes/utils.js"),
  ]).then(
    ([curve, nip19, sha2, utils]) => loaded = { curve, nip19, sha2, utils },
    (error) => {
      throw new PackageLoadError(packageLoadMessage(error));
    },
  );
}
