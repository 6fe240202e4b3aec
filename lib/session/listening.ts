// What an mcp session adds when the relay may reach the agent (`--listen`)
// and people approve from a room (`--approvers`): the handshake's
// instructions and Claude Code's experimental capabilities, tiny_inbox, the
// listener on the relay's websocket and Claude Code's channel notifications,
// and the approvals (listen/approvals.ts). With neither flag: the
// instructions alone. Everything that touches the relay starts after the
// host's first answer, so the handshake waits for none of it.

import type { Command } from "../cli/args.ts";
import type { ServerFeatures } from "../host/handshake.ts";
import type { LineWriter } from "../host/stdio.ts";
import type { Signer } from "../key/signer.ts";
import { instructions } from "../facade/instructions.ts";
import type { ListenedEvent } from "../listen/channel_message.ts";
import { Inbox } from "../listen/inbox.ts";
import { inboxTool } from "../listen/inbox_tool.ts";
import type { AuditSink } from "../oversight/audit_log.ts";
import type { AskPerson } from "../oversight/confirmation.ts";
import { WriteBudget } from "../oversight/write_budget.ts";
import type { LocalTool } from "../wire/mcp.ts";
import type { SharedStream } from "./shared_stream.ts";

/** Channel notifications queued on stdout past this size pause the listener; it goes on below a quarter. */
const STDOUT_QUEUE_LIMIT = 8 * 1024 * 1024;

export const CHANNEL = "claude/channel";
export const CHANNEL_PERMISSION = "claude/channel/permission";

export interface Listening {
  features: ServerFeatures;
  notifications: { bind(writer: LineWriter): void; receive(method: string, params: unknown): void };
  localTools: LocalTool[];
  /** With --confirm-via relay: how --confirm-writes asks (a card in the home room). */
  ask?: AskPerson;
  /** The write budget, shared by the facade's writes and the approval cards. */
  budget: WriteBudget;
  /** Connects to the relay's websocket and starts listening: after the host's first answer. */
  start(): void;
  close(): void;
}

type Mcp = Extract<Command, { command: "mcp" }>;

/** How the relay side of listening is loaded (the listen part). */
export type LoadListening = () => Promise<typeof import("./listening_parts.ts")>;

/** What the listener and the approvals, once started, offer the session (listening_parts.ts). */
type Started = { close(): void; permissionRequest?(params: unknown): void; ask?: AskPerson };

/** A JSON-RPC notification line. */
function notification(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params });
}

/** The host's stdout as the listener and the approvals write to it, once the session has bound it. */
function hostOut() {
  let writer: LineWriter | undefined;
  const channel = {
    send: (event: ListenedEvent) => {
      if (!writer || writer.closed) return true; // nobody to tell: the inbox still has it
      if (writer.pending > STDOUT_QUEUE_LIMIT) return false;
      void writer.writeLine(notification("notifications/claude/channel", event));
      return true;
    },
    drained: () => writer?.drained(STDOUT_QUEUE_LIMIT / 4) ?? Promise.resolve(),
  };
  const verdict = (request_id: string, behavior: "allow" | "deny") =>
    void writer?.writeLine(notification("notifications/claude/channel/permission", { request_id, behavior }));
  return { channel, verdict, bind: (lines: LineWriter) => void (writer = lines) };
}

/** With --confirm-via relay: --confirm-writes asks in the room. It never rejects: a start that fails refuses. */
function askInRoom(start: () => Promise<Started>): AskPerson {
  return (question) =>
    start().then((started) => started.ask!(question), (error) => ({
      action: "unable" as const,
      why: `approvals from the room could not start (${(error as Error)?.message ?? error})`,
    }));
}

export function listening(
  command: Mcp,
  signer: Signer,
  log: (line: string) => void,
  audit: AuditSink | undefined,
  /** Loads listening_parts.ts: given when the flags need it (session/parts.ts). */
  load: LoadListening | undefined,
  /** The session's websocket client, shared with the resource subscriptions. */
  stream: SharedStream,
): Listening {
  const budget = new WriteBudget(command.oversight.maxWrites);
  const { listen, approvals } = command;
  const inbox = listen ? new Inbox() : undefined;
  const closed = new AbortController();
  const out = hostOut();
  let parts: Promise<Started> | undefined;
  const start = () =>
    parts ??= (load ?? (() => Promise.reject(new Error("the listen part was not loaded"))))().then((module) =>
      module.startListening({
        command,
        signer,
        log,
        audit,
        budget,
        inbox,
        channel: out.channel,
        verdict: out.verdict,
        signal: closed.signal,
        stream,
      })
    );
  return {
    features: {
      instructions: instructions(
        listen !== undefined,
        command.codeMode !== undefined,
        command.readTool === true,
      ),
      experimental: [...(listen || approvals ? [CHANNEL] : []), ...(approvals ? [CHANNEL_PERMISSION] : [])],
    },
    budget,
    localTools: inbox ? [inboxTool(inbox, closed.signal)] : [],
    ...(approvals?.confirmViaRelay ? { ask: askInRoom(start) } : {}),
    notifications: {
      bind: out.bind,
      receive: (method, params) => {
        if (method === "notifications/claude/channel/permission_request" && approvals) {
          void start().then((started) => started.permissionRequest?.(params));
        }
      },
    },
    start: () => {
      if (listen || approvals) {
        void start().catch((error) => log(`listen: cannot start: ${(error as Error)?.message ?? error}`));
      }
    },
    close: () => {
      closed.abort();
      inbox?.close();
      void parts?.then((started) => started.close(), () => {});
    },
  };
}
