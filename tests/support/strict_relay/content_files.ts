// list_files, read_file and read_attachment from the seeded files, as the real relay's browsefiles
// and browsefile give them (blob metadata with its URLs, newest first, the hash as cursor; a file's
// metadata with a 256 KiB text preview, found by its `hash`), and read_attachment's descriptor and
// native content (content_attachment.ts). The files read_file and read_attachment find are the
// seeded ones, then those uploaded as room attachments, then those uploaded with upload_attachment.
// The relay lists an owner's or moderator's files by hash, and re-detects the type of a file stored
// as application/octet-stream; content mode lists newest first for everyone and keeps the type.

import { attachmentAnswer } from "./content_attachment.ts";
import type { FileSeed } from "./content_types.ts";
import {
  browseError,
  browseOk,
  type ContentView,
  HEX64,
  limitOf,
  type Reader,
  text,
} from "./content_view.ts";

const PREVIEW_BYTES = 256 * 1024;
/** The file a read names when the relay holds no such blob. */
export const NO_FILE = "not found: file";

/** The blob's metadata as the relay lists it (a Go map: keys sorted). */
function metadata(sha: string, f: FileSeed, view: ContentView): Record<string, unknown> {
  const base = view.url.replace(/\/+$/, "");
  const origin = new URL(base);
  // Portable Blossom URIs name a server only when the relay is served at its origin's root.
  const server = origin.pathname === "/" ? `&xs=${encodeURIComponent(origin.origin)}` : "";
  return {
    blossom_uri: `blossom:${sha}.bin?as=${f.uploader}&sz=${f.bytes.length}${server}`,
    download_url: `${base}/files/raw?hash=${sha}`,
    sha256: sha,
    size: f.bytes.length,
    type: f.type,
    uploaded: f.uploaded,
    uploader: f.uploader,
    url: `${base}/${sha}`,
  };
}

/** A stored file by hash: seeded, a room attachment, or an upload_attachment upload. */
export function fileFor(view: ContentView, sha: string): FileSeed | undefined {
  const seeded = view.files.get(sha);
  if (seeded) return seeded;
  const attachment = view.attachments.get(sha);
  if (attachment) {
    return { bytes: attachment.bytes, type: attachment.type, uploader: "", uploaded: attachment.uploaded };
  }
  const upload = view.uploads.get(sha);
  return upload && { bytes: upload.bytes, type: upload.type, uploader: "", uploaded: 0 };
}

const matches = (sha: string, f: FileSeed, q: string) =>
  [sha, f.type, f.uploader].some((field) => field.toLowerCase().includes(q));

export const listFiles: Reader = (args, view) => {
  const limit = limitOf(args.limit, 50);
  const q = text(args.q).trim().toLowerCase();
  const all = [...view.files.entries()].sort(([a, fa], [b, fb]) =>
    fb.uploaded - fa.uploaded || (a < b ? 1 : -1)
  );
  const cursor = text(args.cursor);
  let start = 0;
  if (cursor !== "") {
    start = all.findIndex(([sha]) => sha === cursor) + 1;
    if (start === 0) return browseError("resolve blob cursor: sql: no rows in result set");
  }
  const rest = all.slice(start).filter(([sha, f]) => matches(sha, f, q));
  const page = rest.slice(0, limit);
  const next = rest.length > limit ? page[page.length - 1][0] : "";
  return browseOk({ items: page.map(([sha, f]) => metadata(sha, f, view)), next_cursor: next });
};

export const readFile: Reader = (args, view) => {
  const sha = text(args.hash);
  if (!HEX64.test(sha)) return browseError("invalid: bad blob sha256");
  const f = fileFor(view, sha);
  if (!f) return browseError(NO_FILE);
  const preview = f.bytes.subarray(0, PREVIEW_BYTES);
  const truncated = f.bytes.length > PREVIEW_BYTES;
  let decoded: string | undefined;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(preview);
  } catch {
    decoded = truncated ? new TextDecoder().decode(preview) : undefined;
  }
  const binary = preview.includes(0) || decoded === undefined;
  const m = metadata(sha, f, view);
  // A Go map: the keys sorted, the preview's fields among the blob's. Every stored file is public
  // here (the relay also has members-only files), and no claim names a path.
  return browseOk({
    access: "public",
    binary,
    blossom_uri: m.blossom_uri,
    ...(binary ? {} : { content: decoded }),
    download_url: m.download_url,
    ...(f.name === undefined ? {} : { name: f.name }),
    sha256: sha,
    size: m.size,
    truncated,
    type: m.type,
    uploaded: m.uploaded,
    uploader: m.uploader,
    url: m.url,
  });
};

/** read_attachment: the relay's own failures say the attachment is unavailable, and why. */
export const readAttachment: Reader = (args, view) => {
  const sha = text(args.sha256);
  // Why the relay's blob store finds no file is not in the source we read: the twin's words follow.
  if (!HEX64.test(sha)) return browseError("attachment unavailable: invalid: bad blob sha256");
  const f = fileFor(view, sha);
  if (!f) return browseError(`attachment unavailable: ${NO_FILE}`);
  return attachmentAnswer(sha, f, view, args.max_bytes);
};
