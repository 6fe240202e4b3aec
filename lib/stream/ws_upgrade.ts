// The websocket upgrade on a connection dial has opened: the request written,
// the answer's head read (bounded to 64 KiB, and by the step's deadline), and
// checked (ws_handshake.ts). The reader is handed on as it is, so frames the
// relay sent right behind its 101 are not lost. A refusal's message carries
// the start of its body, read for a moment at most.

import { ConnReader } from "../transport/buffered_reader.ts";
import { writeAll } from "../transport/bytes.ts";
import type { Duplex } from "../transport/dial.ts";
import { contentLength } from "../transport/http1_grammar.ts";
import {
  type AnswerHead,
  checkSwitch,
  newKey,
  readAnswerHead,
  refusalMessage,
  UpgradeError,
  upgradeRequest,
} from "./ws_handshake.ts";

const HEAD_END = new TextEncoder().encode("\r\n\r\n");
/** The answer's head is at most this long, as any HTTP head tinyagent reads. */
export const MAX_UPGRADE_HEAD_BYTES = 64 * 1024;
/** A refusal's body is waited for this long at most (it usually comes with the head). */
export const PREVIEW_WAIT_MS = 500;
const PREVIEW_BYTES = 4096;

export interface UpgradeOptions {
  /** The bound on writing the request and reading the answer's head. */
  stepMs: number;
  signal?: AbortSignal;
}

function closeQuietly(conn: Duplex): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}

/**
 * Upgrades `conn` to a websocket for `url`; resolves to the reader holding
 * whatever the relay sent after its 101. On any failure `conn` is closed and
 * an UpgradeError says what went wrong.
 */
export async function upgrade(conn: Duplex, url: URL, options: UpgradeOptions): Promise<ConnReader> {
  const reader = new ConnReader(conn);
  const head = await bounded(conn, options, () => answerHead(conn, reader, url));
  if (head.status !== 101) {
    const body = await preview(reader, head);
    closeQuietly(conn);
    await reader.fill(); // the read left waiting ends with the close
    throw new UpgradeError(refusalMessage(head, body), head.status);
  }
  try {
    await checkSwitch(head, head.key);
    return reader;
  } catch (error) {
    closeQuietly(conn);
    throw error;
  }
}

/** Writes the request and reads the answer's head, parsed. */
async function answerHead(conn: Duplex, reader: ConnReader, url: URL): Promise<AnswerHead & { key: string }> {
  const key = newKey();
  try {
    await writeAll(conn, new TextEncoder().encode(upgradeRequest(url, key)));
  } catch (error) {
    throw new UpgradeError(`writing the websocket upgrade to the relay failed: ${messageOf(error)}`);
  }
  const raw = await reader.takeUntil(HEAD_END, MAX_UPGRADE_HEAD_BYTES);
  if (raw === "too long") {
    throw new UpgradeError("the relay's answer to the websocket upgrade has a head over 64 KiB");
  }
  if (raw === undefined) {
    const cause = reader.error ? ` (${reader.error.message})` : "";
    throw new UpgradeError(`the relay closed the connection before answering the websocket upgrade${cause}`);
  }
  return { ...readAnswerHead(raw), key };
}

/**
 * Runs `work` within the step's deadline, or until `signal` gives the attempt
 * up; either way the connection is closed, and the read it ends is waited for,
 * so no operation outlives the attempt.
 */
async function bounded<T>(
  conn: Duplex,
  options: UpgradeOptions,
  work: () => Promise<T>,
): Promise<T> {
  const { stepMs, signal } = options;
  if (signal?.aborted) {
    closeQuietly(conn);
    throw new UpgradeError("the attempt was given up");
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    const stop = (message: string) => {
      closeQuietly(conn);
      reject(new UpgradeError(message));
    };
    timer = setTimeout(
      () => stop(`the relay did not answer the websocket upgrade within ${stepMs / 1000} s`),
      stepMs,
    );
    onAbort = () => stop("the attempt was given up");
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  const running = work();
  try {
    return await Promise.race([running, stopped]);
  } catch (error) {
    closeQuietly(conn);
    await running.catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

/** The start of a refusal's body: what its Content-Length says, at most 4 KiB, waited for briefly. */
async function preview(reader: ConnReader, head: AnswerHead): Promise<Uint8Array> {
  let length: number | undefined;
  try {
    length = contentLength(head.fields);
  } catch {
    length = undefined; // shown as it comes
  }
  const wanted = Math.min(length ?? PREVIEW_BYTES, PREVIEW_BYTES);
  if (wanted === 0 || head.status === 204 || head.status === 304) return new Uint8Array(0);
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    reader.want(wanted),
    new Promise<void>((resolve) => timer = setTimeout(resolve, PREVIEW_WAIT_MS)),
  ]);
  clearTimeout(timer);
  return reader.available > 0 ? reader.takeSome(PREVIEW_BYTES) : new Uint8Array(0);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
