// nostr-wasm starts by decoding its embedded WASM with `new Uint8Array(atob(text).split("").map(c =>
// c.charCodeAt(0)))`: a string of one character per byte, an array of as many strings, then one of
// numbers. For its 130 KB that costs ~8-10 ms in a fresh process, before the first signature of every
// session. The runtime's own Uint8Array.fromBase64 decodes the same text in ~0.2 ms. For the length of
// the library's synchronous start only, atob answers with those bytes in the one shape that code reads
// (split, then map); the bytes are the same, and the library is otherwise untouched.

type FromBase64 = (text: string) => Uint8Array;

/** What atob returns while swapped: reads as the library reads it, and yields the decoded bytes. */
export interface DecodedText {
  split(separator: string): { map(each: unknown): Uint8Array };
}

/** The runtime's base64 decoder, where it has one (V8's, since 2025). */
function runtimeDecoder(): FromBase64 | undefined {
  const decode = (Uint8Array as unknown as { fromBase64?: FromBase64 }).fromBase64;
  return typeof decode === "function" ? decode.bind(Uint8Array) : undefined;
}

/** The stand-in's value for `text`: its bytes, however the library then splits and maps it. */
export function decodedText(text: string, decode: FromBase64): DecodedText {
  const bytes = decode(text); // throws on text that is not base64, as atob does
  return { split: () => ({ map: () => bytes }) };
}

/**
 * Runs `start` (synchronous, or the synchronous part of an async function, which is where the library
 * decodes) with atob answering fast; atob is itself again when `start` returns or throws. `onUse` hears
 * of each use (tests check the library still decodes this way). Without the runtime's decoder, `start`
 * runs as it is.
 */
export function withFastAtob<T>(start: () => T, onUse?: () => void): T {
  const decode = runtimeDecoder();
  if (!decode) return start();
  const original = globalThis.atob;
  globalThis.atob = ((text: string) => {
    onUse?.();
    return decodedText(String(text), decode);
  }) as unknown as typeof atob;
  try {
    return start();
  } finally {
    globalThis.atob = original;
  }
}
