// One test per shell script: shellcheck reports nothing. Skipped, with a note, where shellcheck is
// not installed, unless CI is set (.ci/run installs it), where its absence fails the test.

import assert from "node:assert/strict";

const decoder = new TextDecoder();

function onPath(name: string): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "").split(Deno.build.os === "windows" ? ";" : ":")) {
    try {
      if (dir && Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
    } catch {
      // not there
    }
  }
  return null;
}

/** Registers "<file>: shellcheck reports nothing", run from `cwd`. */
export function shellcheckTest(file: string, cwd: string): void {
  const posix = Deno.build.os !== "windows";
  const shellcheck = posix ? onPath("shellcheck") : null;
  const inCI = Boolean(Deno.env.get("CI"));
  if (posix && shellcheck === null && !inCI) {
    console.warn(`note: shellcheck is not installed, so ${file}'s shellcheck test is ignored`);
  }
  Deno.test({
    name: `${file}: shellcheck reports nothing`,
    ignore: !posix || (shellcheck === null && !inCI),
    fn: async () => {
      assert.ok(
        shellcheck !== null,
        "shellcheck is not installed but CI is set; install it (apt-get install -y shellcheck)",
      );
      const out = await new Deno.Command(shellcheck, {
        args: [file],
        cwd,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const report = decoder.decode(out.stdout) + decoder.decode(out.stderr);
      assert.equal(out.code, 0, report);
      assert.equal(report, "");
    },
  });
}
