// A fake of the relay's file download the file pieces read (lib/resources/file_pieces.ts Download):
// files by SHA-256, one byte range honoured as Go's ServeContent honours it (the end clamped to the
// last byte, 416 past it), or, told so, the whole file whatever Range asks; the answer bounded as
// SignedHttp bounds it (over `max`: too large, not read); every request recorded.

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { Download, DownloadReply } from "../../lib/resources/file_pieces.ts";

export interface FakeDownload {
  download: Download;
  /** Each request: its path and range ("whole" when none). */
  asked: string[];
  /** Sends every file whole, as a store that cannot seek does. */
  ignoreRange: boolean;
  /** Answers with other bytes than the file's (a relay gone wrong). */
  corrupt: boolean;
}

export function fileOf(bytes: Uint8Array): { sha: string; bytes: Uint8Array } {
  return { sha: bytesToHex(sha256(bytes)), bytes };
}

export function fakeDownload(files: Uint8Array[], type = "application/octet-stream"): FakeDownload {
  const byHash = new Map(files.map((bytes) => [bytesToHex(sha256(bytes)), bytes]));
  const fake: FakeDownload = {
    asked: [],
    ignoreRange: false,
    corrupt: false,
    download: (path, range, max) => {
      fake.asked.push(`${path} ${range ? `${range.first}-${range.last}` : "whole"}`);
      const hash = /^\/files\/raw\?hash=([0-9a-f]{64})$/.exec(path)?.[1];
      const found = hash === undefined ? undefined : byHash.get(hash);
      const answer = (status: number, bytes: Uint8Array, headers: [string, string][] = []): DownloadReply =>
        bytes.length > max
          ? { ok: false, error: `the answer is over ${max} bytes`, tooLarge: true }
          : { ok: true, status, headers: new Map([["content-type", type], ...headers]), bytes };
      if (!found) return Promise.resolve(answer(404, new TextEncoder().encode("file does not exist\n")));
      const file = fake.corrupt ? found.map((b) => b ^ 1) : found;
      if (!range || fake.ignoreRange) return Promise.resolve(answer(200, file));
      if (range.first >= file.length) {
        return Promise.resolve(answer(416, new Uint8Array(), [["content-range", `bytes */${file.length}`]]));
      }
      const last = Math.min(range.last, file.length - 1);
      return Promise.resolve(
        answer(206, file.subarray(range.first, last + 1), [[
          "content-range",
          `bytes ${range.first}-${last}/${file.length}`,
        ]]),
      );
    },
  };
  return fake;
}
