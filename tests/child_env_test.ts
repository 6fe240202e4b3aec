/**
 * Every child process the tests, the bench and the demo start gets DENO_NO_UPDATE_CHECK=1: a
 * `deno run` (started directly, through bin/tinyagent, a shell, `script` or a Python host) checks
 * Deno's download host for a newer Deno half a second in, through the user's proxy when one is set,
 * so a test that counts what goes through a proxy would see it now and then. This reads the
 * sources: each `new Deno.Command(…)` and `new StdioClientTransport(…)` names the variable in its
 * options or builds its environment with a helper that is shown (here, by calling it) to set it;
 * the few that start a program that never starts deno (git, ps, cat, …), and those that show the
 * launcher sets it itself or that the check is there, are listed below, each with why.
 *
 * Run: deno test --allow-net=127.0.0.1 --allow-env --allow-run --allow-read --allow-write tests/child_env_test.ts
 */
import assert from "node:assert/strict";
import { pluginEnv } from "./support/rpc_helper.ts";
import { hostEnv, loaderEnv, newKey, ROOT } from "./support/tinyagent.ts";

/** The helpers a start may build its environment with, each called as a start calls it. */
const HELPERS: Record<string, () => Record<string, string>> = {
  loaderEnv: () => loaderEnv(),
  hostEnv: () => hostEnv({}),
  pluginEnv: () => pluginEnv("/nonexistent-home", newKey()),
};

/**
 * The starts that give no DENO_NO_UPDATE_CHECK=1, each with why: programs that never start deno,
 * and the tests that show the launcher sets it itself or that the check is there. Matched by the
 * start of their arguments, whitespace folded.
 */
const UNSET: { file: string; call: string; why: string }[] = [
  { file: "bench/lib/child.ts", call: '"cat", { args: [path]', why: "cat reads a /proc file" },
  {
    file: "tests/robustness/code_mode_hostile_test.ts",
    call: '"cat", { args: [`/proc/${pid}/status`]',
    why: "cat reads a /proc file",
  },
  { file: "bench/lib/report.ts", call: '"git", { args,', why: "git names the commit" },
  {
    file: "tests/bundle_test.ts",
    call: '"/bin/sh", {',
    why: "mcpb_launch.sh, with a fake binary that echoes",
  },
  { file: "tests/docs_names_test.ts", call: '"git", {', why: "git lists the tracked files" },
  {
    file: "tests/support/strict_relay/content_repo_test.ts",
    call: '"git", { args, cwd: dir',
    why: "git checks the strict relay's trees against its own",
  },
  {
    file: "tests/e2e/oversight_test.ts",
    call: '"script", { args: ["--version"]',
    why: "asks whether script(1) is there",
  },
  {
    file: "tests/e2e/proxy_only_test.ts",
    call: "`${ROOT}bin/tinyagent`, {",
    why: "a user's environment: that the launcher sets the variable itself is what the test shows",
  },
  {
    file: "tests/e2e/proxy_only_test.ts",
    call: 'Deno.execPath(), { args: ["run", "wait.ts"]',
    why: "the control, whose update check must go",
  },
  {
    file: "tests/e2e/rpc_plugin_host_test.ts",
    call: '"python3", { args: ["--version"]',
    why: "asks whether python3 is there",
  },
  {
    file: "tests/install_test.ts",
    call: "shell, {",
    why: "install.sh, whose fake binaries are shell scripts",
  },
  { file: "tests/install_test.ts", call: 'findOnPath("sh")!, {', why: "install.sh, as above" },
  { file: "tests/install_test.ts", call: "`${bin}/tinyagent`, {", why: "an installed fake binary" },
  { file: "tests/oversight/audit_log_test.ts", call: '"mkfifo",', why: "mkfifo makes a FIFO" },
  { file: "tests/robustness/listen_faults_test.ts", call: '"cat", { args: [`/proc/', why: "reads /proc" },
  { file: "tests/robustness/stdio_fuzz_test.ts", call: '"kill", { args: ["-0"', why: "asks if a pid lives" },
  { file: "tests/support/fake_releases.ts", call: "cmd, { args, cwd,", why: "tar and zip pack fake assets" },
  { file: "tests/support/python.ts", call: 'python, { args: ["-c", "import mcp"]', why: "asks for the SDK" },
  { file: "tests/support/shellcheck.ts", call: "shellcheck, {", why: "shellcheck reads a script" },
  { file: "tests/support/strict_relay/tls_test.ts", call: '"openssl", {', why: "openssl makes certificates" },
  { file: "tests/support/tls.ts", call: "program, { args, stdout", why: "sh and openssl make certificates" },
  { file: "tests/support/tls.ts", call: '"rm", { args: ["-rf"', why: "rm removes them" },
  { file: "tests/support/waits.ts", call: '"mkfifo", { args: [path] }', why: "mkfifo makes a FIFO" },
  {
    file: "tests/wrapper_test.ts",
    call: 'WRAPPER, { args: ["--version"], cwd: dir, clearEnv: true',
    why: "a fake deno shows the launcher sets the variable itself",
  },
  {
    file: "tests/wrapper_test.ts",
    call: '"ps", { args: ["-A", "-o", "pid=", "-o"',
    why: "ps lists processes",
  },
  { file: "tests/wrapper_test.ts", call: '"ps", { args: ["-A", "-o", "pid="] }', why: "ps lists processes" },
];

/** A start of a child process in a source file: where, and the text between its parentheses. */
export interface Start {
  file: string;
  line: number;
  /** The call's arguments, comments blanked out. */
  call: string;
}

/**
 * `source` with the inside of every comment blanked (`comments`), or also the inside of every
 * string, template and regular expression literal (`literals`), each character for a space, so
 * offsets still line up with the source. A `/` starts a regular expression where an operand is
 * expected: after an operator, an opening bracket, a comma, or the start.
 */
export function blank(source: string, what: "comments" | "literals"): string {
  const out = source.split("");
  const fill = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (out[i] !== "\n") out[i] = " ";
  };
  let i = 0;
  let previous = ""; // the last character of code before `i`, for telling a regex from a division
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      const stop = end === -1 ? source.length : end;
      fill(i, stop);
      i = stop;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end === -1 ? source.length : end + 2;
      fill(i, stop);
      i = stop;
    } else if (
      c === '"' || c === "'" || c === "`" || (c === "/" && /^$|[(,=:[!&|?{};+\-*%<>~^]$/.test(previous))
    ) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length && (source[j] !== c || inClass)) {
        if (source[j] === "\\") j++;
        else if (c === "/" && source[j] === "[") inClass = true;
        else if (c === "/" && source[j] === "]") inClass = false;
        else if (c === "/" && source[j] === "\n") break;
        j++;
      }
      if (what === "literals") fill(i + 1, j);
      i = j + 1;
      previous = c;
    } else {
      if (!/\s/.test(c)) previous = c;
      i++;
    }
  }
  return out.join("");
}

/** The index of the parenthesis closing the one at `open`, in text whose literals are blanked. */
function closing(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if ("([{".includes(code[i])) depth++;
    else if (")]}".includes(code[i]) && --depth === 0) return i;
  }
  throw new Error(`unbalanced parenthesis at ${open}`);
}

/** Every `new Deno.Command(…)` and `new StdioClientTransport(…)` in the code of `source`. */
export function startsIn(file: string, source: string): Start[] {
  const code = blank(source, "literals");
  const text = blank(source, "comments");
  const starts: Start[] = [];
  for (const match of code.matchAll(/\bnew\s+(?:Deno\.Command|StdioClientTransport)\s*\(/g)) {
    const open = match.index + match[0].length - 1;
    starts.push({
      file,
      line: source.slice(0, match.index).split("\n").length,
      call: text.slice(open + 1, closing(code, open)),
    });
  }
  return starts;
}

/** Whether a start gives its child the variable: named in its options, or through a helper that sets it. */
export function setsVariable(call: string, helpers: readonly string[]): boolean {
  if (/\bDENO_NO_UPDATE_CHECK\s*:\s*"1"/.test(call)) return true;
  return helpers.some((name) => new RegExp(`\\b${name}\\s*\\(`).test(call));
}

/** The .ts files under `dir`, relative to the checkout. */
function sources(dir: string): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) found.push(...sources(path));
    else if (entry.name.endsWith(".ts")) found.push(path);
  }
  return found.sort();
}

function allStarts(): Start[] {
  return ["tests", "bench", "demo"].flatMap(sources)
    .flatMap((file) => startsIn(file, Deno.readTextFileSync(`${ROOT}${file}`)));
}

const unsetOf = (start: Start) =>
  UNSET.find((entry) =>
    entry.file === start.file && start.call.replace(/\s+/g, " ").trim().startsWith(entry.call)
  );

Deno.test("the scanner finds starts in code only, and reads what their options set", () => {
  const source = [
    "// new Deno.Command(deno, {}) in a comment is no start",
    'const s = "new Deno.Command(x)"; const r = /"(/; const d = a / b / c;',
    "const t = `new StdioClientTransport(${x})`;",
    'new Deno.Command(Deno.execPath(), { args: [")", "("], env: { DENO_NO_UPDATE_CHECK: "1" } });',
    "new Deno.Command(LAUNCHER, {",
    '  // DENO_NO_UPDATE_CHECK: "1" said in a comment sets nothing',
    "  env: { ...env },",
    "});",
    "new StdioClientTransport({ command: program, env: hostEnv({ KEY: k }) });",
    'new Deno.Command("git", { args: ["log"] });',
  ].join("\n");
  const starts = startsIn("x.ts", source);
  assert.deepEqual(starts.map((start) => start.line), [4, 5, 9, 10]);
  assert.equal(starts[0].call, 'Deno.execPath(), { args: [")", "("], env: { DENO_NO_UPDATE_CHECK: "1" } }');
  assert.deepEqual(starts.map((start) => setsVariable(start.call, ["hostEnv"])), [true, false, true, false]);
  assert.equal(setsVariable('env: { DENO_NO_UPDATE_CHECK: "0" }', []), false);
  assert.equal(setsVariable("env: notHostEnv({})", ["hostEnv"]), false);
});

Deno.test("every environment helper a start may use sets DENO_NO_UPDATE_CHECK=1", () => {
  for (const [name, call] of Object.entries(HELPERS)) {
    assert.equal(call().DENO_NO_UPDATE_CHECK, "1", `${name}() leaves DENO_NO_UPDATE_CHECK out`);
  }
});

Deno.test("every child a test, the bench or the demo starts gets DENO_NO_UPDATE_CHECK=1", () => {
  const starts = allStarts();
  // The scan sees the starts it must: the shared one every tinyagent launch goes through, and more.
  assert.ok(starts.some((start) => start.file === "tests/support/tinyagent.ts"), "tinyagent.ts's command()");
  assert.ok(starts.length >= 40, `only ${starts.length} starts found: the scan misses some`);
  const missing = starts.filter((start) => !unsetOf(start) && !setsVariable(start.call, Object.keys(HELPERS)))
    .map((start) => `${start.file}:${start.line}: ${start.call.trim().split("\n")[0]}`);
  assert.deepEqual(missing, [], "these starts give their child no DENO_NO_UPDATE_CHECK=1");
});

Deno.test("each listed start without the variable is still there, once", () => {
  const starts = allStarts();
  const counts = UNSET.map((entry) => ({
    start: `${entry.file}: ${entry.call}`,
    count: starts.filter((start) => unsetOf(start) === entry).length,
  }));
  assert.deepEqual(counts.filter(({ count }) => count !== 1), []);
});
