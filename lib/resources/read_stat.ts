// `?as=stat` read: the cheapest call that describes the thing (stat.ts), the item found in a
// listing when that is the call, and when the listing does not find it, the long way: a wiki page
// read, a file's size from a one-byte piece of its download. Answered as JSON, with the links the
// address itself gives (and a task's room and thread), never the body's.

import type { ItemKind, ResourceAddress } from "./kinds.ts";
import { readCall } from "./kinds.ts";
import { linksOf } from "./links.ts";
import { readOutcome } from "./outcome.ts";
import type { ReadAnswer, ReadServices } from "./read_services.ts";
import { jsonItem, withLinks } from "./read_shape.ts";
import { listedItem, statCall, statOf } from "./stat.ts";
import { formatUri } from "./uri.ts";

/** The stat of the single resource at `address`, as `uri` asks. */
export async function readStat(
  services: ReadServices,
  address: ResourceAddress & { kind: ItemKind },
  uri: string,
): Promise<ReadAnswer> {
  const { base, call } = services;
  const how = statCall(address);
  const reading = readOutcome(how.tool, await call(how.tool, how.arguments));
  if (!reading.ok) return await services.failure(uri, address, how.tool, reading.failure);
  let answer: unknown = reading.answer;
  if (how.listed) {
    const item = listedItem(address, reading.answer);
    answer = item ?? await theLongWay(services, address, uri);
    if (isError(answer)) return answer;
  }
  const stat = statOf(address, uri, answer);
  const links = linksOf(base, address, address.kind === "job" ? answer : undefined);
  return { result: withLinks([jsonItem(uri, stat)], { plain: formatUri(base, address), links }) };
}

function isError(value: unknown): value is { error: never } {
  return typeof value === "object" && value !== null && "error" in value;
}

/** What the listing did not say: a wiki page's read, or a file's size from its download. */
async function theLongWay(
  services: ReadServices,
  address: ResourceAddress,
  uri: string,
): Promise<unknown> {
  if (address.kind === "file") {
    const size = await services.files?.size(address.values.sha256);
    if (size === undefined) return await services.failure(uri, address, "list_files", notListed());
    if (typeof size === "number") return { sha256: address.values.sha256, size };
    const failure = size.missing
      ? { kind: "unknown-id" as const, text: `not found: file (${size.failure})` }
      : {
        kind: "transport" as const,
        text: size.failure,
      };
    return await services.failure(uri, address, "download", failure);
  }
  const { tool, arguments: args } = readCall(address);
  const reading = readOutcome(tool, await services.call(tool, args));
  return reading.ok ? reading.answer : await services.failure(uri, address, tool, reading.failure);
}

function notListed() {
  return { kind: "unknown-id" as const, text: "not found: the relay lists no such file for this key" };
}
