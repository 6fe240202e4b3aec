// The relay side of listening and approvals, loaded when they start (after the
// host's first answer): the agent's public key, the session's one websocket
// client (shared_stream.ts: the listener, the approvals and the resource
// subscriptions ride on it; the session closes it), and a second write gate for
// the approval cards that shares the budget and the audit log but never asks (a
// card that asked for approval of itself would never be posted).

import type { Command } from "../cli/args.ts";
import type { Signer } from "../key/signer.ts";
import { Approvals } from "../listen/approvals.ts";
import type { Inbox } from "../listen/inbox.ts";
import { type ChannelOut, Listener } from "../listen/listener.ts";
import type { AuditSink } from "../oversight/audit_log.ts";
import type { AskPerson } from "../oversight/confirmation.ts";
import type { WriteBudget } from "../oversight/write_budget.ts";
import { WriteGate } from "../oversight/write_gate.ts";
import { webSocketUrl } from "../relay/endpoint.ts";
import { SignedHttp } from "../relay/signed_http.ts";
import { RelayStream } from "../stream/relay_stream.ts";
import { loadNostr } from "../key/stack.ts";
import { AUDIT_SESSION } from "./tool_session.ts";
import type { SharedStream } from "./shared_stream.ts";

export interface ListeningParts {
  command: Extract<Command, { command: "mcp" }>;
  signer: Signer;
  log(line: string): void;
  audit?: AuditSink;
  budget: WriteBudget;
  inbox?: Inbox;
  channel: ChannelOut;
  verdict(requestId: string, behavior: "allow" | "deny"): void;
  /** Aborts when the session ends. */
  signal: AbortSignal;
  /** The session's websocket client, made here if nothing made it yet; the session closes it. */
  stream: SharedStream;
}

export interface Started {
  close(): void;
  permissionRequest?(params: unknown): void;
  ask?: AskPerson;
}

export async function startListening(parts: ListeningParts): Promise<Started> {
  const { command, signer, log } = parts;
  const [{ pubkey }, { nip19 }] = await Promise.all([signer.identity(), loadNostr()]);
  const { relay: endpoint, proxy } = command;
  const stream = parts.stream.get(() => new RelayStream({ url: webSocketUrl(endpoint), signer, proxy, log }));
  const closers: (() => void)[] = [];
  let listener: Listener | undefined;
  if (command.listen && parts.inbox) {
    listener = new Listener({
      stream,
      settings: command.listen,
      agent: pubkey,
      npubOf: (hex) => nip19.npubEncode(hex),
      inbox: parts.inbox,
      channel: parts.channel,
      log,
    });
    listener.start();
    closers.unshift(() => listener!.close());
  }
  let approvals: Approvals | undefined;
  if (command.approvals) {
    const http = new SignedHttp({ endpoint, signer, timeoutMs: command.timeoutMs, proxy });
    const cards = new WriteGate({
      relay: endpoint.base,
      session: AUDIT_SESSION,
      budget: parts.budget,
      where: "host", // never asks: no `ask`
      audit: parts.audit,
      signerName: async () => (await signer.identity()).npub,
      log,
    });
    approvals = new Approvals({
      settings: command.approvals,
      agent: pubkey,
      stream,
      publish: { endpoint, signer, http, gate: cards },
      lifetimeMs: command.oversight.confirmTimeoutMs,
      verdict: parts.verdict,
      ownEvent: (id) => listener?.cardPosted(id),
      log,
    });
    closers.unshift(() => approvals!.close(), () => http.close());
  }
  if (parts.signal.aborted) { for (const close of closers) close(); }
  return {
    close: () => {
      for (const close of closers) close();
    },
    ...(approvals
      ? { permissionRequest: (params: unknown) => approvals!.permissionRequest(params), ask: approvals.ask }
      : {}),
  };
}
