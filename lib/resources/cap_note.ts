// A read over its cap never dead-ends: in place of a wall, a short note saying how big the thing is
// and the URIs of its pieces to read next — of a text, its lines in pieces under the cap; of a file,
// byte ranges, and for a text file its first and last lines — with the templates to make others.
// Pure.

import { DEFAULT_LINES, DEFAULT_RANGE_BYTES, formatQuery, type ReadQuery, type Span } from "./query.ts";
import { code } from "./markdown.ts";
import { count } from "./text.ts";

/** A text read (markdown) longer than this many characters is read in pieces. */
export const TEXT_CAP = 256 * 1024;
/** At most this many piece URIs are named; the last piece is always among them. */
const NAMED = 8;

export interface CapNote {
  markdown: string;
  /** The same, for `?as=json`. */
  json: Record<string, unknown>;
}

/** The pieces named: the first few, then the last. */
function named(pieces: readonly Span[]): Span[] {
  return pieces.length <= NAMED ? [...pieces] : [...pieces.slice(0, NAMED - 1), pieces[pieces.length - 1]];
}

function withQuery(plain: string, query: ReadQuery): string {
  return `${plain}${formatQuery(query)}`;
}

/** The note for a text read of `size` characters in `lines` lines, read in `pieces` (spans of lines). */
export function textNote(plain: string, size: number, lines: number, pieces: readonly Span[]): CapNote {
  const uris = named(pieces).map((lines) => withQuery(plain, { as: "markdown", lines }));
  const markdown = [
    `This read is ${count(size)} characters in ${count(lines)} lines, over the cap of ${
      count(TEXT_CAP)
    } for one read, so it comes in ${count(pieces.length)} pieces of whole lines:`,
    "",
    ...uris.map((uri) => `- ${code(uri, 2100)}`),
    "",
    `Any other span reads as ${code(`${plain}{?lines}`, 2100)} (lines=FIRST-LAST, counted from 1).`,
  ].join("\n") + "\n";
  return {
    markdown,
    json: { uri: plain, size, lines, cap: TEXT_CAP, pieces: uris, template: `${plain}{?lines}` },
  };
}

/** What is known of a file too big to read whole. */
export interface BigFile {
  size: number;
  type?: string;
  /** Known once the file was read through: whether it is text, and its lines. */
  text?: boolean;
  lines?: number;
}

/** The note for a file too big for one read: its size, byte ranges to read, and its lines when text. */
export function fileNote(plain: string, file: BigFile): CapNote {
  const ranges: Span[] = [];
  for (let first = 0; first < file.size; first += DEFAULT_RANGE_BYTES) {
    ranges.push({ first, last: Math.min(file.size, first + DEFAULT_RANGE_BYTES) - 1 });
  }
  const rangeUris = named(ranges).map((range) => withQuery(plain, { as: "markdown", range }));
  const lineUris: string[] = [];
  if (file.text && file.lines !== undefined && file.lines > 0) {
    const head = { first: 1, last: Math.min(file.lines, DEFAULT_LINES) };
    const tail = { first: Math.max(1, file.lines - DEFAULT_LINES + 1), last: file.lines };
    lineUris.push(withQuery(plain, { as: "markdown", lines: head }));
    if (tail.first > head.last) lineUris.push(withQuery(plain, { as: "markdown", lines: tail }));
  }
  const what = [
    `${count(file.size)} bytes`,
    ...(file.type ? [file.type] : []),
    ...(file.text && file.lines !== undefined ? [`${count(file.lines)} lines of text`] : []),
  ].join(", ");
  const markdown = [
    `This file is too big to read whole (${what}). Read it in pieces:`,
    "",
    ...(lineUris.length > 0
      ? [
        `Its first and last ${DEFAULT_LINES} lines:`,
        "",
        ...lineUris.map((uri) => `- ${code(uri, 2100)}`),
        "",
      ]
      : []),
    `Its bytes, ${count(DEFAULT_RANGE_BYTES)} at a time (${count(ranges.length)} pieces):`,
    "",
    ...rangeUris.map((uri) => `- ${code(uri, 2100)}`),
    "",
    `Any other piece reads as ${code(`${plain}{?range}`, 2100)} (range=START-END, bytes from 0, both ` +
    `included)${file.text === false ? "" : ` or ${code(`${plain}{?lines}`, 2100)} (lines=FIRST-LAST)`}.`,
  ].join("\n") + "\n";
  const json: Record<string, unknown> = { uri: plain, ...file, pieces: rangeUris };
  if (lineUris.length > 0) json.linePieces = lineUris;
  json.templates = [`${plain}{?range}`, ...(file.text === false ? [] : [`${plain}{?lines}`])];
  return { markdown, json };
}
