// Attachments on room writes (tinyrelay's mcp_attachments.go and room_attachments.go): the descriptors
// a room write takes become NIP-92 imeta tags and Markdown links after the text; a signed event's
// imeta tags are checked. Pure.

import type { NostrEvent } from "nostr-tools/pure";
import { cleanFilename } from "./media_types.ts";
import { hex64, str, type Tags, trim } from "./write_kit.ts";
import { type Args, isRecord } from "./values.ts";

function urlProblem(raw: string): string | undefined {
  if (/[\\<>"'()]/.test(raw) || /[\s\p{Cc}]/u.test(raw)) {
    return "attachment URL contains unsafe characters; percent-encode them";
  }
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  const bad = !url || (url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "" ||
    url.username !== "" || url.password !== "";
  return bad ? "attachment URL must be absolute HTTP or HTTPS without credentials" : undefined;
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(`^\\s*${TOKEN}(?:/${TOKEN})?\\s*(?:;\\s*${TOKEN}=(?:${TOKEN}|"[^"]*")\\s*)*$`);

function mimeProblem(raw: string): string | undefined {
  const bad = !MEDIA_TYPE.test(raw) || !raw.split(";")[0].includes("/") || /\p{Cc}/u.test(raw);
  return bad ? "attachment type must be a MIME type" : undefined;
}

/** The Markdown a room message carries for one attachment. */
function link(url: string, type: string, filename: string): string {
  const media = type.split(";")[0].trim().toLowerCase();
  if (media.startsWith("image/")) return `![image](${url})`;
  if (media.startsWith("video/")) return `![video](${url})`;
  return `[${filename.replaceAll("\\", "\\\\").replaceAll("[", "\\[").replaceAll("]", "\\]")}](${url})`;
}

/** The attachments' imeta tags and links, or why one cannot be attached to a message in `room`. */
function attachmentTags(args: Args): { links: string; tags: Tags } | { error: string } {
  const values = Array.isArray(args.attachments) ? args.attachments : [];
  if (values.length > 8) return { error: "attach up to 8 files per message" };
  const links: string[] = [], tags: Tags = [];
  for (const item of values) {
    if (!isRecord(item)) return { error: "each attachment must be an object" };
    const url = str(item, "url"), hash = str(item, "sha256"), type = str(item, "type");
    const size = item.size;
    if (typeof size !== "number" || size < 0 || !Number.isSafeInteger(size) || !hex64(hash)) {
      return { error: "attachment needs url, sha256, non-negative integer size and type" };
    }
    const problem = urlProblem(url) ?? mimeProblem(type);
    if (problem) return { error: problem };
    const room = str(item, "room");
    if (room !== "" && room !== str(args, "room")) {
      return { error: "upload the attachment to the destination room first" };
    }
    const filename = cleanFilename(str(item, "filename"));
    tags.push(["imeta", `url ${url}`, `m ${type}`, `x ${hash}`, `size ${size}`, `filename ${filename}`]);
    links.push(link(url, type, filename));
  }
  return { links: links.join("\n"), tags };
}

/** A room write's content (its text, then the attachments' links) and the attachments' tags. */
export function roomContent(args: Args): { content: string; tags: Tags } | { error: string } {
  const attached = attachmentTags(args);
  if ("error" in attached) return attached;
  const text = str(args, "content");
  let content = attached.links;
  if (trim(text) !== "") content = content !== "" ? `${text}\n${content}` : text;
  return { content, tags: attached.tags };
}

/** A signed room write's imeta tags: each with url, m and x, a safe URL, a media type and a whole size. */
export function imetaProblem(ev: NostrEvent): string | undefined {
  for (const t of ev.tags) {
    if (t[0] !== "imeta") continue;
    const fields = new Map<string, string>();
    for (const field of t.slice(1)) {
      const space = field.indexOf(" ");
      if (space >= 0) fields.set(field.slice(0, space), field.slice(space + 1));
    }
    if (!fields.get("url") || !hex64(fields.get("x") ?? "") || trim(fields.get("m") ?? "") === "") {
      return "imeta attachment needs url, m and x fields";
    }
    const problem = urlProblem(fields.get("url")!) ?? mimeProblem(fields.get("m")!);
    if (problem) return problem;
    const size = fields.get("size") ?? "";
    if (size !== "" && (!/^[+-]?\d+$/.test(size) || Number(size) < 0)) {
      return "imeta size must be a non-negative integer";
    }
  }
  return undefined;
}
