// The relay core: every request a front end parsed is recorded, counted in flight, routed to the
// Nostr side (nostr_side.ts: websocket, /events, attachments, /media), the MCP or NIP-86 endpoint (or
// to a scripted fault) and answered. It knows nothing of framing or sockets; front ends attach to it
// and are closed (and suspended) with it.

import type { NostrEvent } from "nostr-tools/pure";
import {
  type Exchange,
  type FrontEnd,
  type IncomingRequest,
  type Reply,
  rpcError,
  rpcId,
  statusOf,
  toAnswer,
} from "./exchange.ts";
import { Community, grantOver } from "./community.ts";
import { ContentStore } from "./content_store.ts";
import type { Seed } from "./content_types.ts";
import type { RelayContext } from "./context.ts";
import type { Receipt } from "./event_gates.ts";
import { answerManage, DEFAULT_GRANT_SCOPE, grantAnswer } from "./manage_endpoint.ts";
import { answerMcp, methodRefusal } from "./mcp_endpoint.ts";
import { TokenVerifier } from "./nip98.ts";
import { NostrSide } from "./nostr_side.ts";
import { EventStore } from "./event_store.ts";
import { recordOf } from "./record.ts";
import { DEFAULT_TOOLS } from "./tool_table.ts";
import type {
  Attachment,
  BrowsegrantFn,
  ClientMessage,
  CutHow,
  Fault,
  RecordedRequest,
  StrictRelay,
  StrictRelayOptions,
  ToolDef,
  ToolHandler,
  WsMode,
} from "./types.ts";
import { gateContext, readRefusal, type RelayState, toolRelay, uploadDeps } from "./relay_views.ts";
import type { GrantScope, GrantState } from "./types.ts";

/** The relay's bound on an /mcp body when its operator sets none (tinyrelay's mcp.Server default). */
export const DEFAULT_MCP_BODY = 1024 * 1024;

function delayFor(ms: number, closed: Promise<void>): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([new Promise<void>((r) => (timer = setTimeout(r, ms))), closed]).finally(() =>
    clearTimeout(timer)
  );
}

export class RelayCore implements StrictRelay {
  url: string;
  origin: string;
  host: string;
  port: number;
  mcpUrl: string;
  manageUrl: string;
  requests: RecordedRequest[] = [];
  published: NostrEvent[] = [];
  members: Set<string>;
  membersOnly: boolean;
  /** The /mcp and /manage/rpc body bound: the operator's --max-message-bytes, else 1 MiB. */
  readonly maxBodyBytes: number;
  readonly scheme: "http" | "https";
  readonly http2: boolean;
  caPem?: string;
  caFile?: string;
  wsUrl: string;
  readonly events: NostrEvent[];
  rooms: Set<string>;
  readsNeedAuth: boolean;
  filesSeekable = true;
  readonly clientMessages: ClientMessage[];
  readonly attachments = new Map<string, Attachment>();
  readonly community: Community;

  #prefix: string;
  #now: () => number;
  #table: ToolDef[];
  #handlers = new Map<string, ToolHandler>();
  #script: Fault[] = [];
  #delayMs = 0;
  #browsegrant: BrowsegrantFn;
  #tokens: TokenVerifier;
  #context: RelayContext;
  #nostr: NostrSide;
  #content: ContentStore;
  #state: RelayState;
  #frontEnds: FrontEnd[] = [];
  #inFlight = 0;
  #maxConcurrent = 0;
  #closed = false;
  #closedPromise: Promise<void>;
  #signalClosed!: () => void;

  constructor(port: number, options: StrictRelayOptions) {
    this.port = port;
    this.host = `127.0.0.1:${port}`;
    this.scheme = options.tls ? "https" : "http";
    this.http2 = !!(options.tls && options.http2);
    this.origin = `${this.scheme}://${this.host}`;
    this.#prefix = (options.prefix ?? "").replace(/\/+$/, "");
    if (this.#prefix && !this.#prefix.startsWith("/")) this.#prefix = `/${this.#prefix}`;
    this.url = this.origin + this.#prefix;
    this.mcpUrl = `${this.url}/mcp`;
    this.manageUrl = `${this.url}/manage/rpc`;
    this.maxBodyBytes = options.maxMessageBytes || DEFAULT_MCP_BODY;
    this.#now = options.now ?? (() => Date.now() / 1000);
    this.#table = [...(options.tools ?? DEFAULT_TOOLS), ...(options.extraTools ?? [])];
    this.membersOnly = options.membersOnly ?? false;
    this.members = new Set(options.members ?? []);
    const scope = options.grantScope === undefined ? DEFAULT_GRANT_SCOPE : options.grantScope;
    const defaultGrant = scope === null ? undefined : grantOver(scope, this.#now());
    this.community = new Community(() => this.members, () => this.membersOnly, () => defaultGrant);
    this.#browsegrant = (pubkey, params) => grantAnswer(this.community, pubkey, params, this.#now());
    this.#tokens = new TokenVerifier(() => this.#now());
    this.wsUrl = this.url.replace(/^http/, "ws");
    this.rooms = new Set(options.rooms ?? ["general"]);
    this.readsNeedAuth = options.readsNeedAuth ?? false;
    const store = new EventStore();
    this.#content = new ContentStore({
      events: store,
      rooms: () => this.rooms,
      url: this.url,
      now: () => this.#now(),
      uploads: new Map(),
      attachments: this.attachments,
    });
    this.#state = this.#relayState();
    const uploads = uploadDeps(this.#state);
    this.#nostr = new NostrSide({
      prefix: this.#prefix,
      scheme: this.scheme,
      host: this.host,
      now: () => this.#now(),
      authenticate: (rec, payload) => this.#tokens.verify(rec, payload),
      membersOnly: () => this.membersOnly,
      isMember: (pubkey) => this.community.isMember(pubkey),
      readsNeedAuth: () => this.readsNeedAuth,
      rooms: () => this.rooms,
      gates: (session) => gateContext(this.#state, session),
      accepted: (ev) => this.#content.accepted(ev, (pubkey) => this.community.isMember(pubkey)),
      uploads,
      readRefusal: (pubkey) => readRefusal(this.#state, pubkey),
      file: (sha256) => this.#content.file(sha256),
      seekable: () => this.filesSeekable,
      store,
      maxMessageBytes: options.maxMessageBytes,
    });
    ({ events: this.events, clientMessages: this.clientMessages } = this.#nostr);
    this.#context = this.#makeContext(uploads);
    this.#closedPromise = new Promise((r) => (this.#signalClosed = r));
  }

  get maxConcurrent(): number {
    return this.#maxConcurrent;
  }
  get inFlight(): number {
    return this.#inFlight;
  }
  get tools(): ToolDef[] {
    return this.#table;
  }
  get connections(): number {
    return this.#frontEnds.reduce((sum, frontEnd) => sum + frontEnd.connections, 0);
  }
  get openConnections(): number {
    return this.#frontEnds.reduce((sum, frontEnd) => sum + frontEnd.openConnections, 0);
  }
  cutConnections(how: CutHow = "fin"): number {
    return this.#frontEnds.reduce((sum, frontEnd) => sum + frontEnd.cutAll(how), 0);
  }
  setTool(name: string, handler: ToolHandler): void {
    this.#handlers.set(name, handler);
  }
  setTable(tools: ToolDef[]): void {
    this.#table = [...tools];
  }
  script(...faults: Fault[]): void {
    this.#script.push(...faults);
  }
  delay(ms: number): void {
    this.#delayMs = ms;
  }
  setBrowsegrant(fn: BrowsegrantFn): void {
    this.#browsegrant = fn;
  }
  setGrant(pubkey: string, scope: GrantScope | null | undefined, state: GrantState = {}): void {
    if (scope === null || scope === undefined) return this.community.setGrant(pubkey, scope);
    const grant = grantOver(scope, this.#now());
    this.community.setGrant(pubkey, { ...grant, ...state });
  }
  get wsConnections(): number {
    return this.#nostr.wsConnections;
  }
  get openWebSockets(): number {
    return this.#nostr.openWebSockets;
  }
  inject(event: NostrEvent): boolean {
    return this.#nostr.inject(event);
  }
  /** An event sent to the live subscriptions it matches, unchecked and not stored (nostr_side.ts). */
  pass(event: NostrEvent): void {
    this.#nostr.pass(event);
  }
  seed(content: Seed): void {
    this.#content.seed(content);
  }
  setEventGate(fn?: (event: NostrEvent) => string | undefined): void {
    this.#nostr.setEventGate(fn);
  }
  closeSubscriptions(reason?: string): number {
    return this.#nostr.closeSubscriptions(reason);
  }
  wsBehaviour(mode: WsMode): void {
    this.#nostr.wsBehaviour(mode);
  }
  trickleWebSockets(): number {
    return this.#nostr.trickleWebSockets();
  }
  suspend(): Promise<void> {
    for (const frontEnd of this.#frontEnds) frontEnd.suspend();
    return Promise.resolve();
  }
  async resume(): Promise<void> {
    for (const frontEnd of this.#frontEnds) await frontEnd.resume();
  }

  /** Adds a front end, closed with the relay. */
  attach(frontEnd: FrontEnd): void {
    this.#frontEnds.push(frontEnd);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#signalClosed();
    await Promise.all(this.#frontEnds.map((frontEnd) => frontEnd.close()));
    await this.#nostr.close();
  }

  /** Records, routes and answers one request; the front end writes the answer and releases it. */
  async handle(incoming: IncomingRequest): Promise<Exchange> {
    // Front ends read up to readLimit(); past maxBodyBytes only the Nostr routes keep the body.
    const req = incoming.bodySize > this.maxBodyBytes && !this.#nostr.ownsBody(incoming)
      ? { ...incoming, body: new Uint8Array(), tooLarge: true }
      : incoming;
    const record = recordOf(req, this.scheme, this.host);
    this.requests.push(record);
    this.#inFlight++;
    this.#maxConcurrent = Math.max(this.#maxConcurrent, this.#inFlight);
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        this.#inFlight--;
      }
    };
    try {
      const answer = toAnswer(await this.#reply(req, record), record);
      record.status = statusOf(answer);
      return { record, answer, release };
    } catch (err) {
      release();
      throw err;
    }
  }

  /** The reply after any delay; a drop once the relay is closing. */
  async #reply(req: IncomingRequest, rec: RecordedRequest): Promise<Reply> {
    const drop: Reply = { drop: true };
    await delayFor(this.#delayMs, this.#closedPromise);
    if (this.#closed) return drop;
    let reply: Reply;
    try {
      reply = await Promise.race([this.#route(req, rec), this.#closedPromise.then(() => drop)]);
    } catch (err) {
      console.error("strict relay: handler failed:", err);
      reply = rpcError(
        500,
        rpcId(rec),
        -32603,
        `internal error: ${err instanceof Error ? err.message : err}`,
      );
    }
    return this.#closed ? drop : reply;
  }

  async #route(req: IncomingRequest, rec: RecordedRequest): Promise<Reply> {
    const nostr = this.#nostr.route(req, rec);
    if (nostr) return nostr;
    const isMcp = rec.path === `${this.#prefix}/mcp`;
    const isManage = rec.path === `${this.#prefix}/manage/rpc`;
    if (!isMcp && !isManage) {
      return { status: 404, body: "404 page not found\n", contentType: "text/plain; charset=utf-8" };
    }
    const scripted = this.#script.shift();
    // A scripted cut lets the request run first (token admitted, tool run), then withholds the answer.
    if (scripted && "cutAfterRun" in scripted) await this.#answer(isMcp, req, rec);
    if (scripted) return scripted;
    return await this.#answer(isMcp, req, rec);
  }

  async #answer(isMcp: boolean, req: IncomingRequest, rec: RecordedRequest): Promise<Reply> {
    if (req.method !== "POST") {
      if (isMcp) return methodRefusal();
      return { ...rpcError(405, null, -32600, "method not allowed: use POST"), headers: { Allow: "POST" } };
    }
    return isMcp ? await answerMcp(this.#context, req, rec) : await answerManage(this.#context, req, rec);
  }

  /** The relay's state as the gates, uploads and tools judge by it. */
  #relayState(): RelayState {
    return {
      url: this.url,
      now: () => this.#now(),
      community: this.community,
      membersOnly: () => this.membersOnly,
      rooms: () => this.rooms,
      content: this.#content,
      attachments: this.attachments,
      publish: (ev, session) => this.#publish(ev, session),
    };
  }

  /** A write tool's event through the one publish path; an accepted one is kept in `published` too. */
  #publish(ev: NostrEvent, session: ReadonlySet<string>): Receipt {
    const receipt = this.#nostr.publish(ev, session);
    if (receipt.accepted && !this.published.some((p) => p.id === ev.id)) this.published.push(ev);
    return receipt;
  }

  /** The view of this relay the endpoints work with. */
  #makeContext(uploads: ReturnType<typeof uploadDeps>): RelayContext {
    // Functions rather than values, so a table or browsegrant replaced at run time is the one used.
    return {
      prefix: this.#prefix,
      host: this.host,
      maxBody: this.maxBodyBytes,
      now: () => this.#now(),
      authenticate: (rec) => this.#tokens.verify(rec, "when-body"),
      refusesNonMember: (pubkey) => this.membersOnly && !this.community.isMember(pubkey),
      table: () => this.#table,
      handler: (name) => this.#handlers.get(name),
      browsegrant: (pubkey, params) => this.#browsegrant(pubkey, params),
      tools: toolRelay(this.#state, uploads),
    };
  }
}
