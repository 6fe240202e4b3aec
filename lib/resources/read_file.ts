// A stored file past what one read gives: a piece of it (`?range=` of its bytes, `?lines=` of its
// text) through the relay's file download, and the note a read of the whole gets instead when it
// is over the facade's bound (or the relay's): its size, and the URIs of its pieces. A piece reads
// as text when its bytes are (valid UTF-8, no NUL), else as bytes, in the type the relay served it
// with when that is a type of its own; every item under the URI as asked, so a piece keeps its span.

import type { CallError } from "../wire/mcp.ts";
import type { ResourceAddress } from "./kinds.ts";
import { fileNote } from "./cap_note.ts";
import type { FilePieces, PieceOutcome } from "./file_pieces.ts";
import { type Link, linksOf } from "./links.ts";
import type { ReadQuery } from "./query.ts";
import type { ReadAnswer, ReadServices } from "./read_services.ts";
import { jsonItem, refusedSpan, withLinks } from "./read_shape.ts";
import type { ContentItem } from "./render_file.ts";
import { RELAY_FAILED } from "./outcome.ts";
import { echoedUri } from "./nearest.ts";
import { shown } from "./text.ts";
import { formatUri } from "./uri.ts";

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

type DownloadFailure = Extract<PieceOutcome, { failure: string }>;

/** The bytes as text when they are text, else as a blob. */
function pieceItem(uri: string, bytes: Uint8Array, type: string | undefined): ContentItem {
  if (!bytes.includes(0)) {
    try {
      return { uri, mimeType: type ?? "text/plain", text: STRICT_UTF8.decode(bytes) };
    } catch {
      // not text: its bytes follow
    }
  }
  return { uri, mimeType: type ?? "application/octet-stream", blob: bytes.toBase64() };
}

/** A download that failed, as the read's error: an unknown file refused naming the nearest. */
async function downloadFailed(
  services: ReadServices,
  address: ResourceAddress,
  uri: string,
  failed: DownloadFailure,
): Promise<{ error: CallError }> {
  if (failed.missing) {
    return await services.failure(uri, address, "download", { kind: "unknown-id", text: "not found: file" });
  }
  return {
    error: {
      code: RELAY_FAILED,
      message: `Cannot read ${shown(echoedUri(uri), 200)}: ${failed.failure}`,
      data: { uri: echoedUri(uri), reason: "transport" },
    },
  };
}

function unavailable(uri: string): { error: CallError } {
  return {
    error: {
      code: RELAY_FAILED,
      message: `Cannot read ${shown(echoedUri(uri), 200)}: pieces of files are not read in this session`,
      data: { uri: echoedUri(uri), reason: "not-offered" },
    },
  };
}

/**
 * What `ask` learns from the relay of the file at `address`, with the read's plain URI and links;
 * or the read's error, when this session reads no pieces of files or the download failed.
 */
async function fromDownload<T extends object>(
  services: ReadServices,
  address: ResourceAddress,
  uri: string,
  ask: (files: FilePieces, sha256: string) => Promise<T | DownloadFailure>,
): Promise<{ got: T; plain: string; links: Link[] } | { error: CallError }> {
  const { base, files } = services;
  if (!files) return unavailable(uri);
  const sha = address.values.sha256;
  const got = await ask(files, sha);
  if ("failure" in got) return await downloadFailed(services, address, uri, got);
  const links = linksOf(base, address, undefined, { seenIn: services.seenIn(sha) });
  return { got, plain: formatUri(base, address), links };
}

/** Bytes or lines of the file at `address`, as `query` asks. */
export async function readFilePiece(
  services: ReadServices,
  address: ResourceAddress,
  query: ReadQuery,
  uri: string,
): Promise<ReadAnswer> {
  const read = await fromDownload(
    services,
    address,
    uri,
    (files, sha) => query.range ? files.range(sha, query.range) : files.lines(sha, query.lines!),
  );
  if ("error" in read) return read;
  const { got: piece, plain, links } = read;
  if (!piece.ok) return refusedSpan(services.base, uri, address, piece);
  return { result: withLinks([pieceItem(uri, piece.bytes, piece.type)], { plain, links }) };
}

/** The note a whole read of a file too big for one read gets: its size and the pieces to read. */
export async function bigFile(
  services: ReadServices,
  address: ResourceAddress,
  query: ReadQuery,
  uri: string,
): Promise<ReadAnswer> {
  const read = await fromDownload(services, address, uri, (files, sha) => files.facts(sha));
  if ("error" in read) return read;
  const { got: facts, plain, links } = read;
  const note = fileNote(plain, facts);
  const item = query.as === "json"
    ? jsonItem(uri, note.json)
    : { uri, mimeType: "text/markdown", text: note.markdown };
  return { result: withLinks([item], { plain, links }) };
}
