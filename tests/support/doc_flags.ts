// The documentation names only tinyagent commands and flags that exist: in its code, every
// `tinyagent <command>` and the flags after it are ones the CLI takes (the CLI itself is the
// arbiter), a bare span of flags names tinyagent's or another program's listed here, and the CLI
// reference lists exactly each command's --help flags. Pure; problems as in doc_paths.ts.

import { parseCommand, type Topic, UsageError } from "../../lib/cli/args.ts";
import { USAGE } from "../../lib/cli/usage.ts";
import { asWords, codeLines, type Line, scan, splitFences } from "./markdown_scan.ts";

/** Programs other than tinyagent, each with the flags the docs name; `source`: the checkout's script. */
export type OtherFlags = Readonly<Record<string, { flags: readonly string[]; source?: string }>>;

/**
 * Flags the docs name in a bare code span (or on a `deno task` line) that are not tinyagent's, and
 * only those (tests/docs_names_test.ts drops each in turn: some doc must then fail). An entry with a
 * `source` is the checkout's own script, and each flag must occur in that file, so renaming one
 * there fails until the docs follow.
 */
export const OTHER_FLAGS: OtherFlags = {
  "deno task relay": {
    flags: ["--port", "--prefix", "--pubkey", "--seed"],
    source: "tests/support/strict_relay/main.ts",
  },
  "deno task bench": { flags: ["--quick", "--only", "--baseline"], source: "bench/bench.ts" },
  "deno task demo": { flags: ["--bin"], source: "demo/demo.ts" },
  "deno task package": { flags: ["--all", "--repo"], source: "scripts/package.ts" },
  "deno task compile": { flags: [], source: "scripts/compile.ts" },
  curl: { flags: ["--proto", "--tlsv1.2"] },
  wget: { flags: ["--https-only"] },
  gh: { flags: ["--bundle"] },
  hermes: { flags: ["--args"] },
  deno: {
    flags: [
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "--unstable-worker-options",
      "--no-prompt",
      // The V8 flags the start task adds, and those docs/performance.md says were measured and left.
      "--v8-flags",
      "--wasm-tiering-budget",
      "--max-semi-space-size",
      "--no-code-cache",
      "--liftoff-only",
      "--expose-gc",
      "--optimize-for-size",
    ],
  },
};

/** The `deno task` names whose flags are checked: each runs the script named in OTHER_FLAGS. */
const CHECKED_TASKS = ["relay", "bench", "demo", "package", "compile"];

const FLAG = /(?<![\w-])--[a-z][a-z0-9-]*(?:\.\d+)*/g;
const COMMAND_WORD = /^[a-z][a-z-]*$/;
const TINYAGENT = /(?<![\w/.-])tinyagent(?=[ \t])/g;
const DENO_TASK = /(?<![\w/.-])deno task ([a-z][a-z-]*)/g;

// --- 4 and 5: tinyagent's commands and their flags ----------------------------------------------

/** Every `--x` named in `text`, once each, in order. */
export function flagsNamed(text: string): string[] {
  return [...new Set(text.match(FLAG) ?? [])];
}

/** The flags a command's --help names. */
export function helpFlags(topic: Topic): Set<string> {
  return new Set(flagsNamed(USAGE[topic]));
}

/**
 * The flags a command takes: its help's, `--help` (every command's parser takes it, though the
 * help of keygen and whoami does not say so), and for config every flag of mcp: session_args.ts's
 * configCommand parses mcp's flags, and the main help says "[the flags mcp would get]".
 */
export function commandFlags(topic: Topic): Set<string> {
  const flags = new Set([...helpFlags(topic), "--help"]);
  if (topic === "config") { for (const flag of helpFlags("mcp")) flags.add(flag); }
  return flags;
}

/** The topic of a tinyagent command word, as the CLI itself parses it; undefined for no command. */
export function commandTopic(word: string): Topic | "help" | "version" | undefined {
  if (word === "help" || word === "version") return word;
  try {
    const command = parseCommand([word, "--help"]);
    return command.command === "help" && command.topic !== "main" ? command.topic : undefined;
  } catch (error) {
    if (error instanceof UsageError) return undefined;
    throw error;
  }
}

/**
 * The words of a command line, quotes taken off, up to where the command ends: a pipe, `;`, `&`,
 * `)`, a redirection, a comment, or the backtick closing a span.
 */
function words(text: string): string[] {
  const found: string[] = [];
  let word = "";
  let quote: string | undefined;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else word += c;
    } else if (c === "'" || c === '"') quote = c;
    else if (/\s/.test(c)) {
      if (word !== "") found.push(word);
      word = "";
    } else if (c === "(" || (c === ")" && depth > 0)) {
      depth += c === "(" ? 1 : -1; // a parenthesis the command line opened, as in a usage line's (default …)
      word += c;
    } else if (c === "|" && word !== "" && /[^\s|]/.test(text[i + 1] ?? " ")) word += c; // a|b: alternatives
    else if ("|;&)>`".includes(c) || (c === "#" && word === "")) break;
    else word += c;
  }
  if (word !== "") found.push(word);
  return found;
}

/** The flags among a command's words (`[--x` as a usage line writes it; `=value` left off). */
function flagWords(text: string): string[] {
  return words(text).flatMap((word) => /^[[(]*(--[a-z][a-z0-9-]*(?:\.\d+)*)/.exec(word)?.[1] ?? []);
}

/**
 * `tinyagent -x` where tinyagent starts a command (not where it is a value, as in hermes'
 * `--command tinyagent --env …`): -x must be one of its own (--version, --help and their short forms).
 */
function ownFlagProblem(file: string, { n, text }: Line, at: number): string | undefined {
  const flag = /^[ \t]+(-[^\s;|&)`'"<>[\]]*)/.exec(text.slice(at + "tinyagent".length))?.[1];
  if (flag === undefined || !/(?:^|[|;&(]|\s--|\bexec)\s*$/.test(text.slice(0, at))) return undefined;
  try {
    const command = parseCommand([flag]).command;
    if (command === "help" || command === "version") return undefined;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
  }
  return `${file}:${n}: tinyagent ${flag}: not a flag of tinyagent itself`;
}

function tinyagentProblems(file: string, line: Line): string[] {
  const { n, text } = line;
  const problems: string[] = [];
  for (const match of text.matchAll(TINYAGENT)) {
    const own = ownFlagProblem(file, line, match.index);
    if (own !== undefined) problems.push(own);
    const rest = text.slice(match.index + "tinyagent".length);
    const token = /^[ \t]+([^\s;|&)`'"<>[\]]+)/.exec(rest);
    const word = token?.[1].replace(/[.,:!?]+$/, "");
    if (token === null || word === undefined || !COMMAND_WORD.test(word)) continue;
    const topic = commandTopic(word);
    if (topic === undefined) problems.push(`${file}:${n}: tinyagent ${word}: no such command`);
    if (topic === undefined || topic === "help" || topic === "version") continue;
    const takes = commandFlags(topic);
    for (const flag of flagWords(rest.slice(token.index + token[0].indexOf(word) + word.length))) {
      if (!takes.has(flag)) problems.push(`${file}:${n}: tinyagent ${word}: ${flag} is not one of its flags`);
    }
  }
  return problems;
}

function taskProblems(file: string, { n, text }: Line, others: OtherFlags): string[] {
  const problems: string[] = [];
  for (const match of text.matchAll(DENO_TASK)) {
    const task = match[1];
    if (!CHECKED_TASKS.includes(task)) continue;
    const entry = others[`deno task ${task}`];
    for (const flag of flagWords(text.slice(match.index + match[0].length))) {
      if (!entry?.flags.includes(flag)) {
        problems.push(`${file}:${n}: deno task ${task}: ${flag} is not one of its flags in OTHER_FLAGS`);
      }
    }
  }
  return problems;
}

/**
 * In code (fences of sh, text or no language, and code spans): every `tinyagent WORD` names a
 * command, and every flag after it, to the end of that command line, is one of that command's;
 * every flag after `deno task relay|bench|demo|package|compile` is that script's, in OTHER_FLAGS.
 */
export function commandProblems(file: string, markdown: string, others = OTHER_FLAGS): string[] {
  const problems: string[] = [];
  for (const line of codeLines(scan(markdown))) {
    problems.push(...tinyagentProblems(file, line), ...taskProblems(file, line, others));
  }
  return [...new Set(problems)];
}

// --- 6: bare flags ------------------------------------------------------------------------------

/** Every flag a bare span may name: every tinyagent command's, and OTHER_FLAGS'. */
function knownFlags(others: OtherFlags): Set<string> {
  const known = new Set<string>();
  for (const topic of Object.keys(USAGE) as Topic[]) for (const flag of commandFlags(topic)) known.add(flag);
  for (const { flags } of Object.values(others)) for (const flag of flags) known.add(flag);
  return known;
}

/** A code span that starts with `--` names flags: each is tinyagent's or in OTHER_FLAGS. */
export function bareFlagProblems(file: string, markdown: string, others = OTHER_FLAGS): string[] {
  const known = knownFlags(others);
  const problems: string[] = [];
  for (const span of scan(markdown).spans) {
    const text = asWords(span.text);
    if (!text.startsWith("--")) continue;
    for (const flag of flagsNamed(text)) {
      if (!known.has(flag)) {
        problems.push(
          `${file}:${span.line}: ${flag}: not a flag of any tinyagent command, nor in OTHER_FLAGS`,
        );
      }
    }
  }
  return problems;
}

/** Each OTHER_FLAGS flag of the checkout's own scripts occurs in that script. */
export function otherFlagSourceProblems(
  sourceOf: (path: string) => string | undefined,
  others: OtherFlags = OTHER_FLAGS,
): string[] {
  const problems: string[] = [];
  for (const [program, { flags, source }] of Object.entries(others)) {
    if (source === undefined) continue;
    const text = sourceOf(source);
    if (text === undefined) {
      problems.push(`OTHER_FLAGS: ${program}: ${source} cannot be read`);
      continue;
    }
    for (const flag of flags) {
      if (!text.includes(flag)) problems.push(`OTHER_FLAGS: ${program}: ${flag} does not occur in ${source}`);
    }
  }
  return problems;
}

/**
 * The OTHER_FLAGS flags no doc needs: taken out one at a time, none of `docs` (file and text) gets a
 * problem more, so the list holds only what the docs use.
 */
export function unneededOtherFlags(
  docs: readonly (readonly [string, string])[],
  others = OTHER_FLAGS,
): string[] {
  const count = (list: OtherFlags) =>
    docs.reduce(
      (sum, [file, text]) =>
        sum + bareFlagProblems(file, text, list).length + commandProblems(file, text, list).length,
      0,
    );
  const base = count(others);
  const unneeded: string[] = [];
  for (const [program, entry] of Object.entries(others)) {
    for (const flag of entry.flags) {
      const without = {
        ...others,
        [program]: { ...entry, flags: entry.flags.filter((other) => other !== flag) },
      };
      if (count(without) === base) unneeded.push(`OTHER_FLAGS: ${program}: ${flag} is needed by no doc`);
    }
  }
  return unneeded;
}

// --- 8: the CLI reference -----------------------------------------------------------------------

/** The flags named in each `## ` section, in its code spans, fences and tables. */
function sectionFlags(markdown: string): Map<string, Set<string>> {
  const doc = scan(markdown);
  const { prose } = splitFences(markdown);
  const headings = prose.filter((line) => /^## /.test(line.text));
  const sections = new Map<string, Set<string>>(headings.map((line) => [line.text.trimEnd(), new Set()]));
  const add = (n: number, text: string) => {
    const heading = headings.findLast((line) => line.n <= n);
    if (heading !== undefined) {
      for (const flag of flagsNamed(text)) sections.get(heading.text.trimEnd())?.add(flag);
    }
  };
  for (const span of doc.spans) add(span.line, asWords(span.text));
  for (const fence of doc.fences) add(fence.line, fence.lines.map((line) => line.text).join("\n"));
  for (const line of prose) if (/^\s*\|/.test(line.text)) add(line.n, line.text);
  return sections;
}

/**
 * docs/cli.md has a section "## `tinyagent <topic>`" for each command, and the flags it names are
 * exactly those of the command's --help. `--help` itself is neither required nor refused.
 */
export function cliReferenceProblems(markdown: string, file = "docs/cli.md"): string[] {
  const sections = sectionFlags(markdown);
  const problems: string[] = [];
  for (const topic of Object.keys(USAGE) as Topic[]) {
    if (topic === "main") continue;
    const heading = `## \`tinyagent ${topic}\``;
    const named = sections.get(heading);
    if (named === undefined) {
      problems.push(`${file}: no section "${heading}"`);
      continue;
    }
    for (const flag of helpFlags(topic)) {
      if (flag !== "--help" && !named.has(flag)) {
        problems.push(`${file}: tinyagent ${topic}: ${flag} is in its --help but not in this section`);
      }
    }
    const takes = commandFlags(topic);
    for (const flag of named) {
      if (!takes.has(flag)) {
        problems.push(
          `${file}: tinyagent ${topic}: ${flag} is named here but is not a flag of tinyagent ${topic}`,
        );
      }
    }
  }
  return problems;
}
