// A read's answer given the shape its URI asks for: the whole rendering, the lines of it asked for
// (`?lines=`), the value a pointer names in its JSON (`?pointer=`), a page of its links
// (`?as=links`), or, for a text over the cap, a note naming the pieces to read; every item under
// the URI as asked (so a piece keeps its span), and the links in `_meta`. Pure.

import type { CallError } from "../wire/mcp.ts";
import type { ResourceAddress } from "./kinds.ts";
import { cappedLinks, type Link, LINKS_KEY, linksPage } from "./links.ts";
import { refusal } from "./nearest.ts";
import { formatUri, type ResourceBase } from "./uri.ts";
import { TEXT_CAP, textNote } from "./cap_note.ts";
import { formatQuery, type ReadQuery, type Span } from "./query.ts";
import type { ContentItem } from "./render_file.ts";
import { jsonText, type ReadContents } from "./render.ts";
import { fittingSpan, lineCount, linePieces, pastTheEnd, resolvePointer, sliceLines } from "./spans.ts";

/** A span that cannot be read: why, and the queries near it that can. */
export interface SpanRefusal {
  why: string;
  near: ReadQuery[];
}

export type Shaped = { ok: true; result: ReadContents } | { ok: false; refusal: SpanRefusal };

/** What a read was made of, to be shaped. */
export interface ReadParts {
  /** The URI as asked; every item carries it. */
  uri: string;
  /** The same resource's URI with no query: pieces and pages are named from it. */
  plain: string;
  query: ReadQuery;
  /** The whole rendering (markdown, the JSON text, a file's own item). */
  item: ContentItem;
  /** The JSON a pointer reads into. */
  document: unknown;
  links: readonly Link[];
}

/** A span refused (`bad-query`), naming the URIs of the spans that would do. */
export function refusedSpan(
  base: ResourceBase,
  uri: string,
  address: ResourceAddress,
  refused: SpanRefusal,
): { error: CallError } {
  const near = [...new Set(refused.near.map((query) => formatUri(base, address, query)))];
  return { error: refusal(uri, "bad-query", refused.why, near) };
}

/** The contents with the links in `_meta` (at most 100; past that, the way to `?as=links`). */
export function withLinks(
  contents: ContentItem[],
  parts: { plain: string; links: readonly Link[] },
): ReadContents {
  const linksUri = `${parts.plain}${formatQuery({ as: "links" })}`;
  return { contents, _meta: { [LINKS_KEY]: cappedLinks(parts.links, linksUri) } };
}

/** A value as a JSON item. */
export const jsonItem = (uri: string, value: unknown): ContentItem => ({
  uri,
  mimeType: "application/json",
  text: jsonText(value),
});
const json = jsonItem;

/** The largest span from `first` whose lines stay under the cap. */
function underCap(text: string, span: Span): Span {
  const piece = linePieces(text, TEXT_CAP)[0];
  return { first: span.first, last: span.first + Math.max(0, (piece?.last ?? 1) - 1) };
}

function linesOf(parts: ReadParts, span: Span): Shaped {
  const { item, uri } = parts;
  if (!("text" in item)) {
    return {
      ok: false,
      refusal: { why: "this read is not text: it has no lines", near: [{ as: "markdown" }] },
    };
  }
  const sliced = sliceLines(item.text, span);
  if (!sliced.ok) {
    const fits = fittingSpan(span, sliced.total, 1);
    return {
      ok: false,
      refusal: {
        why: pastTheEnd("lines", span, sliced.total),
        near: fits ? [{ as: "markdown", lines: fits }] : [],
      },
    };
  }
  if (sliced.text.length > TEXT_CAP) {
    const why =
      `lines=${span.first}-${span.last} are ${sliced.text.length} characters, over the cap of ${TEXT_CAP}`;
    return { ok: false, refusal: { why, near: [{ as: "markdown", lines: underCap(sliced.text, span) }] } };
  }
  return { ok: true, result: withLinks([{ uri, mimeType: item.mimeType, text: sliced.text }], parts) };
}

/** The read shaped as its query asks. */
export function shapeRead(parts: ReadParts): Shaped {
  const { query, item, uri, plain } = parts;
  if (query.as === "links") {
    const offset = query.cursor === undefined ? 0 : Number(query.cursor);
    const page = linksPage(
      parts.links,
      offset,
      (next) => `${plain}${formatQuery({ as: "links", cursor: String(next) })}`,
    );
    if (offset > 0 && offset >= page.total) {
      return {
        ok: false,
        refusal: {
          why: `this read has ${page.total} links; the page from ${offset} is past them`,
          near: [{ as: "links" }],
        },
      };
    }
    return { ok: true, result: { contents: [json(uri, page)] } };
  }
  if (query.pointer !== undefined) {
    const found = resolvePointer(parts.document, query.pointer);
    if (!found.ok) {
      return {
        ok: false,
        refusal: {
          why: `pointer=${query.pointer}: ${found.why}`,
          near: [{ as: "json", pointer: found.near }],
        },
      };
    }
    return { ok: true, result: withLinks([json(uri, found.value)], parts) };
  }
  if (query.lines) return linesOf(parts, query.lines);
  if ("text" in item && item.mimeType === "text/markdown" && item.text.length > TEXT_CAP) {
    const note = textNote(plain, item.text.length, lineCount(item.text), linePieces(item.text, TEXT_CAP));
    return { ok: true, result: withLinks([{ uri, mimeType: "text/markdown", text: note.markdown }], parts) };
  }
  return { ok: true, result: withLinks([{ ...item, uri }], parts) };
}
