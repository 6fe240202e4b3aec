// What the content generators share: a seeded random stream, throwaway keys derived from the seed
// (so the same seed gives the same keys, events and ids), signing, and small word lists.

import { finalizeEvent, getPublicKey, type NostrEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import type { Seed } from "./content_types.ts";

/** A throwaway key a generator signs with. Never use one for anything real. */
export interface GenKey {
  sk: Uint8Array;
  pk: string;
}

export interface GenOptions {
  /** The random seed (default 1): the same seed, the same content. */
  seed?: number;
  /** Unix seconds the content's first event is at (default 2026-01-01T00:00:00Z). */
  since?: number;
}

export const DEFAULT_SINCE = 1767225600;

/** A deterministic stream of numbers in [0, 1) (mulberry32). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer from 0 to n - 1. */
export const pickIndex = (rng: () => number, n: number) => Math.floor(rng() * n);
export const pick = <T>(rng: () => number, list: readonly T[]): T => list[pickIndex(rng, list.length)];

/** A shuffled copy (Fisher-Yates on the stream). */
export function shuffle<T>(rng: () => number, list: readonly T[]): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = pickIndex(rng, i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** `n` keys named by the seed and a label: the same arguments, the same keys. */
export function genKeys(n: number, seed: number, label: string): GenKey[] {
  return Array.from({ length: n }, (_, i) => {
    const sk = sha256(new TextEncoder().encode(`strict-relay content ${seed} ${label} ${i}`));
    return { sk, pk: getPublicKey(sk) };
  });
}

/** A signed event as plain JSON. */
export function sign(
  key: GenKey,
  kind: number,
  created_at: number,
  tags: string[][],
  content: string,
): NostrEvent {
  return JSON.parse(JSON.stringify(finalizeEvent({ kind, created_at, tags, content }, key.sk)));
}

/** A count argument: an integer from 0 to max. */
export function count(n: number, max: number, what: string): number {
  if (!Number.isInteger(n) || n < 0 || n > max) {
    throw new Error(`${what}: ${n} is not an integer from 0 to ${max}`);
  }
  return n;
}

/** Several seeds as one. */
export function mergeSeeds(...seeds: Seed[]): Seed {
  return {
    rooms: seeds.flatMap((s) => s.rooms ?? []),
    repositories: seeds.flatMap((s) => s.repositories ?? []),
    files: seeds.flatMap((s) => s.files ?? []),
    events: seeds.flatMap((s) => s.events ?? []),
  };
}

export const ADJECTIVES = [
  "amber",
  "brisk",
  "calm",
  "dusty",
  "eager",
  "foggy",
  "gentle",
  "hollow",
  "icy",
  "jolly",
  "keen",
  "lunar",
] as const;
export const NOUNS = [
  "harbor",
  "meadow",
  "forge",
  "lantern",
  "orchard",
  "quarry",
  "ridge",
  "signal",
  "tundra",
  "valley",
  "workshop",
  "beacon",
] as const;
export const PHRASES = [
  "the build is slow on cold caches",
  "a reply arrives twice after a reconnect",
  "the docs link to a moved page",
  "long names are cut in the list",
  "the retry waits longer than it says",
  "an empty room shows no hint",
  "the export drops the last line",
  "timestamps ignore the time zone",
] as const;
