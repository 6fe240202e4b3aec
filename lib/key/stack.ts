// The signing stack (nostr-tools, the secp256k1 and SHA-256 code under it), loaded on first use
// rather than at start-up: loading and evaluating it costs ~10 ms, more than half of Deno's own
// start, and the handshake needs none of it. Every user awaits loadNostr(), so no call depends on
// another having loaded it first.

type Stack = {
  pure: typeof import("nostr-tools/pure");
  nip19: typeof import("nostr-tools/nip19");
  sha2: typeof import("@noble/hashes/sha2.js");
  utils: typeof import("@noble/hashes/utils.js");
};

let loaded: Stack | undefined;
let loading: Promise<Stack> | undefined;

/** Loads the stack once; later calls resolve at once. */
export function loadNostr(): Promise<Stack> {
  if (loaded) return Promise.resolve(loaded);
  return loading ??= Promise.all([
    import("nostr-tools/pure"),
    import("nostr-tools/nip19"),
    import("@noble/hashes/sha2.js"),
    import("@noble/hashes/utils.js"),
  ]).then(([pure, nip19, sha2, utils]) => loaded = { pure, nip19, sha2, utils });
}
