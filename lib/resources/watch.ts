// What a subscription to a resource watches on the relay's websocket: the Nostr filter whose new
// events change what a read of it shows. A room: every event its transcript shows, by its `h` tag;
// a thread: the replies that name its root (NIP-10's marked root, which every reply in a thread
// carries), in its room; a long task: the answers that name its request (43002 accepted, 43003
// progress, 43004 result, 43005 cancelled, 43006 error). Other kinds change too rarely to watch.
// Pure.

import type { Kind, ResourceAddress } from "./kinds.ts";

/** The kinds a room's transcript shows: messages, threads, replies, reactions, rich posts, edits, joins. */
export const ROOM_KINDS: readonly number[] = [9, 11, 12, 7, 40002, 40003, 44100, 44101];
/** The kinds of a reply in a thread. */
export const THREAD_KINDS: readonly number[] = [9, 12];
/** A long task's answers. */
export const JOB_KINDS: readonly number[] = [43002, 43003, 43004, 43005, 43006];

/** The kinds of resource that can be subscribed to. */
export const WATCHABLE: readonly Kind[] = ["room", "thread", "job"];

/**
 * The filter of the events that change `address`, from `since` (unix seconds: what came before is
 * history, not news); undefined for a kind that is not watched.
 */
export function watchFilter(address: ResourceAddress, since: number): Record<string, unknown> | undefined {
  const values = address.values;
  switch (address.kind) {
    case "room":
      return { kinds: [...ROOM_KINDS], "#h": [values.id], since };
    case "thread":
      return { kinds: [...THREAD_KINDS], "#e": [values.event], "#h": [values.id], since };
    case "job":
      return { kinds: [...JOB_KINDS], "#e": [values.id], since };
    default:
      return undefined;
  }
}
