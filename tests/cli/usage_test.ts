// The help text (lib/cli/usage.ts): every command and flag documented, the exit statuses, and the
// curated tools with the kinds each write tool may have signed, as facade.md lists them.

import assert from "node:assert/strict";
import { USAGE } from "../../lib/cli/usage.ts";
import { CONTRACT_KINDS, CONTRACT_READ, CONTRACT_WRITE } from "../support/contract.ts";

Deno.test("the help text", async (t) => {
  await t.step("each help text exists and documents its flags", () => {
    for (const flag of ["--relay", "--key-env", "--tools", "--allow-writes", "--timeout"]) {
      assert.ok(USAGE.mcp.includes(flag), `mcp help mentions ${flag}`);
    }
    for (const flag of ["--relay", "--key-env", "--rooms", "--kinds", "--json", "--timeout"]) {
      assert.ok(USAGE.diagnose.includes(flag), `diagnose help mentions ${flag}`);
    }
    assert.match(USAGE.diagnose, /0 ok.*2.*3/s);
    assert.match(USAGE.keygen, /keygen/);
    assert.match(USAGE.whoami, /--key-env/);
    for (const command of ["mcp", "tools", "call", "diagnose", "keygen", "whoami", "sandbox-check"]) {
      assert.ok(USAGE.main.includes(`tinyagent ${command}`), command);
    }
    assert.match(USAGE.call, /0 a result, 2 .*tool error.*3 .*refused.*1 usage/s);
    assert.match(USAGE.tools, /0 the relay's table was read, 3 it could not be read, 1 usage/);
  });
  await t.step("mcp --help names every curated tool, and the kinds each write tool may have signed", () => {
    for (const name of [...CONTRACT_READ, ...CONTRACT_WRITE]) assert.ok(USAGE.mcp.includes(name), name);
    for (const [name, kinds] of Object.entries(CONTRACT_KINDS)) {
      const shown = kinds.length > 0 ? `${name} (${kinds.join(" or ")})` : `${name} (signs nothing)`;
      assert.ok(USAGE.mcp.replace(/\n\s+/g, " ").includes(shown), shown);
    }
  });
  await t.step("tools and call document their flags", () => {
    for (const topic of ["tools", "call"] as const) {
      for (const flag of ["--relay", "--key-env", "--tools", "--allow-writes", "--json", "--timeout"]) {
        assert.ok(USAGE[topic].includes(flag), `${topic} help mentions ${flag}`);
      }
    }
  });
});
