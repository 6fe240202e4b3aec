/**
 * The documentation names only things that exist and links only to things that exist: each check
 * of tests/support/doc_paths.ts and doc_flags.ts first fails on small hostile samples (a link pointing nowhere, a
 * renamed flag, a missing file, a CLI reference out of step with --help), then passes on every file
 * of DOCS. A link or path counts when it resolves on a clean clone: the files git tracks, plus the
 * new ones not yet committed and not ignored (`git ls-files --cached --others --exclude-standard`,
 * less those deleted from the work tree).
 *
 * Run: deno test --allow-net=127.0.0.1 --allow-env --allow-run --allow-read --allow-write tests/docs_names_test.ts
 */
import assert from "node:assert/strict";
import { parseCommand, type Topic, UsageError } from "../lib/cli/args.ts";
import { USAGE } from "../lib/cli/usage.ts";
import { DOCS } from "./support/docs.ts";
import {
  bareFlagProblems,
  cliReferenceProblems,
  commandFlags,
  commandProblems,
  helpFlags,
  OTHER_FLAGS,
  otherFlagSourceProblems,
  unneededOtherFlags,
} from "./support/doc_flags.ts";
import {
  anchors,
  fileProblems,
  fileTree,
  GENERATED,
  linkProblems,
  mapProblems,
  readmeLengthProblems,
  slug,
} from "./support/doc_paths.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const decoder = new TextDecoder();
const FENCE = "```";

async function git(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await new Deno.Command("git", {
    args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** The paths of a clean clone once the work tree is committed: tracked or new, not ignored, not deleted. */
async function checkoutFiles(): Promise<string[]> {
  const list = async (...args: string[]) => {
    const { code, stdout, stderr } = await git("ls-files", "-z", ...args);
    assert.equal(code, 0, stderr);
    return stdout.split("\0").filter((path) => path !== "");
  };
  const deleted = new Set(await list("--deleted"));
  return (await list("--cached", "--others", "--exclude-standard")).filter((path) => !deleted.has(path));
}

function readText(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(`${ROOT}${path}`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

const SAMPLE_TREE = fileTree([
  "README.md",
  "CONTRIBUTING.md",
  "docs/cli.md",
  "docs/install.md",
  "lib/cli/args.ts",
  "lib/session/tool_session.ts",
  "main.ts",
]);

const SAMPLE_CLI = [
  "# The command line",
  "",
  "## `tinyagent mcp`: the flags, *all* of them!",
  "",
  "## Setup",
  "",
  "## Setup",
  "",
  `${FENCE}sh`,
  "# Not a heading",
  FENCE,
  "",
  "## Ünïcode — and_more",
].join("\n");

Deno.test("anchors: GitHub's slugs, markup dropped, repeats numbered, fenced headings not counted", () => {
  assert.equal(slug("`tinyagent mcp`: the flags, *all* of them!"), "tinyagent-mcp-the-flags-all-of-them");
  assert.equal(slug("See [the CLI](docs/cli.md) — now"), "see-the-cli--now");
  assert.deepEqual([...anchors(SAMPLE_CLI)], [
    "the-command-line",
    "tinyagent-mcp-the-flags-all-of-them",
    "setup",
    "setup-1",
    "ünïcode--and_more",
  ]);
});

Deno.test("links: a missing file, a fragment no heading has, and links outside the checkout fail", () => {
  const readme = [
    "# Top",
    "See [the CLI](docs/cli.md) and [a page](docs/nope.md).",
    "[flags](docs/cli.md#tinyagent-mcp-the-flags-all-of-them), [again](docs/cli.md#setup-1),",
    "[a third](docs/cli.md#setup-2) and [fenced](docs/cli.md#not-a-heading).",
    "`[in a span](docs/nope.md)` and [web](https://example.invalid/nope) and [self](#top), [bad self](#bottom)",
    "[a link whose text",
    "wraps](docs/install.md) and [another whose text",
    "wraps](docs/gone.md)",
    `${FENCE}sh`,
    "echo [in a fence](docs/nope.md)",
    FENCE,
    "![a picture](docs/none.png) [up](../outside.md) [a folder](lib/cli/) [code](lib/cli/args.ts#L10)",
    "",
    "[ref]: lib/cli/nope.ts",
    "[ok]: ./docs/install.md",
  ].join("\n");
  const markdownOf = (path: string) => path === "docs/cli.md" ? SAMPLE_CLI : undefined;
  assert.deepEqual(linkProblems("README.md", readme, SAMPLE_TREE, markdownOf), [
    "README.md:2: link docs/nope.md: docs/nope.md is not a file or folder of the checkout",
    "README.md:4: link docs/cli.md#setup-2: no heading of docs/cli.md has the anchor #setup-2",
    "README.md:4: link docs/cli.md#not-a-heading: no heading of docs/cli.md has the anchor #not-a-heading",
    "README.md:5: link #bottom: no heading of README.md has the anchor #bottom",
    "README.md:8: link docs/gone.md: docs/gone.md is not a file or folder of the checkout",
    "README.md:12: link docs/none.png: docs/none.png is not a file or folder of the checkout",
    "README.md:12: link ../outside.md: it points outside the checkout",
    "README.md:14: link lib/cli/nope.ts: lib/cli/nope.ts is not a file or folder of the checkout",
  ]);
  const page = "[back](../README.md#top) [home](../README.md#nowhere) [sibling](install.md)";
  assert.deepEqual(linkProblems("docs/cli.md", page, SAMPLE_TREE, () => readme), [
    "docs/cli.md:1: link ../README.md#nowhere: no heading of README.md has the anchor #nowhere",
  ]);
});

Deno.test("commands: a command tinyagent lacks, or a renamed flag, fails in a block and in a span", () => {
  const markdown = [
    `${FENCE}sh`,
    "tinyagent frobnicate --relay X",
    "tinyagent mcp --relay X --max-write 3",
    "claude mcp add -s user tiny --env 'K=${K}' -- tinyagent mcp --relay X --allow-writes",
    "hermes mcp add tiny --command tinyagent --env 'K=${K}' --args mcp --relay X",
    `tinyagent keygen >> ~/.env && "$(tinyagent whoami | sed 's/--x//')"   # tinyagent whoami --json`,
    "tinyagent config hermes --relay X --listen general --allow-from K --name tiny --key-file /k \\",
    "  --max-writes 5",
    "tinyagent rpc --relay X --allow-writes",
    "deno task relay --port 1 --pubkey K --nope",
    FENCE,
    `${FENCE}yaml`,
    "tinyagent frobnicate",
    FENCE,
    "Run `tinyagent mcp --max-write 3`, `tinyagent mcp",
    "  --allow-writes`, `tinyagent --version`, `tinyagent -v`, `tinyagent <command> --help`, `bin/tinyagent nope`",
    'or `tinyagent call --relay X list_rooms \'{"a": "--b"}\' --json` and `tinyagent tools` and `tinyagent help`.',
    `${FENCE}text`,
    "tinyagent diagnose --relay URL [--rooms a,b] [--kinds 9,11] [--verbose]",
    "tinyagent mcp --relay URL [--timeout SECONDS (default 120)]",
    "              [--confirm-via host|relay] [--max-write N]",
    "tinyagent -v | --version",
    FENCE,
    "`tinyagent --versoin`, `tinyagent config claude-code|hermes --relay URL --nope`, `exec tinyagent -x`",
  ].join("\n");
  assert.deepEqual(commandProblems("docs/x.md", markdown), [
    "docs/x.md:2: tinyagent frobnicate: no such command",
    "docs/x.md:3: tinyagent mcp: --max-write is not one of its flags",
    "docs/x.md:6: tinyagent whoami: --json is not one of its flags",
    "docs/x.md:9: tinyagent rpc: --allow-writes is not one of its flags",
    "docs/x.md:10: deno task relay: --nope is not one of its flags in OTHER_FLAGS",
    "docs/x.md:15: tinyagent mcp: --max-write is not one of its flags",
    "docs/x.md:19: tinyagent diagnose: --verbose is not one of its flags",
    "docs/x.md:20: tinyagent mcp: --max-write is not one of its flags",
    "docs/x.md:24: tinyagent --versoin: not a flag of tinyagent itself",
    "docs/x.md:24: tinyagent config: --nope is not one of its flags",
    "docs/x.md:24: tinyagent -x: not a flag of tinyagent itself",
  ]);
});

Deno.test("commands: config takes every flag mcp takes, as session_args.ts parses it", () => {
  for (const flag of helpFlags("mcp")) assert.ok(commandFlags("config").has(flag), flag);
  assert.ok(!commandFlags("tools").has("--listen"));
  assert.ok(commandFlags("keygen").has("--help"));
});

/**
 * The ways a probe gives a flag: first (the parser names an unknown flag where it meets it, before
 * any value is checked), and after a relay with a value after it, for a command that takes one.
 */
function probes(topic: string, flag: string): string[][] {
  const first = [topic, flag];
  const takesRelay = topic !== "keygen" && topic !== "whoami";
  return takesRelay ? [first, [topic, "--relay", "http://127.0.0.1:9", flag, "1"]] : [first];
}

function unknownFlag(argv: string[]): string | undefined {
  try {
    parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    if (/unknown flag/.test(error.message)) return `${argv.join(" ")}: ${error.message}`;
  }
  return undefined;
}

Deno.test("every flag in every command's --help is one its parser takes", () => {
  const refused: string[] = [];
  for (const topic of Object.keys(USAGE) as Topic[]) {
    if (topic === "main") continue;
    for (const flag of commandFlags(topic)) {
      refused.push(...probes(topic, flag).flatMap((argv) => unknownFlag(argv) ?? []));
    }
  }
  // The main help's usage lines: each flag on a command's line (or the lines indented under it) is that command's.
  let command: string | undefined;
  for (const line of USAGE.main.split("\n")) {
    const start = /^ {2}tinyagent ([a-z][a-z-]*)/.exec(line);
    if (start) command = start[1];
    else if (!/^ {4,}/.test(line)) command = undefined;
    if (command === undefined) continue;
    for (const flag of line.match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? []) {
      refused.push(...probes(command, flag).flatMap((argv) => unknownFlag(argv) ?? []));
    }
  }
  assert.deepEqual(refused, []);
  assert.deepEqual(parseCommand(["--version"]), { command: "version" });
  assert.deepEqual(parseCommand(["--help"]), { command: "help", topic: "main" });
});

Deno.test("bare flags: a span of flags names tinyagent's or OTHER_FLAGS' only", () => {
  const markdown = [
    "`--nope`, `--max-writes N`, `--allow-writes=true|false`, `--confirm-via relay`, `--proto '=https' --tlsv1.2`",
    "| `--allow-writes=true\\|false` | `--max-writes N --bogus` |",
    "`--tools a,b`, `--kinds\n  9,12 --frob`, `deno --nope` (not bare), `--name` and `--key-file` (config's)",
  ].join("\n");
  assert.deepEqual(bareFlagProblems("docs/x.md", markdown), [
    "docs/x.md:1: --nope: not a flag of any tinyagent command, nor in OTHER_FLAGS",
    "docs/x.md:2: --bogus: not a flag of any tinyagent command, nor in OTHER_FLAGS",
    "docs/x.md:3: --frob: not a flag of any tinyagent command, nor in OTHER_FLAGS",
  ]);
});

Deno.test("OTHER_FLAGS: a flag its script no longer has, or no doc needs, fails", () => {
  const others = {
    "deno task relay": { flags: ["--port", "--host"], source: "tests/support/strict_relay/main.ts" },
    "deno task gone": { flags: ["--x"], source: "scripts/gone.ts" },
    curl: { flags: ["--anything"] },
  };
  const sources: Record<string, string> = { "tests/support/strict_relay/main.ts": `"--port": (v) => v` };
  assert.deepEqual(otherFlagSourceProblems((path) => sources[path], others), [
    "OTHER_FLAGS: deno task relay: --host does not occur in tests/support/strict_relay/main.ts",
    "OTHER_FLAGS: deno task gone: scripts/gone.ts cannot be read",
  ]);
  const docs = [[
    "README.md",
    "`curl --anything` and `--anything`, then `deno task relay --port 1`",
  ]] as const;
  assert.deepEqual(unneededOtherFlags(docs, others), [
    "OTHER_FLAGS: deno task relay: --host is needed by no doc",
    "OTHER_FLAGS: deno task gone: --x is needed by no doc",
  ]);
});

Deno.test("files: a span naming a path of the checkout names one that exists", () => {
  const markdown = [
    "`lib/nope.ts` is gone, `lib/cli/args.ts` is not (`lib/cli/`), nor `lib/session/",
    "  tool_session.ts`; `tests/<layer>/<module>_test.ts` and `lib/*.ts` are patterns,",
    "`bench/results/` and `dist/commit.txt` are built, `~/.hermes/.env` and `tinyagent/hermes/` are elsewhere,",
    "`main.ts` and `CONTRIBUTING.md` exist, `docs/gone.md` and `deno.json` do not, `lib/cli/args.ts/` is no folder.",
    `${FENCE}sh`,
    "cat lib/nope.ts",
    FENCE,
  ].join("\n");
  assert.deepEqual(fileProblems("README.md", markdown, SAMPLE_TREE), [
    "README.md:1: lib/nope.ts: no such file or folder in the checkout",
    "README.md:4: docs/gone.md: no such file or folder in the checkout",
    "README.md:4: deno.json: no such file or folder in the checkout",
    "README.md:4: lib/cli/args.ts/: no such file or folder in the checkout",
  ]);
});

/** A CLI reference that is right: each command's section holds its help. */
function cliReference(replace: Partial<Record<Topic, string | null>> = {}): string {
  const sections = (Object.keys(USAGE) as Topic[]).filter((topic) => topic !== "main").map((topic) => {
    const body = replace[topic];
    if (body === null) return "";
    return `## \`tinyagent ${topic}\`\n\n${
      body ?? `${FENCE}text\n${USAGE[topic]}\n${FENCE}`
    }\n\n### Examples\n`;
  });
  return `# The command line\n\n${sections.join("\n")}`;
}

Deno.test("the CLI reference: a section per command, naming exactly its --help's flags", () => {
  assert.deepEqual(cliReferenceProblems(cliReference()), []);
  const mcpFlags = [...helpFlags("mcp")].filter((flag) => flag !== "--max-writes");
  const table = [
    "| flag | meaning |",
    "| ---- | ------- |",
    ...mcpFlags.map((flag) => `| \`${flag} X\` | … |`),
  ];
  const broken = cliReference({
    mcp: [...table, "| `--max-write N` | the budget |"].join("\n"),
    whoami: null,
    keygen: "`tinyagent keygen --json`, and `--help`",
    config: `${FENCE}text\n${USAGE.config}\n${FENCE}\n\nAnd every flag of mcp, such as \`--listen a,b\`.`,
  });
  assert.deepEqual(cliReferenceProblems(broken), [
    "docs/cli.md: tinyagent mcp: --max-writes is in its --help but not in this section",
    "docs/cli.md: tinyagent mcp: --max-write is named here but is not a flag of tinyagent mcp",
    'docs/cli.md: no section "## `tinyagent whoami`"',
  ]);
});

Deno.test("the README and the map: at most 250 lines, every page in DOCS and linked from the README", () => {
  assert.deepEqual(readmeLengthProblems("line\n".repeat(250)), []);
  assert.deepEqual(readmeLengthProblems(`${"line\n".repeat(249)}line`), []);
  assert.deepEqual(readmeLengthProblems("line\n".repeat(251)), ["README.md: 251 lines, more than 250"]);
  const tree = fileTree(["README.md", "docs/a.md", "docs/c.md", "docs/deep/d.md", "CONTRIBUTING.md"]);
  const docs = ["README.md", "docs/a.md", "docs/b.md", "CONTRIBUTING.md"];
  const readme = "[a](docs/a.md#x), [b](./docs/b.md), `[c](CONTRIBUTING.md)`";
  assert.deepEqual(mapProblems(docs, tree, readme), [
    "docs/c.md: not in DOCS (tests/support/docs.ts)",
    "docs/deep/d.md: not in DOCS (tests/support/docs.ts)",
    "docs/b.md: in DOCS (tests/support/docs.ts) but not in the checkout",
    "README.md: no link to CONTRIBUTING.md",
  ]);
});

Deno.test("the documentation names only what exists and links only to what exists", async (t) => {
  const tree = fileTree(await checkoutFiles());
  const present = DOCS.filter((file) => tree.files.has(file) && readText(file) !== undefined);
  const text = (file: string) => readText(file) ?? "";
  const each = (check: (file: string, markdown: string) => string[]) =>
    present.flatMap((file) => check(file, text(file)));
  const none = (problems: string[]) => assert.deepEqual(problems, [], `\n${problems.join("\n")}`);
  const markdownOf = (path: string) => tree.files.has(path) ? readText(path) : undefined;

  await t.step("README.md is at most 250 lines", () => none(readmeLengthProblems(text("README.md"))));
  await t.step("the map: DOCS is docs/, and README.md links to each", () => {
    none(mapProblems(DOCS, tree, text("README.md")));
  });
  await t.step("links", () => none(each((file, markdown) => linkProblems(file, markdown, tree, markdownOf))));
  await t.step("tinyagent commands and their flags", () => none(each(commandProblems)));
  await t.step("bare flags", () => none(each(bareFlagProblems)));
  await t.step("files", () => none(each((file, markdown) => fileProblems(file, markdown, tree))));
  await t.step("the CLI reference, docs/cli.md", () => none(cliReferenceProblems(text("docs/cli.md"))));
  await t.step("OTHER_FLAGS: each script's flags occur in it, and its task runs it", () => {
    const tasks = JSON.parse(text("deno.json")).tasks as Record<string, string>;
    const notRun = Object.entries(OTHER_FLAGS).flatMap(([program, { source }]) => {
      const task = /^deno task (.+)$/.exec(program)?.[1];
      return task !== undefined && !tasks[task]?.includes(` ${source}`)
        ? [`deno task ${task} does not run ${source}`]
        : [];
    });
    none([...otherFlagSourceProblems(readText), ...notRun]);
  });
  await t.step("OTHER_FLAGS: every flag in it is one the docs need", () => {
    none(unneededOtherFlags(present.map((file) => [file, text(file)] as const)));
  });
  await t.step("GENERATED paths are git-ignored", async () => {
    const tracked = GENERATED.filter(({ path }) => tree.has(path)).map(({ path }) =>
      `${path} is in the checkout`
    );
    const ignored = await Promise.all(
      GENERATED.map(async ({ path }) => (await git("check-ignore", "-q", path)).code),
    );
    none([
      ...tracked,
      ...GENERATED.filter((_, i) => ignored[i] !== 0).map(({ path }) => `${path} is not git-ignored`),
    ]);
  });
});
