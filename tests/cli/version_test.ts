// What --version prints (lib/cli/version.ts): the version line scripts match, then what a bug
// report needs, and the commit a release binary reads back from its embedded commit file.

import assert from "node:assert/strict";
import config from "../../deno.json" with { type: "json" };
import { FROM_SOURCE, parseCommitFile, UNKNOWN_COMMIT, versionText } from "../../lib/cli/version.ts";

const sha = "0123456789abcdef0123456789abcdef01234567";

Deno.test("versionText", async (t) => {
  await t.step("the first line is `tinyagent <version>`, then target, Deno and commit", () => {
    const facts = { version: "1.2.3", target: "aarch64-apple-darwin", deno: "2.9.6", commit: sha };
    assert.equal(
      versionText(facts),
      `tinyagent 1.2.3\ntarget aarch64-apple-darwin\ndeno 2.9.6\ncommit ${sha}`,
    );
  });

  await t.step("run from source it names this runtime and no commit", () => {
    assert.deepEqual(versionText().split("\n"), [
      `tinyagent ${config.version}`,
      `target ${Deno.build.target}`,
      `deno ${Deno.version.deno}`,
      `commit ${FROM_SOURCE}`,
    ]);
  });
});

Deno.test("parseCommitFile: a full SHA, or the binary says unknown", () => {
  assert.equal(parseCommitFile(`${sha}\n`), sha);
  assert.equal(parseCommitFile(`${sha}-dirty\n`), `${sha}-dirty`);
  for (
    const bad of ["", "unknown", sha.slice(0, 12), sha.toUpperCase(), `${sha} extra`, `{"commit":"${sha}"}`]
  ) {
    assert.equal(parseCommitFile(bad), UNKNOWN_COMMIT, bad);
  }
});
