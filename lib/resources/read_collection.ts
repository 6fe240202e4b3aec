// A collection read: one page of its children from the relay's list tool (kept briefly, as the
// listings are), or the root's kinds from the table; as markdown or JSON, its links each child
// (`item`) and the next page (`next`), whose cursor is the relay's, carried whole. A cursor the
// relay does not take is refused naming the first page; a repository or room it does not have,
// naming the nearest that it does.

import type { ResourceAddress } from "./kinds.ts";
import {
  collectionCall,
  collectionJson,
  collectionMarkdown,
  collectionPage,
  rootChildren,
} from "./collections.ts";
import { collectionLinks } from "./links.ts";
import type { ReadAnswer, ReadServices } from "./read_services.ts";
import { refusedSpan, shapeRead } from "./read_shape.ts";
import type { ReadQuery } from "./query.ts";
import { formatUri } from "./uri.ts";

/** Page `query.cursor` of the collection at `address`, read as `uri` asks. */
export async function readCollection(
  services: ReadServices,
  address: ResourceAddress,
  query: ReadQuery,
  uri: string,
): Promise<ReadAnswer> {
  const { base, exposed, cache } = services;
  const how = collectionCall(address, query.cursor);
  let page = { children: rootChildren(base, exposed) } as ReturnType<typeof collectionPage>;
  if (how !== undefined) {
    const reading = await cache.get(how.tool, how.arguments);
    if (!reading.ok) {
      // A cursor the relay refuses is not one of its pages: the first page is.
      if (query.cursor !== undefined && reading.failure.kind === "refused") {
        const why = `the relay does not take this cursor (${how.tool}: ${reading.failure.text})`;
        return refusedSpan(base, uri, address, { why, near: [{ as: query.as }] });
      }
      return await services.failure(uri, address, how.tool, reading.failure);
    }
    page = collectionPage(base, address, reading.answer);
  }
  const next = page.next === undefined
    ? undefined
    : formatUri(base, address, { as: query.as, cursor: page.next });
  const plain = formatUri(base, address);
  const json = collectionJson(page, next);
  const item = query.as === "json"
    ? { uri, mimeType: "application/json", text: JSON.stringify(json, null, 2) }
    : { uri, mimeType: "text/markdown", text: collectionMarkdown(address, plain, page, next) };
  const shaped = shapeRead({
    uri,
    plain,
    query,
    item,
    document: json,
    links: collectionLinks(base, address, page.children, next),
  });
  return shaped.ok ? { result: shaped.result } : refusedSpan(base, uri, address, shaped.refusal);
}
