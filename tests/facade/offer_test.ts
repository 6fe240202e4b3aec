// What `tinyagent tools` lists (lib/facade/offer.ts): what tools/list would answer, in order, and
// for every curated tool left out, the reason a user can act on. Pure: flags and table state in.

import assert from "node:assert/strict";
import { describeOffer, renderOffer } from "../../lib/facade/offer.ts";
import type { TableState } from "../../lib/facade/table.ts";
import type { Tool } from "../../lib/wire/mcp.ts";
import { CONTRACT_KINDS, CONTRACT_READ, CONTRACT_WRITE, TINY_DIAGNOSE } from "../support/contract.ts";

const tool = (name: string): Tool => ({ name, inputSchema: { type: "object" } });
const loaded = (names: readonly string[]): TableState => ({ ok: true, table: names.map(tool) });
const ALL = [...CONTRACT_READ, ...CONTRACT_WRITE];

Deno.test("describeOffer", async (t) => {
  await t.step(
    "the default: the read tools, tiny_diagnose last; every write tool wants --allow-writes",
    () => {
      const offer = describeOffer(CONTRACT_READ, false, loaded(CONTRACT_READ));
      assert.deepEqual(offer.table, { ok: true });
      assert.deepEqual(offer.offered, [
        ...CONTRACT_READ.map((name) => ({ name, type: "read" })),
        { name: TINY_DIAGNOSE, type: "local" },
      ]);
      assert.deepEqual(
        offer.not_offered,
        CONTRACT_WRITE.map((name) => ({ name, reason: "a write tool: --allow-writes exposes it" })),
      );
    },
  );
  await t.step("--allow-writes: each write tool with the kinds it may have signed", () => {
    const offer = describeOffer(ALL, true, loaded(ALL));
    for (const name of CONTRACT_WRITE) {
      assert.deepEqual(offer.offered.find((entry) => entry.name === name), {
        name,
        type: "write",
        kinds: [...CONTRACT_KINDS[name]],
      });
    }
    assert.deepEqual(offer.not_offered, []);
  });
  await t.step("--tools: the order given; the rest left out by --tools", () => {
    const exposed = ["read_room", "comment"];
    const offer = describeOffer(exposed, true, loaded(exposed));
    assert.deepEqual(offer.offered.map((entry) => entry.name), [...exposed, TINY_DIAGNOSE]);
    const reasons = new Map(offer.not_offered.map((entry) => [entry.name, entry.reason]));
    assert.equal(reasons.size, ALL.length - exposed.length);
    assert.equal(reasons.get("list_rooms"), "a read tool left out by --tools");
    assert.equal(reasons.get("create_issue"), "a write tool left out by --tools");
  });
  await t.step("an exposed tool the relay does not list", () => {
    const offer = describeOffer(
      CONTRACT_READ,
      false,
      loaded(CONTRACT_READ.filter((n) => n !== "read_status")),
    );
    assert.deepEqual(offer.not_offered[0], { name: "read_status", reason: "the relay does not list it" });
  });
  await t.step("a table that could not be read: tiny_diagnose alone, and why", () => {
    const offer = describeOffer(CONTRACT_READ, false, {
      ok: false,
      failure: { class: "transport", detail: "cannot reach the relay" },
    });
    assert.deepEqual(offer.table, { ok: false, error: "transport: cannot reach the relay" });
    assert.deepEqual(offer.offered, [{ name: TINY_DIAGNOSE, type: "local" }]);
    assert.equal(
      offer.not_offered.find((entry) => entry.name === "list_rooms")?.reason,
      "the relay's table could not be read",
    );
  });
});

Deno.test("renderOffer: the offered tools in order, then the others with their reasons", () => {
  const text = renderOffer(
    describeOffer(
      ["post_message", "upload_attachment", "list_rooms"],
      true,
      loaded(["post_message", "upload_attachment", "list_rooms"]),
    ),
  );
  const lines = text.split("\n");
  assert.equal(lines[0], "offered to a host, in order (4):");
  assert.match(lines[1], /^ {2}post_message +write: signs kind 9$/);
  assert.match(lines[2], /^ {2}upload_attachment +write: signs nothing$/);
  assert.match(lines[3], /^ {2}list_rooms +read$/);
  assert.match(lines[4], /^ {2}tiny_diagnose +answered by tinyagent itself$/);
  assert.equal(lines[6], `not offered (${ALL.length - 3}):`);
  const unreadable = renderOffer(
    describeOffer(CONTRACT_READ, false, {
      ok: false,
      failure: { class: "permission", detail: "auth-required: token expired" },
    }),
  );
  assert.ok(
    unreadable.startsWith("the relay's table could not be read: permission: auth-required: token expired\n"),
  );
});
