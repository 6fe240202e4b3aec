// Markdown as the documentation checks read it (tests/support/doc_paths.ts, doc_flags.ts): its
// fenced blocks, its prose with the code spans blanked out, and the spans themselves, each with its
// line. Pure.

/** The fenced blocks whose lines are commands or their output, not data (yaml, json). */
const CODE_LANGS = new Set(["sh", "text", ""]);

const FENCE = /^```(\S*)\s*$/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;

export interface Line {
  n: number;
  text: string;
}

export interface Fence {
  line: number;
  lang: string;
  lines: Line[];
}

/** A code span: its first line, and its text with markdown's line breaks still in it. */
export interface Span {
  line: number;
  text: string;
}

/** A markdown file as the checks read it: its fences, its prose (spans blanked out), its spans. */
export interface Doc {
  fences: Fence[];
  paragraphs: Line[][];
  spans: Span[];
}

// --- Reading markdown ---------------------------------------------------------------------------

export function splitFences(markdown: string): { fences: Fence[]; prose: Line[] } {
  const lines = markdown.split("\n");
  const fences: Fence[] = [];
  const prose: Line[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) {
      prose.push({ n: i + 1, text: lines[i] });
      continue;
    }
    // A fence that never closes runs to the end of the file, as GitHub renders it.
    let end = lines.indexOf("```", i + 1);
    if (end < 0) end = lines.length;
    const body = lines.slice(i + 1, end).map((text, k) => ({ n: i + 2 + k, text }));
    fences.push({ line: i + 1, lang: open[1], lines: body });
    i = end;
  }
  return { fences, prose };
}

/** A line that is a block of its own: no code span or link continues into or out of it. */
function standalone(text: string): boolean {
  return HEADING.test(text) || /^\s*\|/.test(text) || /^\s*<!--/.test(text);
}

export function startsBlock(text: string): boolean {
  return standalone(text) || /^\s*(?:[-*+]|\d+[.)])\s/.test(text) || /^\s*>/.test(text);
}

/** The prose in paragraphs: the runs of lines markdown joins into one block. */
function paragraphs(prose: Line[]): Line[][] {
  const groups: Line[][] = [];
  let current: Line[] = [];
  let previous: Line | undefined;
  for (const line of prose) {
    const joined = previous !== undefined && previous.n === line.n - 1 && previous.text.trim() !== "" &&
      !standalone(previous.text) && !startsBlock(line.text);
    if (!joined && current.length > 0) {
      groups.push(current);
      current = [];
    }
    if (line.text.trim() !== "") current.push(line);
    previous = line;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

function backtickRun(text: string, from: number): { start: number; end: number } | undefined {
  const run = /`+/g;
  run.lastIndex = from;
  const found = run.exec(text);
  return found ? { start: found.index, end: found.index + found[0].length } : undefined;
}

/** Where the span opened by `length` backticks closes: a run of exactly as many, maybe lines later. */
function closingRun(par: Line[], i: number, from: number, length: number) {
  for (let j = i; j < par.length; j++) {
    const text = par[j].text;
    for (let run = backtickRun(text, j === i ? from : 0); run; run = backtickRun(text, run.end)) {
      if (run.end - run.start === length) return { line: j, start: run.start, end: run.end };
    }
  }
  return undefined;
}

/** The code spans of a paragraph, and the paragraph with each span blanked (so no link is read in one). */
function spansOf(par: Line[]): { spans: Span[]; masked: Line[] } {
  const masked = par.map((line) => ({ ...line }));
  const spans: Span[] = [];
  let i = 0;
  let col = 0;
  while (i < par.length) {
    const open = backtickRun(par[i].text, col);
    if (!open) {
      i++;
      col = 0;
      continue;
    }
    const close = closingRun(par, i, open.end, open.end - open.start);
    if (!close) {
      col = open.end; // an unmatched run is literal backticks
      continue;
    }
    const parts: string[] = [];
    for (let j = i; j <= close.line; j++) {
      const text = par[j].text;
      const from = j === i ? open.start : 0;
      const to = j === close.line ? close.end : text.length;
      const inner = text.slice(j === i ? open.end : 0, j === close.line ? close.start : text.length);
      parts.push(inner);
      masked[j].text = masked[j].text.slice(0, from) + " ".repeat(to - from) + masked[j].text.slice(to);
    }
    // In a table cell a pipe inside a span is written \|.
    const text = parts.join("\n");
    spans.push({ line: par[i].n, text: /^\s*\|/.test(par[i].text) ? text.replaceAll("\\|", "|") : text });
    i = close.line;
    col = close.end;
  }
  return { spans, masked };
}

export function scan(markdown: string): Doc {
  const { fences, prose } = splitFences(markdown);
  const doc: Doc = { fences, paragraphs: [], spans: [] };
  for (const par of paragraphs(prose)) {
    const { spans, masked } = spansOf(par);
    doc.spans.push(...spans);
    doc.paragraphs.push(masked);
  }
  return doc;
}

/** A span as one line of words: markdown's line break, and the indentation after it, one space. */
export function asWords(text: string): string {
  return text.replace(/[ \t]*\n[ \t]*/g, " ").trim();
}

/** A span as a path: a line break inside it, and the indentation after it, gone. */
export function asPath(text: string): string {
  return text.replace(/[ \t]*\n[ \t]*/g, "").trim();
}

/**
 * A fence's lines, each command line whole: a shell line ending in a backslash goes on on the next,
 * and in a usage block (not sh) an indented line of flags goes on the line above it.
 */
export function commandLines(fence: Fence): Line[] {
  const lines: Line[] = [];
  for (const { n, text } of fence.lines) {
    const last = lines.at(-1);
    if (last?.text.endsWith("\\")) last.text = `${last.text.slice(0, -1)} ${text}`;
    else if (last !== undefined && fence.lang !== "sh" && /^\s+[[-]/.test(text)) {
      last.text = `${last.text} ${text}`;
    } else lines.push({ n, text });
  }
  return lines;
}

/** The lines of code a reader would run or read as a command line: fences of CODE_LANGS, and every span. */
export function codeLines(doc: Doc): Line[] {
  const lines: Line[] = [];
  for (const fence of doc.fences) {
    if (CODE_LANGS.has(fence.lang)) lines.push(...commandLines(fence));
  }
  for (const span of doc.spans) lines.push({ n: span.line, text: asWords(span.text) });
  return lines.sort((a, b) => a.n - b.n);
}
