// How the core records a request as tests read it back (RecordedRequest).

import type { IncomingRequest } from "./exchange.ts";
import { parseAuth } from "./nip98.ts";
import type { RecordedRequest } from "./types.ts";

/** The record of `req`, its URL as the relay sees it: <scheme>://<Host header, else host><target>. */
export function recordOf(req: IncomingRequest, scheme: string, host: string): RecordedRequest {
  const q = req.target.indexOf("?");
  const path = q < 0 ? req.target : req.target.slice(0, q);
  const bodyText = new TextDecoder().decode(req.body);
  const rec: RecordedRequest = {
    method: req.method,
    path,
    url: `${scheme}://${req.headers.get("host") ?? host}${req.target}`,
    headers: req.headers,
    body: req.body,
    bodySize: req.bodySize,
    bodyText,
    receivedAt: Date.now(),
    connection: req.connection ?? 0,
    httpVersion: req.httpVersion ?? "1.1",
  };
  if (!req.tooLarge && bodyText !== "") {
    try {
      rec.json = JSON.parse(bodyText);
    } catch {
      // not JSON: left undefined
    }
  }
  const auth = parseAuth(req.headers);
  if (auth) rec.auth = auth;
  return rec;
}
