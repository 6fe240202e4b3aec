// Pieces of a stored file too big for one read, through the relay's file download (the signed GET
// rpc's `download` makes, relay/download.ts) at `/files/raw?hash=<sha256>`, the route of read_file's
// `download_url`: a byte range asked with `Range` and checked against the answer's Content-Range;
// lines found by reading the file through in chunks of 1 MiB, keeping only the lines asked for and
// checking the whole against its SHA-256. A relay that does not honour Range sends the file whole
// (at most 32 MiB): it is checked against its SHA-256, the piece cut from it, and the rest let go.
// What is learnt of a file (its size, whether it is text, its lines) is kept: a file's bytes never
// change under its hash.

import { contentRange } from "../relay/download.ts";
import { loadNostr } from "../key/stack.ts";
import { Memo } from "./memo.ts";
import type { ReadQuery, Span } from "./query.ts";
import { fittingSpan, pastTheEnd } from "./spans.ts";
import { LineScan, MAX_LINES_BYTES, type ScanEnd } from "./line_scan.ts";

/** What the download answered: the status, its headers (lowercase names) and the body's bytes. */
export type DownloadReply =
  | { ok: true; status: number; headers: ReadonlyMap<string, string>; bytes: Uint8Array }
  /** `tooLarge`: the answer was over the bound and not read (a relay that ignored Range, sending it all). */
  | { ok: false; error: string; tooLarge?: boolean };

/** A signed GET of a path of the relay, bytes `range` of it when given, its answer read to at most `max` bytes. */
export type Download = (path: string, range: Span | undefined, max: number) => Promise<DownloadReply>;

/** What is known of a file once its bytes were seen. */
export interface FileFacts {
  size: number;
  /** Valid UTF-8 with no NUL: lines can be read. Known once the whole file was read. */
  text?: boolean;
  lines?: number;
}

/** A piece, a refusal of the span (with spans that would do), or a failure of the download. */
export type PieceOutcome =
  | { ok: true; bytes: Uint8Array; type?: string }
  | { ok: false; why: string; near: ReadQuery[] }
  | { ok: false; failure: string; missing?: boolean };

/** The most a relay that ignores Range may send whole: the relay's own bound on an attachment. */
export const MAX_WHOLE_BYTES = 32 * 1024 * 1024;
/** A file is read through in chunks of this size. */
export const CHUNK_BYTES = 1024 * 1024;

const FILES_KEPT = 64;
/** A file's first bytes say whether it may be text. */
const HEAD_BYTES = 64 * 1024;

/** Whether a file's first bytes may be text: no NUL, and UTF-8 but for a sequence the cut split. */
function looksLikeText(head: Uint8Array): boolean {
  if (head.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** The download route of a file by its hash (read_file's `download_url`, under the tenant). */
export function downloadPath(sha256: string): string {
  return `/files/raw?hash=${sha256}`;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The media type the relay served a piece with, unless it is its catch-all. */
function servedType(headers: ReadonlyMap<string, string>): string | undefined {
  const type = headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  return type && type !== "application/octet-stream" ? type : undefined;
}

/** A download that did not give what was asked, in words; `missing` when the relay has no such file. */
function failed(reply: DownloadReply): PieceOutcome {
  if (!reply.ok) return { ok: false, failure: reply.error };
  const missing = reply.status === 404;
  const body = new TextDecoder().decode(reply.bytes.subarray(0, 300)).replace(/\s+/g, " ").trim();
  return {
    ok: false,
    failure: `the relay answered the download with HTTP ${reply.status}: ${body}`,
    missing,
  };
}

/** Whether the relay ignored Range: the whole file sent (200), or too big for the piece's bound to read. */
function ignoredRange(reply: DownloadReply): boolean {
  return reply.ok ? reply.status === 200 : reply.tooLarge === true;
}

export class FilePieces {
  #download: Download;
  #facts = new Memo<FileFacts>(FILES_KEPT);

  constructor(download: Download) {
    this.#download = download;
  }

  /** What is known of the file, if anything. */
  known(sha256: string): FileFacts | undefined {
    return this.#facts.get(sha256);
  }

  /** Bytes `span` of the file; past its end, refused with the span that fits. */
  async range(sha256: string, span: Span): Promise<PieceOutcome> {
    const reply = await this.#download(downloadPath(sha256), span, span.last - span.first + 1);
    if (ignoredRange(reply)) {
      const whole = await this.#wholeFrom(sha256, reply);
      if ("failure" in whole) return whole;
      if (span.last >= whole.bytes.length) return this.#past(span, whole.bytes.length);
      return { ok: true, bytes: whole.bytes.slice(span.first, span.last + 1), type: whole.type };
    }
    if (!reply.ok || (reply.status !== 206 && reply.status !== 416)) return failed(reply);
    const said = contentRange(reply.headers.get("content-range") ?? null);
    if (said === undefined) {
      return { ok: false, failure: "the relay's ranged answer has no Content-Range it can be read by" };
    }
    this.#learn(sha256, { size: said.size });
    // Past the end, a relay sends what there is (or 416): the span that fits is named instead.
    if (!("first" in said) || said.first !== span.first || said.last < span.last) {
      return this.#past(span, said.size);
    }
    return {
      ok: true,
      bytes: reply.bytes.subarray(0, span.last - span.first + 1),
      type: servedType(reply.headers),
    };
  }

  /** The whole file, from an answer that sent it all or by asking for it, checked against its hash. */
  async #wholeFrom(
    sha256: string,
    reply: DownloadReply,
  ): Promise<{ bytes: Uint8Array; type?: string } | Extract<PieceOutcome, { failure: string }>> {
    const whole = reply.ok && reply.status === 200
      ? reply
      : await this.#download(downloadPath(sha256), undefined, MAX_WHOLE_BYTES);
    if (!whole.ok || whole.status !== 200) return failed(whole) as Extract<PieceOutcome, { failure: string }>;
    const hash = (await loadNostr()).sha2.sha256(whole.bytes);
    if (hex(hash) !== sha256) {
      return { ok: false, failure: "the relay's bytes do not match the file's SHA-256" };
    }
    this.#learn(sha256, { size: whole.bytes.length });
    return { bytes: whole.bytes, type: servedType(whole.headers) };
  }

  #past(span: Span, size: number): PieceOutcome {
    const fits = fittingSpan(span, size, 0, span.last - span.first + 1);
    return {
      ok: false,
      why: pastTheEnd("range", span, size),
      near: fits ? [{ as: "markdown", range: fits }] : [],
    };
  }

  #learn(sha256: string, facts: FileFacts): FileFacts {
    const kept = this.#facts.get(sha256);
    return this.#facts.set(sha256, { ...kept, ...facts });
  }

  /**
   * What a note on a file too big to read whole says: its size and served type from its first bytes,
   * and, when those look like text, whether it is and how many lines it has, from reading it through
   * once (checked against its SHA-256). Kept: a second note costs nothing.
   */
  async facts(
    sha256: string,
  ): Promise<(FileFacts & { type?: string }) | Extract<PieceOutcome, { failure: string }>> {
    const known = this.#facts.get(sha256);
    if (known && (known.text === false || known.lines !== undefined)) return known;
    const head = await this.#download(downloadPath(sha256), { first: 0, last: HEAD_BYTES - 1 }, HEAD_BYTES);
    if (!head.ok && !head.tooLarge) return failed(head) as Extract<PieceOutcome, { failure: string }>;
    const bytes = head.ok && (head.status === 200 || head.status === 206)
      ? head.bytes.subarray(0, HEAD_BYTES)
      : undefined;
    const type = head.ok ? servedType(head.headers) : undefined;
    if (bytes !== undefined && !looksLikeText(bytes)) {
      const said = head.ok ? contentRange(head.headers.get("content-range") ?? null) : undefined;
      const size = said?.size ?? (head.ok && head.status === 200 ? head.bytes.length : undefined);
      if (size !== undefined) {
        return { ...this.#learn(sha256, { size, text: false }), ...(type ? { type } : {}) };
      }
    }
    const read = await this.lines(sha256, { first: 1, last: 0 });
    if ("failure" in read) return read;
    const facts = this.#facts.get(sha256);
    return facts
      ? { ...facts, ...(type ? { type } : {}) }
      : { ok: false, failure: "the file could not be read through" };
  }

  /** The file's size, from a one-byte range (or what is already known). */
  async size(sha256: string): Promise<number | Extract<PieceOutcome, { failure: string }>> {
    const known = this.#facts.get(sha256);
    if (known) return known.size;
    const piece = await this.range(sha256, { first: 0, last: 0 });
    if ("failure" in piece) return piece;
    return this.#facts.get(sha256)?.size ?? 0;
  }

  /**
   * Lines `span` of the file (each with its line break), read through the whole file in chunks,
   * keeping only those lines, and checking the whole against its SHA-256; refused when the file is
   * not text, when the span is past its end, or when the lines asked are over MAX_LINES_BYTES.
   */
  async lines(sha256: string, span: Span): Promise<PieceOutcome> {
    const scan = new LineScan(span, await loadNostr().then((stack) => stack.sha2.sha256.create()));
    let size: number | undefined;
    for (let at = 0; size === undefined || at < size; at += CHUNK_BYTES) {
      const chunk = { first: at, last: at + CHUNK_BYTES - 1 };
      const reply = await this.#download(downloadPath(sha256), chunk, CHUNK_BYTES);
      if (at === 0 && ignoredRange(reply)) {
        const whole = await this.#wholeFrom(sha256, reply);
        if ("failure" in whole) return whole;
        scan.feed(whole.bytes);
        size = whole.bytes.length;
        break;
      }
      if (at === 0 && reply.ok && reply.status === 416) {
        size = 0;
        continue;
      }
      if (!reply.ok || reply.status !== 206) return failed(reply);
      const said = contentRange(reply.headers.get("content-range") ?? null);
      if (said === undefined || !("first" in said) || said.first !== at) {
        return { ok: false, failure: "the relay's ranged answer is not the chunk asked for" };
      }
      size = said.size;
      scan.feed(reply.bytes.subarray(0, said.last - said.first + 1));
    }
    const done = scan.end();
    if (hex(done.digest) !== sha256) {
      return { ok: false, failure: "the relay's bytes do not match the file's SHA-256" };
    }
    this.#learn(sha256, { size, text: done.text, lines: done.lines });
    return this.#linesOutcome(span, done);
  }

  #linesOutcome(span: Span, done: ScanEnd): PieceOutcome {
    if (!done.text) {
      const first = { first: 0, last: Math.min(done.size, 65536) - 1 };
      return {
        ok: false,
        why: "this file is not text (it is not UTF-8, or holds NUL bytes): read its bytes with range",
        near: done.size > 0 ? [{ as: "markdown", range: first }] : [],
      };
    }
    if (done.over !== undefined) {
      const why = `lines=${span.first}-${span.last} are over ${MAX_LINES_BYTES} bytes`;
      return {
        ok: false,
        why,
        near: done.over >= span.first
          ? [{ as: "markdown", lines: { first: span.first, last: done.over } }]
          : [],
      };
    }
    if (span.last > done.lines) {
      const fits = fittingSpan(span, done.lines, 1);
      return {
        ok: false,
        why: pastTheEnd("lines", span, done.lines),
        near: fits ? [{ as: "markdown", lines: fits }] : [],
      };
    }
    return { ok: true, bytes: done.kept };
  }
}
