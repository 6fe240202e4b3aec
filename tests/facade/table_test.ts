// The tool table and its recovery (facade.md, `tools/list`, and beyond it: the table heals in the
// background and the host is told). A scripted relay port and a test clock: the backoff schedule
// is checked without waiting.

import assert from "node:assert/strict";
import {
  RECOVERY_CAP_MS,
  RECOVERY_FIRST_MS,
  recoveryDelayMs,
  type Scheduler,
  type TableState,
  ToolTable,
} from "../../lib/facade/table.ts";
import type { RelayAnswer } from "../../lib/relay/answer.ts";
import type { JsonObject } from "../../lib/wire/mcp.ts";
import { CONTRACT_READ } from "../support/contract.ts";

/** Timers under the test's control: `advance` runs what falls due, in order, settling each. */
class Clock {
  now = 0;
  #tasks: { at: number; task: () => void; id: number }[] = [];
  #ids = 0;

  schedule: Scheduler = (ms, task) => {
    const entry = { at: this.now + ms, task, id: this.#ids++ };
    this.#tasks.push(entry);
    return () => this.#tasks = this.#tasks.filter((other) => other !== entry);
  };

  /** The delays of the timers pending now. */
  get pending(): number[] {
    return this.#tasks.map((entry) => entry.at - this.now);
  }

  async advance(ms: number): Promise<void> {
    const until = this.now + ms;
    for (;;) {
      this.#tasks.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.#tasks[0];
      if (!next || next.at > until) break;
      this.#tasks.shift();
      this.now = next.at;
      next.task();
      await settle();
    }
    this.now = until;
  }
}

/** Lets every pending promise callback run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

function relayTool(name: string): JsonObject {
  return { name, description: `the relay's ${name}`, inputSchema: { type: "object" } };
}

/** A relay that is down until `up` is set; every tools/list is counted, and may be held open. */
class Relay {
  up = false;
  lists = 0;
  table: JsonObject[] = CONTRACT_READ.map(relayTool);
  /** While set, a tools/list waits for this to resolve before answering. */
  hold: Promise<void> | undefined;

  async listTools(): Promise<RelayAnswer> {
    this.lists++;
    if (this.hold) await this.hold;
    return this.up
      ? { ok: true, result: { tools: this.table } }
      : { ok: false, failure: { class: "transport", detail: "cannot reach the relay" } };
  }
}

function setup() {
  const relay = new Relay();
  const clock = new Clock();
  const logs: string[] = [];
  let told = 0;
  const table = new ToolTable({
    relay,
    exposed: CONTRACT_READ,
    log: (line) => logs.push(line),
    onChange: () => told++,
    schedule: clock.schedule,
    random: () => 0,
  });
  return { relay, clock, logs, table, told: () => told };
}

const names = (state: TableState) => state.ok ? state.table.map((tool) => tool.name) : [];

Deno.test("the background schedule: 1 s doubling to 60 s, jitter only added, at most once a minute", () => {
  const plain = Array.from({ length: 9 }, (_, attempt) => recoveryDelayMs(attempt, 0));
  assert.deepEqual(plain, [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  assert.equal(RECOVERY_FIRST_MS, 1_000);
  assert.equal(RECOVERY_CAP_MS, 60_000);
  for (let attempt = 0; attempt < 40; attempt++) {
    const low = recoveryDelayMs(attempt, 0);
    const high = recoveryDelayMs(attempt, 0.999999);
    assert.ok(high >= low && high <= low * 1.2 + 1, `attempt ${attempt}: ${low}..${high}`);
  }
  assert.equal(recoveryDelayMs(1_000_000, 0.5), 66_000, "no overflow, capped");
  // Over an hour of a relay that stays down: after the first few minutes, never more than once a minute.
  let elapsed = 0;
  for (let attempt = 0; elapsed < 3_600_000; attempt++) {
    const delay = recoveryDelayMs(attempt, Math.random());
    if (elapsed > 180_000) assert.ok(delay >= 60_000, `attempt ${attempt} at ${elapsed} ms: ${delay} ms`);
    elapsed += delay;
  }
});

Deno.test("no relay request before the host asks", async () => {
  const { relay, clock } = setup();
  await clock.advance(10 * 60_000);
  assert.equal(relay.lists, 0);
  assert.deepEqual(clock.pending, []);
});

Deno.test("a relay that is down when the host lists: fetched again in the background until it loads", async (t) => {
  const { relay, clock, logs, table, told } = setup();
  await t.step("the host's tools/list finds it down: one line on stderr, a fetch in 1 s", async () => {
    const state = await table.forList();
    assert.equal(state.ok, false);
    assert.equal(relay.lists, 1);
    assert.deepEqual(logs, [
      "tools/list: transport: cannot reach the relay; offering tiny_diagnose only; " +
      "fetching the table again in the background",
    ]);
    assert.deepEqual(clock.pending, [1_000]);
  });
  await t.step("each failure waits twice as long; a failure said once is not said again", async () => {
    await clock.advance(1_000);
    assert.equal(relay.lists, 2);
    assert.deepEqual(clock.pending, [2_000]);
    await clock.advance(2_000 + 4_000 + 8_000);
    assert.equal(relay.lists, 5);
    assert.deepEqual(clock.pending, [16_000]);
    assert.equal(logs.length, 1);
  });
  await t.step("never more than one fetch at a time: a host's list joins the one in flight", async () => {
    const release = Promise.withResolvers<void>();
    relay.hold = release.promise;
    await clock.advance(16_000); // the background fetch starts and waits
    assert.equal(relay.lists, 6);
    const list = table.forList();
    await settle();
    assert.equal(relay.lists, 6, "joined, not a second request");
    assert.deepEqual(clock.pending, [], "nothing scheduled while a fetch is in flight");
    relay.hold = undefined;
    release.resolve();
    assert.equal((await list).ok, false);
    assert.deepEqual(clock.pending, [32_000]);
  });
  await t.step(
    "the relay comes back: the next fetch loads it, the host is told once, fetching stops",
    async () => {
      relay.up = true;
      await clock.advance(32_000);
      assert.equal(relay.lists, 7);
      assert.equal(told(), 1);
      assert.equal(
        logs.at(-1),
        `the relay's tools are back: ${CONTRACT_READ.length} tools; the host was told`,
      );
      await clock.advance(60 * 60_000);
      assert.equal(relay.lists, 7, "no fetch once the table is held");
      assert.deepEqual(names(await table.forList()), [...CONTRACT_READ]);
      assert.equal(told(), 1);
    },
  );
});

Deno.test("what the host is told, and when it is not", async (t) => {
  await t.step(
    "a host tools/list that loads the table itself: its answer tells the host, no notification",
    async () => {
      const { relay, clock, logs, table, told } = setup();
      await table.forList();
      relay.up = true;
      assert.deepEqual(names(await table.forList()), [...CONTRACT_READ]);
      assert.equal(told(), 0);
      assert.equal(logs.at(-1), `the relay's tools are back: ${CONTRACT_READ.length} tools`);
      assert.deepEqual(clock.pending, [], "the background fetch is cancelled");
    },
  );
  await t.step("a background fetch that joins a host's list: still no notification", async () => {
    const { relay, clock, table, told } = setup();
    await table.forList();
    relay.up = true;
    const release = Promise.withResolvers<void>();
    relay.hold = release.promise;
    await clock.advance(1_000);
    const list = table.forList();
    release.resolve();
    assert.equal((await list).ok, true);
    assert.equal(told(), 0);
  });
  await t.step("the first table a host meets is no change, even when a call loaded it", async () => {
    const { relay, table, told } = setup();
    relay.up = true;
    assert.equal((await table.load()).ok, true);
    assert.equal(told(), 0);
  });
  await t.step("a call's failed load starts the recovery too; the host is told when it loads", async () => {
    const { relay, clock, table, told } = setup();
    assert.equal((await table.load()).ok, false);
    assert.deepEqual(clock.pending, [1_000]);
    relay.up = true;
    await clock.advance(1_000);
    assert.equal(told(), 1);
  });
  await t.step("a call the relay answers while the table is down: fetched at once", async () => {
    const { relay, clock, table, told } = setup();
    await table.forList();
    relay.up = true;
    await table.refreshAfterAnswer();
    assert.equal(relay.lists, 2);
    assert.equal(told(), 1);
    assert.deepEqual(clock.pending, []);
  });
  await t.step("an unknown tool: dropped; a call's fetch of the same table is no change", async () => {
    const { relay, table, told } = setup();
    relay.up = true;
    await table.forList();
    table.invalidate();
    assert.equal(relay.lists, 1, "not fetched until a request needs it");
    assert.equal((await table.load()).ok, true);
    assert.equal(relay.lists, 2);
    assert.equal(told(), 0);
  });
  await t.step("an unknown tool and a call's fetch of a different table: told once, not again", async () => {
    const { relay, logs, table, told } = setup();
    relay.up = true;
    await table.forList();
    relay.table = CONTRACT_READ.slice(1).map(relayTool);
    table.invalidate();
    await table.load();
    assert.equal(told(), 1);
    assert.equal(
      logs.at(-1),
      `the relay's tool table changed: ${CONTRACT_READ.length - 1} tools; the host was told`,
    );
    table.invalidate();
    await table.load();
    assert.equal(relay.lists, 3);
    assert.equal(told(), 1, "the host was already told of this table");
  });
  await t.step("an unknown tool and the host's own tools/list: its answer tells it", async () => {
    const { relay, table, told } = setup();
    relay.up = true;
    await table.forList();
    relay.table = CONTRACT_READ.slice(1).map(relayTool);
    table.invalidate();
    assert.equal((await table.forList()).ok, true);
    assert.equal(told(), 0);
  });
  await t.step(
    "a failed reload keeps what the host last saw: the same table back in the background is no change",
    async () => {
      const { relay, clock, table, told } = setup();
      relay.up = true;
      await table.forList();
      relay.up = false;
      table.invalidate();
      assert.equal((await table.load()).ok, false);
      relay.up = true;
      await clock.advance(1_000);
      assert.equal(relay.lists, 3, "the background fetch ran and brought the table back");
      assert.equal(table.failed, false);
      assert.equal(told(), 0, "the host already has this table");
    },
  );
  await t.step(
    "the table going down after the host listed it is not announced (calls still go through)",
    async () => {
      const { relay, table, told } = setup();
      relay.up = true;
      await table.forList();
      relay.up = false;
      table.invalidate();
      await table.load();
      assert.equal(table.failed, true);
      assert.equal(told(), 0);
    },
  );
});

Deno.test("the host gone: the background fetches stop at once", async () => {
  const { relay, clock, table, told } = setup();
  await table.forList();
  assert.deepEqual(clock.pending, [1_000]);
  table.close();
  assert.deepEqual(clock.pending, []);
  relay.up = true;
  await clock.advance(60 * 60_000);
  assert.equal(relay.lists, 1);
  assert.equal((await table.load()).ok, false, "nothing more is fetched");
  assert.equal(relay.lists, 1);
  assert.equal(told(), 0);
});
