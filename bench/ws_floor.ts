// The floor of the helper's stream: a bare websocket client (Deno's own WebSocket) doing what the
// helper must for one subscription, nothing more: answer the relay's AUTH challenge, send the REQ
// again after it, check each event's signature (as the helper must), and write one stream line per
// event. `deno run --allow-net=<relay host:port> --allow-env=TINY_PRIVATE_KEY bench/ws_floor.ts
// <ws URL> <filter JSON>`; it writes `{"event":"connected",…}` once its REQ is live.

import { finalizeEvent, verifyEvent } from "nostr-tools/pure";
import { hexToBytes } from "@noble/hashes/utils.js";

const [url, filterText] = Deno.args;
const filter = JSON.parse(filterText);
const secretKey = hexToBytes(Deno.env.get("TINY_PRIVATE_KEY") ?? "");
const encoder = new TextEncoder();
const socket = new WebSocket(url);
let authId: string | undefined;
let live = false;
const write = (line: string) => Deno.stdout.write(encoder.encode(`${line}\n`));

socket.onopen = () => socket.send(JSON.stringify(["REQ", "floor", filter]));
socket.onmessage = (message) => {
  const frame = JSON.parse(String(message.data));
  if (frame[0] === "AUTH") {
    const event = finalizeEvent({
      kind: 22242,
      created_at: Math.floor(Date.now() / 1000),
      tags: [["relay", url], ["challenge", frame[1]]],
      content: "",
    }, secretKey);
    authId = event.id;
    socket.send(JSON.stringify(["AUTH", event]));
  } else if (frame[0] === "OK" && frame[1] === authId) {
    authId = undefined;
    socket.send(JSON.stringify(["REQ", "floor", filter]));
  } else if (frame[0] === "EOSE" && authId === undefined && !live) {
    live = true;
    void write(JSON.stringify({ event: "connected", subscription: "floor" }));
  } else if (frame[0] === "EVENT" && authId === undefined && verifyEvent(frame[2])) {
    void write(JSON.stringify({ event: "event", subscription: "floor", data: frame[2] }));
  }
};
// Ends when its stdin does, as the helper does.
for await (const _ of Deno.stdin.readable) { /* nothing is read */ }
socket.close();
