// The relay core: every request a front end parsed is recorded, counted in flight, routed to the
// MCP or NIP-86 endpoint (or to a scripted fault) and answered. It knows nothing of framing or
// sockets; front ends attach to it and are closed with it.

import type { NostrEvent } from "nostr-tools/pure";
import type { ToolStore } from "./default_tools.ts";
import {
  type Exchange,
  type IncomingRequest,
  type Reply,
  rpcError,
  rpcId,
  statusOf,
  toAnswer,
} from "./exchange.ts";
import type { RelayContext } from "./context.ts";
import { activeGrant, answerManage, DEFAULT_GRANT_SCOPE } from "./manage_endpoint.ts";
import { answerMcp } from "./mcp_endpoint.ts";
import { parseAuth, TokenVerifier } from "./nip98.ts";
import { DEFAULT_TOOLS } from "./tool_table.ts";
import type {
  BrowsegrantFn,
  CutHow,
  Fault,
  RecordedRequest,
  StrictRelay,
  StrictRelayOptions,
  ToolDef,
  ToolHandler,
} from "./types.ts";

export const DEFAULT_MAX_BODY = 64 * 1024 * 1024;

/** A front end: something that feeds the core requests, owns client connections and can be closed. */
export interface FrontEnd {
  /** Client connections accepted so far. */
  readonly connections: number;
  /** Client connections open now. */
  readonly openConnections: number;
  /** Kills every open client connection; returns how many. */
  cutAll(how: CutHow): number;
  close(): Promise<void>;
}

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
  /** The body limit front ends apply when reading. */
  readonly maxBodyBytes: number;
  readonly scheme: "http" | "https";
  readonly http2: boolean;
  caPem?: string;
  caFile?: string;

  #prefix: string;
  #now: () => number;
  #table: ToolDef[];
  #handlers = new Map<string, ToolHandler>();
  #script: Fault[] = [];
  #delayMs = 0;
  #browsegrant: BrowsegrantFn;
  #tokens: TokenVerifier;
  #context: RelayContext;
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
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
    this.#now = options.now ?? (() => Date.now() / 1000);
    this.#table = [...(options.tools ?? DEFAULT_TOOLS), ...(options.extraTools ?? [])];
    this.membersOnly = options.membersOnly ?? false;
    this.members = new Set(options.members ?? []);
    const scope = options.grantScope ?? DEFAULT_GRANT_SCOPE;
    this.#browsegrant = (pubkey, params) => activeGrant(pubkey, params, this.#now(), scope);
    this.#tokens = new TokenVerifier(() => this.#now());
    this.#context = this.#makeContext();
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

  /** Adds a front end, closed with the relay. */
  attach(frontEnd: FrontEnd): void {
    this.#frontEnds.push(frontEnd);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#signalClosed();
    await Promise.all(this.#frontEnds.map((frontEnd) => frontEnd.close()));
  }

  /** Records, routes and answers one request; the front end writes the answer and releases it. */
  async handle(req: IncomingRequest): Promise<Exchange> {
    const record = this.#record(req);
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

  #record(req: IncomingRequest): RecordedRequest {
    const q = req.target.indexOf("?");
    const path = q < 0 ? req.target : req.target.slice(0, q);
    const bodyText = new TextDecoder().decode(req.body);
    const rec: RecordedRequest = {
      method: req.method,
      path,
      url: `${this.scheme}://${req.headers.get("host") ?? this.host}${req.target}`,
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
    this.requests.push(rec);
    return rec;
  }

  async #route(req: IncomingRequest, rec: RecordedRequest): Promise<Reply> {
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
      return { ...rpcError(405, null, -32600, "method not allowed: use POST"), headers: { Allow: "POST" } };
    }
    return isMcp ? await answerMcp(this.#context, req, rec) : await answerManage(this.#context, req, rec);
  }

  /** The view of this relay the endpoints work with. */
  #makeContext(): RelayContext {
    const store: ToolStore = {
      url: this.url,
      now: () => this.#now(),
      uploads: new Map(),
      published: this.published,
    };
    // Functions rather than values, so a table or browsegrant replaced at run time is the one used.
    return {
      prefix: this.#prefix,
      host: this.host,
      maxBody: this.maxBodyBytes,
      now: () => this.#now(),
      authenticate: (rec, requirePayload) => this.#tokens.verify(rec, requirePayload),
      refusesNonMember: (pubkey) => this.membersOnly && !this.members.has(pubkey),
      table: () => this.#table,
      handler: (name) => this.#handlers.get(name),
      browsegrant: (pubkey, params) => this.#browsegrant(pubkey, params),
      store,
    };
  }
}
