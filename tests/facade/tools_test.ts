// Exposed tools (facade.md, "Exposed tools"): the curated lists, --tools and --allow-writes.

import assert from "node:assert/strict";
import {
  DIAGNOSE_TOOL,
  isReadTool,
  isWriteTool,
  READ_TOOLS,
  resolveExposure,
  WRITE_TOOLS,
} from "../../lib/facade/tools.ts";
import {
  CONTRACT_READ,
  CONTRACT_WRITE,
  HIDDEN_RELAY_TOOLS as HIDDEN,
  TINY_DIAGNOSE,
} from "../support/contract.ts";

function names(result: ReturnType<typeof resolveExposure>): string[] {
  assert.ok(result.ok, `expected ok, got ${JSON.stringify(result)}`);
  return result.names;
}

function error(result: ReturnType<typeof resolveExposure>): string {
  assert.ok(!result.ok, `expected an error, got ${JSON.stringify(result)}`);
  return result.error;
}

Deno.test("curated lists match the contract", async (t) => {
  await t.step("the read tools, in the contract's order", () => {
    assert.deepEqual([...READ_TOOLS], CONTRACT_READ);
  });
  await t.step("the write tools, in the contract's order", () => {
    assert.deepEqual([...WRITE_TOOLS], CONTRACT_WRITE);
  });
  await t.step("the tool the facade answers itself has the contract's name", () => {
    assert.equal(DIAGNOSE_TOOL, TINY_DIAGNOSE);
  });
  await t.step("isReadTool / isWriteTool classify every curated name and nothing else", () => {
    for (const name of CONTRACT_READ) {
      assert.equal(isReadTool(name), true, name);
      assert.equal(isWriteTool(name), false, name);
    }
    for (const name of CONTRACT_WRITE) {
      assert.equal(isWriteTool(name), true, name);
      assert.equal(isReadTool(name), false, name);
    }
    for (const name of [...HIDDEN, TINY_DIAGNOSE, "", "toString", "constructor", "__proto__"]) {
      assert.equal(isReadTool(name), false, name);
      assert.equal(isWriteTool(name), false, name);
    }
  });
});

Deno.test("resolveExposure: defaults and --allow-writes", async (t) => {
  await t.step(`default exposure is the ${CONTRACT_READ.length} read tools, in order`, () => {
    assert.deepEqual(names(resolveExposure(undefined, false)), CONTRACT_READ);
  });
  await t.step(`--allow-writes adds the ${CONTRACT_WRITE.length} write tools after the read tools`, () => {
    assert.deepEqual(names(resolveExposure(undefined, true)), [...CONTRACT_READ, ...CONTRACT_WRITE]);
  });
  await t.step("the default list is a fresh array each time", () => {
    const first = names(resolveExposure(undefined, false));
    first.push("mutated");
    assert.deepEqual(names(resolveExposure(undefined, false)), CONTRACT_READ);
  });
});

Deno.test("resolveExposure: --tools", async (t) => {
  await t.step("keeps the order given", () => {
    assert.deepEqual(
      names(resolveExposure(["read_status", "list_rooms", "read_file"], false)),
      ["read_status", "list_rooms", "read_file"],
    );
  });
  await t.step("drops duplicates, keeping the first position", () => {
    assert.deepEqual(
      names(resolveExposure(["read_room", "list_rooms", "read_room", "list_rooms", "read_job"], false)),
      ["read_room", "list_rooms", "read_job"],
    );
  });
  await t.step("replaces the default: unnamed read tools are not exposed", () => {
    assert.deepEqual(names(resolveExposure(["read_issue"], false)), ["read_issue"]);
  });
  await t.step("write tools with --allow-writes, in the order given, mixed with read tools", () => {
    assert.deepEqual(
      names(resolveExposure(["post_message", "read_room", "comment"], true)),
      ["post_message", "read_room", "comment"],
    );
  });
  await t.step("--allow-writes does not add unnamed write tools when --tools is given", () => {
    assert.deepEqual(names(resolveExposure(["read_room"], true)), ["read_room"]);
  });
  await t.step("an unknown name is an error naming it", () => {
    const message = error(resolveExposure(["read_room", "no_such_tool"], false));
    assert.match(message, /no_such_tool/);
    assert.match(message, /unknown/i);
  });
  await t.step("every hidden relay tool is refused by name, even with --allow-writes", () => {
    for (const hidden of HIDDEN) {
      for (const allowWrites of [false, true]) {
        const message = error(resolveExposure([hidden], allowWrites));
        assert.ok(message.includes(hidden), `${hidden}: ${message}`);
      }
    }
  });
  await t.step(
    "a relay tool tinyagent knows but never offers says so, and why; an unknown one says unknown",
    () => {
      const known: [string, RegExp][] = [
        ["publish_event", /publish_event is never offered: it publishes any signed event/],
        ["read_management", /read_management is never offered: it is a relay operator's view/],
        ["set_policy", /set_policy is never offered: it is a management tool/],
        ["set_status", /set_status is never offered: it publishes events outside the curated write tools/],
      ];
      for (const [name, pattern] of known) {
        for (const allowWrites of [false, true]) {
          assert.match(
            error(resolveExposure([name], allowWrites)),
            pattern,
          );
        }
      }
      for (const name of ["ban_pubkey", "constructor", "__proto__", "toString"]) {
        assert.match(error(resolveExposure([name], true)), /unknown tool/, name);
      }
    },
  );
  await t.step("every write tool without --allow-writes is an error naming it", () => {
    for (const name of CONTRACT_WRITE) {
      const message = error(resolveExposure(["read_room", name], false));
      assert.ok(message.includes(name), `${name}: ${message}`);
      assert.match(message, /--allow-writes/);
    }
  });
  await t.step("an empty list is an error", () => {
    const message = error(resolveExposure([], false));
    assert.match(message, /--tools/);
  });
  await t.step(
    "tiny_diagnose belongs to neither list: naming it is an error that says it is always offered",
    () => {
      const message = error(resolveExposure(["list_rooms", TINY_DIAGNOSE], true));
      assert.ok(message.includes(`${TINY_DIAGNOSE} is always offered`), message);
    },
  );
});
