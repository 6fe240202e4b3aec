// NIP-98 proofs (facade.md, "Relay protocol"): checked with nostr-tools, never with our own
// signing code.

import assert from "node:assert/strict";
import { generateSecretKey, getPublicKey, verifyEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { Signer } from "../../lib/key/signer.ts";
import { AUTH_KIND, authorizationHeader, proofTags } from "../../lib/key/nip98.ts";
import { NIP98_KIND } from "../support/contract.ts";

/** A Signer for `secretKey`, built the way tinyagent builds one: from the variable's value. */
async function signerFor(secretKey: Uint8Array): Promise<Signer> {
  const result = await Signer.fromValue(bytesToHex(secretKey), "TINY_PRIVATE_KEY");
  assert.ok(result.ok);
  return result.signer;
}

function decode(header: string) {
  assert.match(header, /^Nostr [A-Za-z0-9+/]+=*$/);
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(header.slice(6)), (c) => c.charCodeAt(0))));
}

Deno.test(`authorization: a kind ${NIP98_KIND} event bound to the URL, POST and the body's bytes`, async (t) => {
  const secretKey = generateSecretKey();
  const signer = await signerFor(secretKey);
  const url = "https://relay.example.test/r/acme/mcp";
  const body = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"é":1}}');
  const event = decode(await signer.authorization(url, body, 1_700_000_000_000));
  await t.step("signed by the key, verified by nostr-tools", () => {
    assert.ok(verifyEvent(event));
    assert.equal(event.pubkey, getPublicKey(secretKey));
    assert.equal(event.kind, NIP98_KIND);
    assert.equal(event.created_at, 1_700_000_000);
    assert.equal(event.content, "");
  });
  await t.step("tags u, method, payload (SHA-256 of the raw bytes) and a 24-hex nonce", () => {
    const tags = Object.fromEntries(event.tags.map((tag: string[]) => [tag[0], tag.slice(1)]));
    assert.deepEqual(tags.u, [url]);
    assert.deepEqual(tags.method, ["POST"]);
    assert.deepEqual(tags.payload, [bytesToHex(sha256(body))]);
    assert.match(tags.nonce[0], /^[0-9a-f]{24}$/);
    assert.equal(event.tags.length, 4);
  });
  await t.step("two identical requests in the same second get different event ids", async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 100; i++) {
      ids.add(decode(await signer.authorization(url, body, 1_700_000_000_000)).id);
    }
    assert.equal(ids.size, 100);
  });
  await t.step("a large body with every byte value is hashed as its exact bytes", async () => {
    const large = new Uint8Array(200_000).map((_, i) => (i * 31) & 0xff);
    const proof = decode(await signer.authorization(url, large));
    assert.ok(verifyEvent(proof));
    assert.deepEqual(proof.tags.find((tag: string[]) => tag[0] === "payload"), [
      "payload",
      bytesToHex(sha256(large)),
    ]);
  });
});

Deno.test("authorization: the payload tag covers the exact bytes of a valid but non-canonical JSON body", async () => {
  const secretKey = generateSecretKey();
  const signer = await signerFor(secretKey);
  const url = "https://relay.example.test/mcp";
  // Valid JSON, spaced and ordered as no serializer would write it, with an escape JSON.stringify undoes.
  const text = '{ "b" : 1,  "a":[1, 2],\t"c" : "\\u00e9" }\n';
  const body = new TextEncoder().encode(text);
  const reserialized = new TextEncoder().encode(JSON.stringify(JSON.parse(text)));
  assert.notDeepEqual(reserialized, body, "the body is not canonical");
  const event = decode(await signer.authorization(url, body));
  assert.ok(verifyEvent(event), "verified by nostr-tools");
  assert.equal(event.pubkey, getPublicKey(secretKey));
  const payload = event.tags.find((tag: string[]) => tag[0] === "payload");
  assert.deepEqual(payload, ["payload", bytesToHex(sha256(body))], "the SHA-256 of the bytes as given");
  assert.notEqual(payload[1], bytesToHex(sha256(reserialized)), "not of the body parsed and written again");
});

Deno.test("the proof's pieces: the kind, the tags in order, the header's encoding", () => {
  assert.equal(AUTH_KIND, NIP98_KIND);
  assert.deepEqual(proofTags("https://r.test/mcp", "POST", "ab".repeat(32), "cd".repeat(12)), [
    ["u", "https://r.test/mcp"],
    ["method", "POST"],
    ["payload", "ab".repeat(32)],
    ["nonce", "cd".repeat(12)],
  ]);
  const event = { kind: NIP98_KIND, content: "é ✓", tags: [["u", "https://r.test/mcp"]] };
  const header = authorizationHeader(event);
  assert.match(header, /^Nostr [A-Za-z0-9+/]+=*$/, "standard Base64, padded");
  assert.deepEqual(decode(header), event, "UTF-8 JSON inside");
});
