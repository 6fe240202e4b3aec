// The floor of the helper's `publish`: what one published event costs without tinyagent. Started
// like the helper (`deno run --allow-net=<relay host:port> --allow-env=TINY_PRIVATE_KEY
// bench/rpc_floor.ts <relay URL>`), it reads `{"id","method":"publish","params":{"event"}}` lines,
// signs the event, signs a NIP-98 token over the exact body, POSTs it to `<relay>/events` with
// fetch's pooled client, reads the receipt and writes `{"id","result":<event>}`. No checks, no
// bounds, no receipts: the bare work.

import { finalizeEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes, randomBytes } from "@noble/hashes/utils.js";

const url = `${Deno.args[0].replace(/\/+$/, "")}/events`;
const secretKey = hexToBytes(Deno.env.get("TINY_PRIVATE_KEY") ?? "");
const encoder = new TextEncoder();
const out = Deno.stdout.writable.getWriter();

async function publish(line: string): Promise<void> {
  const { id, params } = JSON.parse(line);
  const { kind, tags = [], content = "" } = params.event;
  const event = finalizeEvent({ kind, tags, content, created_at: Math.floor(Date.now() / 1000) }, secretKey);
  const body = encoder.encode(JSON.stringify(event));
  const token = finalizeEvent({
    kind: 27235,
    created_at: Math.floor(Date.now() / 1000),
    tags: [["u", url], ["method", "POST"], ["nonce", bytesToHex(randomBytes(12))], [
      "payload",
      bytesToHex(sha256(body)),
    ]],
    content: "",
  }, secretKey);
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Authorization": `Nostr ${btoa(JSON.stringify(token))}` },
    body,
  });
  const receipt = JSON.parse(await response.text());
  const answer = receipt.accepted ? { id, result: event } : { id, error: { message: receipt.message } };
  await out.write(encoder.encode(`${JSON.stringify(answer)}\n`));
}

const decoder = new TextDecoder();
let pending = "";
for await (const chunk of Deno.stdin.readable) {
  pending += decoder.decode(chunk, { stream: true });
  let newline;
  while ((newline = pending.indexOf("\n")) !== -1) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    if (line.trim() !== "") await publish(line);
  }
}
