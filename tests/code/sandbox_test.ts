// runProgram (lib/code/sandbox.ts) with a fake bridge: values, errors rethrown with the bridge's message,
// logs, call order, at most 8 pending and 100 calls, pauses, cancellation, and how programs that cannot
// start or cannot finish end. Waits are bounded by within(); no assertion is about time.

import assert from "node:assert/strict";
import { callLimitMessage } from "../../lib/code/calls.ts";
import { runProgram, sandboxStats } from "../../lib/code/sandbox.ts";
import { within } from "../support/waits.ts";
import { FakeBridge, until } from "./fake_bridge.ts";

const SHORT = { wallMs: 300 };

function run(code: string, bridge = new FakeBridge(), limits: Record<string, number> = {}) {
  return within(
    30_000,
    "the program's outcome",
    runProgram(code, bridge, { limits: { ...SHORT, ...limits } }),
  );
}

Deno.test("runProgram: run(relay)'s value, JSON-safe, in each way run may be defined", async (t) => {
  const cases: [string, string, unknown][] = [
    ["an async function declaration", "async function run(relay) { return { a: [1, 'two', null] }; }", {
      a: [1, "two", null],
    }],
    ["a const arrow", "const run = async (relay) => 42;", 42],
    ["a let function expression", "let run = async function (relay) { return 'x'; };", "x"],
    ["a plain function", "function run(relay) { return true; }", true],
    ["a relay answer passed back", "async function run(relay) { return await relay.echo({ n: 1 }); }", {
      echoed: { n: 1 },
    }],
    ["values JSON drops", "async function run() { return { f() {}, u: undefined, d: new Date(0) }; }", {
      d: "1970-01-01T00:00:00.000Z",
    }],
  ];
  for (const [name, code, value] of cases) {
    await t.step(name, async () => {
      const outcome = await run(code);
      assert.equal(outcome.end, "returned", outcome.error);
      assert.deepEqual(outcome.value, value);
    });
  }
  await t.step("undefined: returned, no value", async () => {
    const outcome = await run("async function run() {}");
    assert.equal(outcome.end, "returned");
    assert.equal("value" in outcome, false);
  });
  await t.step("a value that is not JSON: said", async () => {
    const outcome = await run("async function run() { const a = {}; a.a = a; return a; }");
    assert.equal(outcome.end, "threw");
    assert.match(outcome.error ?? "", /^run\(\) returned a value that is not JSON: /);
  });
});

Deno.test("runProgram: the bridge's rejections are Errors with its message inside the program", async (t) => {
  await t.step("caught by the program", async () => {
    const outcome = await run(`async function run(relay) {
      try { await relay.fail({ message: "the person said no" }); }
      catch (error) { return [error instanceof Error, error.message]; }
    }`);
    assert.deepEqual(outcome.value, [true, "the person said no"]);
    assert.deepEqual(outcome.calls, [{ tool: "fail", state: "error", error: "the person said no" }]);
  });
  await t.step("not caught: the program threw, said with its line", async () => {
    const outcome = await run("async function run(relay) {\n  await relay.fail({ message: 'denied' });\n}");
    assert.equal(outcome.end, "threw");
    assert.match(outcome.error ?? "", /^Error: denied/);
    assert.doesNotMatch(outcome.error ?? "", /relay-bridge/);
  });
  await t.step("a throw of the program's own, with its line", async () => {
    const outcome = await run("async function run() {\n  throw new TypeError('bad input');\n}");
    assert.equal(outcome.end, "threw");
    assert.match(outcome.error ?? "", /^TypeError: bad input\n\s+at run \(program\.js:2/);
  });
  await t.step("a thrown value that is not an Error", async () => {
    const outcome = await run("async function run() { throw { code: 7 }; }");
    assert.deepEqual([outcome.end, outcome.error], ["threw", 'uncaught {"code":7}']);
  });
});

Deno.test("runProgram: arguments cross as JSON objects, checked", async (t) => {
  const cases: [string, string, unknown][] = [
    ["no arguments are {}", "return (await relay.echo()).echoed;", {}],
    ["an object, as JSON", "return (await relay.echo({ a: 1, f() {}, d: new Date(0) })).echoed;", {
      a: 1,
      d: "1970-01-01T00:00:00.000Z",
    }],
    [
      "an array is refused",
      "try { await relay.echo([1]); } catch (e) { return e.message; }",
      "relay.echo: the arguments must be an object, not an array",
    ],
    [
      "a string is refused",
      "try { await relay.echo('x'); } catch (e) { return e.message; }",
      "relay.echo: the arguments must be an object, not string",
    ],
    [
      "a BigInt cannot be sent",
      "try { await relay.echo({ n: 1n }); } catch (e) { return e.message.split(':').slice(0, 2).join(':'); }",
      "relay.echo: the arguments cannot be sent as JSON",
    ],
    [
      "a function alone is not an object",
      "try { await relay.echo(() => 1); } catch (e) { return e.message; }",
      "relay.echo: the arguments must be an object",
    ],
    [
      "arguments over 1 MiB are refused",
      "try { await relay.echo({ t: 'x'.repeat(1100000) }); } catch (e) { return e.message; }",
      // Said in characters: the text was never copied out of the guest to be measured in bytes.
      "relay.echo: the arguments are too large (1100008 characters of JSON, at most 1048576 bytes)",
    ],
  ];
  for (const [name, body, expected] of cases) {
    await t.step(name, async () => {
      const bridge = new FakeBridge();
      const outcome = await run(`async function run(relay) { ${body} }`, bridge);
      assert.equal(outcome.end, "returned", outcome.error);
      assert.deepEqual(outcome.value, expected);
    });
  }
  await t.step("refused calls never reach the bridge and are counted", async () => {
    const bridge = new FakeBridge();
    const outcome = await run("async function run(relay) { await relay.echo([1]).catch(() => {}); }", bridge);
    assert.deepEqual([bridge.seen.length, outcome.callsRefused, outcome.calls], [0, 1, []]);
  });
});

Deno.test("runProgram: console lines captured with their level, formatted as a console would", async () => {
  const outcome = await run(`async function run() {
    console.log("plain", 1, { a: [1] }, null, undefined, true);
    console.info(new RangeError("out"), 5n, function named() {}, Symbol("s"));
    console.warn("w"); console.error("e"); console.debug("d");
    const cyclic = {}; cyclic.self = cyclic; console.log(cyclic);
  }`);
  assert.deepEqual(outcome.logs, [
    { level: "log", text: 'plain 1 {"a":[1]} null undefined true' },
    { level: "info", text: "RangeError: out 5n [Function: named] Symbol(s)" },
    { level: "warn", text: "w" },
    { level: "error", text: "e" },
    { level: "debug", text: "d" },
    { level: "log", text: "[object Object]" },
  ]);
  assert.equal(outcome.logsDropped, 0);
});

Deno.test("runProgram: a log line longer than the whole budget is cut before it crosses", async () => {
  const outcome = await run(
    "async function run() { console.warn('z'.repeat(3 * 1024 * 1024)); }",
    new FakeBridge(),
    {
      outputBytes: 64 * 1024,
      wallMs: 20_000,
    },
  );
  assert.equal(outcome.end, "returned", outcome.error);
  assert.deepEqual(outcome.logs, [{ level: "warn", text: "z".repeat(64 * 1024) }]);
});

Deno.test("runProgram: calls reach the bridge in the order the program makes them", async () => {
  const bridge = new FakeBridge();
  const outcome = await run(
    `async function run(relay) {
    await relay.echo({ i: 1 });
    await relay.later({ i: 2 });
    await Promise.all([relay.echo({ i: 3 }), relay.later({ i: 4 }), relay.echo({ i: 5 })]);
  }`,
    bridge,
  );
  assert.equal(outcome.end, "returned");
  assert.deepEqual(bridge.seen.map((call) => call.args.i), [1, 2, 3, 4, 5]);
  assert.deepEqual(outcome.calls.map((call) => call.tool), ["echo", "later", "echo", "later", "echo"]);
});

Deno.test("runProgram: Promise.all of 50 calls: all served, never more than 8 at once", async () => {
  const bridge = new FakeBridge();
  const outcome = await run(
    `async function run(relay) {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => relay.later({ i })));
    return answers.map((answer) => answer.i);
  }`,
    bridge,
  );
  assert.equal(outcome.end, "returned", outcome.error);
  assert.deepEqual(outcome.value, Array.from({ length: 50 }, (_, i) => i));
  assert.equal(bridge.seen.length, 50);
  assert.equal(bridge.maxInFlight, 8);
});

Deno.test("runProgram: 1,000 calls asked: 100 made, the rest rejected inside the program", async () => {
  const bridge = new FakeBridge();
  const outcome = await run(
    `async function run(relay) {
    const settled = await Promise.allSettled(Array.from({ length: 1000 }, (_, i) => relay.echo({ i })));
    const refused = settled.filter((s) => s.status === "rejected");
    return [settled.length - refused.length, refused.length, refused[0].reason.message];
  }`,
    bridge,
    { wallMs: 10_000 },
  );
  assert.equal(outcome.end, "returned", outcome.error);
  assert.deepEqual(outcome.value, [100, 900, callLimitMessage(100)]);
  assert.equal(bridge.seen.length, 100);
  assert.equal(outcome.calls.length, 100);
  assert.equal(outcome.callsRefused, 900);
});

Deno.test("runProgram: the call limit's error, not caught, ends the program as `calls`", async () => {
  const outcome = await run(
    "async function run(relay) { for (let i = 0; i < 5; i++) await relay.echo({ i }); }",
    new FakeBridge(),
    { maxCalls: 3 },
  );
  assert.equal(outcome.end, "calls");
  assert.match(outcome.error ?? "", /relay call limit reached: a program may make at most 3 relay calls/);
  assert.equal(outcome.calls.length, 3);
});

Deno.test("runProgram: programs that cannot start say why", async (t) => {
  await t.step("no run", async () => {
    const outcome = await run("function walk() {}");
    assert.equal(outcome.end, "no-run");
    assert.match(outcome.error ?? "", /must define `async function run\(relay\)/);
  });
  await t.step("run that is not a function", async () => {
    assert.equal((await run("var run = 5;")).end, "no-run");
  });
  await t.step("a syntax error, read by QuickJS (plain JavaScript): its message and line", async () => {
    const outcome = await within(
      30_000,
      "outcome",
      runProgram("async function run() {\n  return 1 +;\n}", new FakeBridge(), {
        limits: SHORT,
        typescript: false,
      }),
    );
    assert.equal(outcome.end, "syntax");
    assert.match(outcome.error ?? "", /^SyntaxError: .+ \(line 2, column \d+\)$/);
  });
  await t.step("a syntax error, read by the TypeScript stripper: its line", async () => {
    const outcome = await run("async function run() {\n  return 1 +;\n}");
    assert.equal(outcome.end, "syntax");
    assert.match(outcome.error ?? "", /^SyntaxError: .+ \(line 2, column \d+\)$/);
  });
  await t.step("a throw at the top level", async () => {
    const outcome = await run("throw new Error('at load');\nasync function run() {}");
    assert.equal(outcome.end, "threw");
    assert.match(outcome.error ?? "", /^Error: at load/);
  });
});

Deno.test("runProgram: QuickJS's own stack limit holds first: a program may catch its stack overflow", async () => {
  const outcome = await run(
    "async function run() { function f() { return f() + 1; } try { f(); } catch (e) { return String(e); } }",
    new FakeBridge(),
    { wallMs: 20_000 },
  );
  assert.deepEqual(
    [outcome.end, outcome.value],
    ["returned", "InternalError: stack overflow"],
    outcome.error,
  );
});

Deno.test("runProgram: after a clean end the instance is kept for the next program", async () => {
  const outcome = await run("async function run(relay) { return (await relay.echo()).echoed; }");
  assert.equal(outcome.end, "returned");
  assert.equal(sandboxStats().idle, true);
});

Deno.test("runProgram: a program that can never finish ends at once, without waiting for its deadline", async () => {
  const outcome = await within(
    10_000,
    "never-settles, well before the 60 s deadline",
    runProgram("async function run() { await new Promise(() => {}); }", new FakeBridge(), {
      limits: { wallMs: 60_000 },
    }),
  );
  assert.equal(outcome.end, "never-settles");
  assert.match(outcome.error ?? "", /can never finish/);
});

Deno.test("runProgram: a host call that never settles is settled at the deadline, its signal aborted", async () => {
  const bridge = new FakeBridge();
  const outcome = await run(
    "async function run(relay) { console.log('before'); await relay.never(); }",
    bridge,
  );
  assert.equal(outcome.end, "timeout");
  assert.match(outcome.error ?? "", /time limit of 300 ms/);
  assert.deepEqual(outcome.calls, [{ tool: "never", state: "aborted" }]);
  assert.equal(bridge.seen[0].context.signal.aborted, true);
  assert.deepEqual(outcome.logs, [{ level: "log", text: "before" }], "what happened so far is kept");
});

Deno.test("runProgram: a program that returns with calls in flight has them aborted", async () => {
  const bridge = new FakeBridge();
  const outcome = await run(
    "async function run(relay) { relay.never(); await relay.echo(); return 'done'; }",
    bridge,
  );
  assert.deepEqual([outcome.end, outcome.value], ["returned", "done"]);
  assert.deepEqual(outcome.calls.map((call) => call.state), ["aborted", "ok"]);
  assert.equal(bridge.seen[0].context.signal.aborted, true);
});

Deno.test("runProgram: time paused while a person is asked does not count", async (t) => {
  await t.step("a call paused past the whole limit still answers, and the program returns", async () => {
    const bridge = new FakeBridge({
      confirm: async (_args, context) => {
        const resume = context.pause();
        await new Promise((resolve) => setTimeout(resolve, 3 * SHORT.wallMs));
        resume();
        return "approved";
      },
    });
    const outcome = await run("async function run(relay) { return await relay.confirm(); }", bridge);
    assert.deepEqual([outcome.end, outcome.value], ["returned", "approved"], outcome.error);
  });
  await t.step("a pause never buys endless computation: a loop meanwhile still times out", async () => {
    const bridge = new FakeBridge({
      confirm: (_args, context) => {
        context.pause();
        return new Promise(() => {});
      },
    });
    const outcome = await run(
      "async function run(relay) { relay.confirm(); await relay.echo(); while (true) {} }",
      bridge,
    );
    assert.equal(outcome.end, "timeout");
  });
});

Deno.test("runProgram: cancellation mid-run: calls not yet sent are never sent", async () => {
  const bridge = new FakeBridge();
  const controller = new AbortController();
  const running = runProgram(
    "async function run(relay) { console.log('started');\n" +
      "  await Promise.all(Array.from({ length: 20 }, () => relay.never())); }",
    bridge,
    { limits: { wallMs: 60_000 }, signal: controller.signal },
  );
  await within(10_000, "8 calls in flight", until(() => bridge.seen.length === 8));
  controller.abort();
  const outcome = await within(10_000, "the cancelled outcome", running);
  assert.equal(outcome.end, "cancelled");
  assert.equal(bridge.seen.length, 8);
  assert.deepEqual(
    outcome.calls.map((call) => call.state),
    [...Array(8).fill("aborted"), ...Array(12).fill("not-sent")],
  );
  assert.ok(bridge.seen.every((call) => call.context.signal.aborted));
  assert.deepEqual(outcome.logs, [{ level: "log", text: "started" }]);
});

Deno.test("runProgram: cancelled before it starts: nothing runs", async () => {
  const bridge = new FakeBridge();
  const outcome = await runProgram("async function run(relay) { await relay.echo(); }", bridge, {
    signal: AbortSignal.abort(),
  });
  assert.deepEqual([outcome.end, bridge.seen.length], ["cancelled", 0]);
});

Deno.test("runProgram: limits are checked", async () => {
  await assert.rejects(() => runProgram("", new FakeBridge(), { limits: { wallMs: 0 } }), RangeError);
  await assert.rejects(
    () => runProgram("", new FakeBridge(), { limits: { memoryBytes: 1024 } }),
    /memoryBytes/,
  );
});

Deno.test("runProgram: at most two programs run at once; a third waits, its clock not yet started", async () => {
  const releases: (() => void)[] = [];
  const bridge = new FakeBridge({
    hold: () => new Promise<string>((resolve) => releases.push(() => resolve("held"))),
  });
  const holding = "async function run(relay) { return await relay.hold(); }";
  const first = runProgram(holding, bridge, { limits: { wallMs: 20_000 } });
  const second = runProgram(holding, bridge, { limits: { wallMs: 20_000 } });
  await within(10_000, "two programs holding", until(() => bridge.seen.length === 2));
  const third = runProgram("async function run(relay) { return (await relay.echo()).echoed; }", bridge, {
    limits: SHORT,
  });
  await within(10_000, "the third in line", until(() => sandboxStats().waiting === 1));
  assert.equal(sandboxStats().running, 2);
  assert.equal(bridge.seen.length, 2, "the third has not started");
  // Longer in line than its whole time limit: its clock starts with its turn.
  await new Promise((resolve) => setTimeout(resolve, 3 * SHORT.wallMs));
  releases[0]();
  const outcomes = await within(20_000, "all three", Promise.all([first, third, (releases[1](), second)]));
  assert.deepEqual(outcomes.map((outcome) => [outcome.end, outcome.value]), [
    ["returned", "held"],
    ["returned", {}],
    ["returned", "held"],
  ]);
  assert.deepEqual(sandboxStats(), { running: 0, waiting: 0, idle: true });
});

/** A list tool over `total` items, `limit` a page (the relay's default 100), cursors as the last index. */
function lister(total: number) {
  return (args: Record<string, unknown>) => {
    const from = args.cursor === undefined ? 0 : Number(args.cursor);
    const limit = typeof args.limit === "number" ? args.limit : 100;
    const items = Array.from(
      { length: Math.max(0, Math.min(limit, total - from)) },
      (_, i) => ({ n: from + i }),
    );
    return { items, next_cursor: from + limit < total ? String(from + limit) : "" };
  };
}

const LIST_TOOLS = [
  "list_repositories",
  "list_issues",
  "list_pull_requests",
  "list_files",
  "list_rooms",
  "list_wiki",
  "list_jobs",
];

Deno.test("pages that continue: for await, hasNextPage, getNextPage, the same on every list tool", async (t) => {
  await t.step("for await walks 250 items in 3 calls, each the same call with the cursor", async () => {
    const bridge = new FakeBridge({ list_rooms: lister(250) });
    const outcome = await run(
      `async function run(relay) {
      let count = 0, last = -1;
      for await (const room of await relay.list_rooms({ limit: 100, q: "x" })) { count++; last = room.n; }
      return [count, last];
    }`,
      bridge,
    );
    assert.deepEqual(outcome.value, [250, 249], outcome.error);
    assert.deepEqual(bridge.seen.map((call) => call.args), [
      { limit: 100, q: "x" },
      { limit: 100, q: "x", cursor: "100" },
      { limit: 100, q: "x", cursor: "200" },
    ]);
  });
  await t.step("hasNextPage, getNextPage and null after the last page; each page its own call", async () => {
    const bridge = new FakeBridge({ list_rooms: lister(150) });
    const outcome = await run(
      `async function run(relay) {
      const first = await relay.list_rooms();
      const second = await first.getNextPage();
      return [first.hasNextPage(), second.items.length, second.hasNextPage(), await second.getNextPage()];
    }`,
      bridge,
    );
    assert.deepEqual(outcome.value, [true, 50, false, null], outcome.error);
    assert.equal(bridge.seen.length, 2, "getNextPage on the last page calls nothing");
    assert.equal(outcome.calls.length, 2);
  });
  await t.step("never in JSON, never among the keys; a field of the answer's own kept", async () => {
    const bridge = new FakeBridge({
      list_rooms: () => ({ items: [1], next_cursor: "", hasNextPage: "the relay's own" }),
    });
    const outcome = await run(
      `async function run(relay) {
      const page = await relay.list_rooms({});
      return [JSON.stringify(page), Object.keys(page), page.hasNextPage, typeof page.getNextPage,
        typeof page[Symbol.asyncIterator]];
    }`,
      bridge,
    );
    assert.deepEqual(outcome.value, [
      '{"items":[1],"next_cursor":"","hasNextPage":"the relay\'s own"}',
      ["items", "next_cursor", "hasNextPage"],
      "the relay's own",
      "function",
      "function",
    ], outcome.error);
  });
  await t.step("no next_cursor, no helpers; a page without items cannot be walked; break stops", async () => {
    const bridge = new FakeBridge({
      read_room: () => ({ messages: [], next_cursor: "m1" }),
      list_rooms: lister(1000),
    });
    const outcome = await run(
      `async function run(relay) {
      const plain = await relay.echo({});
      let walked = "walked";
      try { for await (const m of await relay.read_room({ id: "r" })) {} } catch (error) { walked = error.message; }
      let seen = 0;
      for await (const room of await relay.list_rooms({})) { if (++seen === 150) break; }
      return [typeof plain.getNextPage, walked, seen];
    }`,
      bridge,
    );
    assert.deepEqual(outcome.value, ["undefined", "relay.read_room: its answer has no items to walk", 150]);
    assert.equal(
      bridge.seen.filter((call) => call.tool === "list_rooms").length,
      2,
      "no page after the break",
    );
  });
  await t.step("the same helpers on every list tool", async () => {
    const bridge = new FakeBridge(Object.fromEntries(LIST_TOOLS.map((name) => [name, lister(120)])));
    const outcome = await run(
      `async function run(relay) {
      const counts = {};
      for (const name of ${JSON.stringify(LIST_TOOLS)}) {
        counts[name] = 0;
        for await (const item of await relay[name]({})) counts[name]++;
      }
      return counts;
    }`,
      bridge,
      { wallMs: 20_000 },
    );
    assert.deepEqual(outcome.value, Object.fromEntries(LIST_TOOLS.map((name) => [name, 120])), outcome.error);
    assert.equal(bridge.seen.length, LIST_TOOLS.length * 2);
  });
});

Deno.test("a write's second argument: its idempotencyKey reaches the bridge; anything else is refused", async () => {
  const bridge = new FakeBridge({
    post_message: (_args, context) => ({ key: context.idempotencyKey ?? null }),
  });
  const outcome = await run(
    `async function run(relay) {
    const out = [];
    const attempts = [
      () => relay.post_message({ room: "r" }, { idempotencyKey: "greeting-1" }),
      () => relay.post_message({ room: "r" }),
      () => relay.post_message({ room: "r" }, {}),
      () => relay.post_message({ room: "r" }, "greeting-1"),
      () => relay.post_message({ room: "r" }, { idempotencyKey: "k", retries: 2 }),
      () => relay.post_message({ room: "r" }, { idempotencyKey: 7 }),
      () => relay.post_message({ room: "r" }, { idempotencyKey: "" }),
      () => relay.post_message({ room: "r" }, { idempotencyKey: "k".repeat(201) }),
      () => relay.echo({}, { idempotencyKey: "k" }),
    ];
    for (const attempt of attempts) {
      try { out.push((await attempt()).key); } catch (error) { out.push(error.message); }
    }
    return out;
  }`,
    bridge,
  );
  assert.deepEqual(outcome.value, [
    "greeting-1",
    null,
    null,
    "relay.post_message: the second argument must be an object: { idempotencyKey }",
    'relay.post_message: the second argument takes only idempotencyKey, not "retries"',
    "relay.post_message: the second argument needs a string idempotencyKey",
    "relay.post_message: the idempotencyKey must be a non-empty string",
    "relay.post_message: the idempotencyKey is 201 characters, at most 200",
    "relay.echo: the idempotencyKey is for a write, and echo is not one",
  ], outcome.error);
  assert.equal(bridge.seen.length, 3, "only the calls that crossed");
  assert.equal(outcome.callsRefused, 3, "refused at the boundary, counted");
});

Deno.test("pages and keys are compiled when first needed: a program that broke the built-ins first breaks only its own", async () => {
  const bridge = new FakeBridge({ list_rooms: lister(150), post_message: () => ({ ok: true }) });
  const outcome = await run(
    `async function run(relay) {
    Reflect.apply = () => { throw new Error("mine"); };
    Object.keys = () => ["spoofed"];
    const out = [];
    try { out.push((await relay.list_rooms({})).hasNextPage()); } catch (error) { out.push(error.message); }
    try { await relay.post_message({}, { idempotencyKey: "k" }); out.push("sent"); } catch (error) { out.push(error.message); }
    return out;
  }`,
    bridge,
  );
  assert.equal(outcome.end, "returned", outcome.error);
  assert.deepEqual(outcome.value, [
    "mine",
    'relay.post_message: the second argument takes only idempotencyKey, not "spoofed"',
  ]);
  assert.equal(
    bridge.seen.length,
    1,
    "the page's call was made; the write, its options misread, was not sent",
  );
});
