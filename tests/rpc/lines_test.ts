// The helper's line protocol (lib/rpc/lines.ts), rpc-facts.md 2.1 and 2.2: a request line read into
// its id (as written), method and params, refusals that never echo the line, and every line written
// field for field as the Go peer writes it, `<`, `>`, `&`, U+2028 and U+2029 escaped.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey } from "nostr-tools/pure";
import {
  connectedLine,
  errorLine,
  eventLine,
  parseRequestLine,
  resultLine,
  type RpcRequest,
  streamErrorLine,
} from "../../lib/rpc/lines.ts";
import { sharedRun } from "../support/tinyagent.ts";

function request(line: string): RpcRequest {
  const parsed = parseRequestLine(line);
  assert.ok("request" in parsed, `expected a request from ${line}, got ${JSON.stringify(parsed)}`);
  return parsed.request;
}

function refused(line: string): { id?: string; message: string } {
  const parsed = parseRequestLine(line);
  assert.ok("refused" in parsed, `expected a refusal of ${line}, got ${JSON.stringify(parsed)}`);
  return parsed.refused;
}

Deno.test("ids are echoed byte for byte", async (t) => {
  const ids: [string, string][] = [
    ["an integer", "7"],
    ["a string", '"a"'],
    ["1.0 stays 1.0", "1.0"],
    ["an exponent", "1e3"],
    ["minus zero", "-0"],
    ["null", "null"],
    ["a 20-digit integer", "12345678901234567890"],
    ["a string with escapes", '"a\\"b\\u00e9\\/"'],
    ["an object", '{"a":[1.0,"x"],"b":{}}'],
    ["an array", "[1,2]"],
    ["false", "false"],
  ];
  for (const [name, id] of ids) {
    await t.step(name, () => {
      for (const line of [`{"id":${id},"method":"identity"}`, `{ "method" : "identity" ,  "id" :  ${id} }`]) {
        const parsed = request(line);
        assert.equal(parsed.id, id, line);
        assert.equal(resultLine(parsed.id, { ok: true }), `{"id":${id},"result":{"ok":true}}`);
        assert.equal(errorLine(parsed.id, "boom"), `{"id":${id},"error":{"message":"boom"}}`);
      }
    });
  }
  await t.step("the last of duplicate ids, as JSON.parse reads them", () => {
    assert.equal(request('{"id":1,"method":"identity","id":2.50}').id, "2.50");
  });
  await t.step("an id under an escaped key", () => {
    assert.equal(request('{"\\u0069d":5,"method":"identity"}').id, "5");
  });
  await t.step("an id only inside params is not the line's", () => {
    const parsed = request('{"method":"identity","params":{"id":9}}');
    assert.ok(!Object.hasOwn(parsed, "id"));
  });
  await t.step("no id: none, and the answer has none", () => {
    const parsed = request('{"method":"identity"}');
    assert.ok(!Object.hasOwn(parsed, "id"), JSON.stringify(parsed));
    assert.equal(resultLine(parsed.id, 1), '{"result":1}');
    assert.equal(errorLine(parsed.id, "x"), '{"error":{"message":"x"}}');
  });
});

Deno.test("method and params", async (t) => {
  await t.step("a full request, the line kept whole", () => {
    const line = '{"id":3,"method":"publish","params":{"event":{"kind":9,"content":"hi"}},"jsonrpc":"2.0"}';
    assert.deepEqual(request(line), {
      id: "3",
      method: "publish",
      params: { event: { kind: 9, content: "hi" } },
      line,
    });
  });
  await t.step('a missing method is "" (then unknown method "")', () => {
    assert.equal(request('{"id":1}').method, "");
    assert.equal(request('{"id":1,"method":null}').method, "");
  });
  await t.step("params absent or null are {}", () => {
    assert.deepEqual(request('{"id":1,"method":"identity"}').params, {});
    assert.deepEqual(request('{"id":1,"method":"identity","params":null}').params, {});
  });
  await t.step(
    "an empty object",
    () => assert.deepEqual(request("{}"), { method: "", params: {}, line: "{}" }),
  );
  const wrongMethod = [
    '{"id":4,"method":5}',
    '{"id":4,"method":true}',
    '{"id":4,"method":["identity"]}',
    '{"id":4,"method":{}}',
  ];
  for (const line of wrongMethod) {
    await t.step(`a method that is not a string is refused with the id: ${line}`, () => {
      assert.deepEqual(refused(line), { id: "4", message: "invalid request: method must be a string" });
    });
  }
  const wrongParams = ["[]", "[1]", '"x"', "5", "true", "false"];
  for (const params of wrongParams) {
    await t.step(`params that are not an object are refused with the id: ${params}`, () => {
      const line = `{"id":"p","method":"identity","params":${params}}`;
      assert.deepEqual(refused(line), {
        id: '"p"',
        message: "invalid request: params must be a JSON object",
      });
      const without = refused(`{"method":"identity","params":${params}}`);
      assert.ok(!Object.hasOwn(without, "id") || without.id === undefined, "no id, none echoed");
    });
  }
});

Deno.test("a line that is not a request is refused without an id and without its text", async (t) => {
  const key = "d" + "0f".repeat(31) + "e";
  const lines: [string, string][] = [
    ["an empty line", ""],
    ["spaces", "   "],
    ["not JSON", "hello"],
    ["a bare key", key],
    ["a key after a letter", `x${key}`],
    ["an unquoted key as a value", `{"id":1,"method":"publish","params":{"key": ${key}}}`],
    ["a key in a truncated line", `{"id":1,"method":"publish","params":{"key":"${key}"`],
    ["a key after the object", `{"id":1} ${key}`],
    ["a key with a stray backslash", `{"a":"\\${key}"}`],
    ["an array holding a key", `["${key}"]`],
    ["an unquoted key in an array", `[${key}]`],
    ["a string holding a key", `"${key}"`],
    ["null", "null"],
    ["a number", "5"],
    ["two objects", '{"id":1}{"id":2}'],
    ["a trailing comma", '{"id":1,}'],
  ];
  for (const [name, line] of lines) {
    await t.step(name, () => {
      const answer = refused(line);
      assert.ok(answer.id === undefined, `no id: ${JSON.stringify(answer)}`);
      assert.equal(sharedRun(key, answer.message), undefined, answer.message);
      // Nothing of the line at all: the words of the refusal, at most a position.
      assert.match(
        answer.message,
        /^invalid request: (the line is empty|the line is not JSON( \(at position \d+\))?|the line is not one JSON object)$/,
      );
      assert.equal(
        errorLine(answer.id, answer.message),
        `{"error":${JSON.stringify({ message: answer.message })}}`,
      );
    });
  }
  await t.step(
    "an empty line says so",
    () => assert.equal(refused("").message, "invalid request: the line is empty"),
  );
});

Deno.test("the lines written: field order as the Go peer writes them", async (t) => {
  await t.step("result", () => {
    assert.equal(resultLine("7", { pubkey: "ab" }), '{"id":7,"result":{"pubkey":"ab"}}');
    assert.equal(resultLine("7", [1, "a"]), '{"id":7,"result":[1,"a"]}');
    assert.equal(resultLine("7", null), '{"id":7,"result":null}');
    assert.equal(resultLine("7", undefined), '{"id":7,"result":null}');
    assert.equal(resultLine(undefined, undefined), '{"result":null}');
    assert.equal(resultLine("1.0", "x"), '{"id":1.0,"result":"x"}');
  });
  await t.step("error", () => {
    assert.equal(
      errorLine('"a"', "relay rejected event"),
      '{"id":"a","error":{"message":"relay rejected event"}}',
    );
    assert.equal(errorLine(undefined, 'a "quoted"\nline'), '{"error":{"message":"a \\"quoted\\"\\nline"}}');
  });
  await t.step("connected", () => {
    assert.equal(connectedLine("tinyagent"), '{"event":"connected","subscription":"tinyagent"}');
  });
  await t.step("a stream's end", () => {
    assert.equal(
      streamErrorLine("tinyagent", "context canceled"),
      '{"event":"error","subscription":"tinyagent","data":{"message":"context canceled"}}',
    );
  });
  await t.step("each line is one line", () => {
    const lines = [
      resultLine("1", { text: "a\nb\r\nc" }),
      errorLine("1", "a\nb"),
      connectedLine("a\nb"),
      streamErrorLine("a\nb", "c\nd"),
    ];
    for (const line of lines) assert.ok(!/[\n\r]/.test(line), line);
  });
});

function signed(content: string, tags: string[][] = [["h", "general"]]) {
  return finalizeEvent({ kind: 9, created_at: 1_700_000_000, tags, content }, generateSecretKey());
}

Deno.test("eventLine: exactly the seven members, in the NIP-01 order", async (t) => {
  const event = signed("hello");
  const expected =
    `{"event":"event","subscription":"tinyagent","data":{"id":"${event.id}","pubkey":"${event.pubkey}",` +
    `"created_at":1700000000,"kind":9,"tags":[["h","general"]],"content":"hello","sig":"${event.sig}"}}`;
  await t.step("as nostr-tools returns it", () => assert.equal(eventLine("tinyagent", event), expected));
  await t.step("members in another order, and members the relay added, are not passed on", () => {
    const shuffled = {
      sig: event.sig,
      relay: "wss://elsewhere.example",
      content: event.content,
      tags: event.tags,
      seen_on: ["x"],
      kind: event.kind,
      created_at: event.created_at,
      pubkey: event.pubkey,
      id: event.id,
    };
    assert.equal(eventLine("tinyagent", shuffled), expected);
    assert.deepEqual(Object.keys(JSON.parse(eventLine("tinyagent", shuffled)).data), [
      "id",
      "pubkey",
      "created_at",
      "kind",
      "tags",
      "content",
      "sig",
    ]);
  });
});

Deno.test("Go's escaping: <, >, &, U+2028 and U+2029 as \\u escapes, the same value when parsed", async (t) => {
  const text = '<script>a && b</script> \u2028 \u2029 é 😀 "q" \\ \n';
  const lines: [string, string, unknown][] = [
    ["a result", resultLine("1", { text, [text]: [text] }), { id: 1, result: { text, [text]: [text] } }],
    ["an error", errorLine("1", text), { id: 1, error: { message: text } }],
    ["connected", connectedLine(text), { event: "connected", subscription: text }],
    ["a stream's end", streamErrorLine(text, text), {
      event: "error",
      subscription: text,
      data: { message: text },
    }],
  ];
  const event = signed(text, [["h", "<&>"], ["subject", text]]);
  lines.push(["an event", eventLine(text, event), {
    event: "event",
    subscription: text,
    data: {
      id: event.id,
      pubkey: event.pubkey,
      created_at: event.created_at,
      kind: event.kind,
      tags: event.tags,
      content: event.content,
      sig: event.sig,
    },
  }]);
  for (const [name, line, value] of lines) {
    await t.step(name, () => {
      assert.ok(!/[<>&\u2028\u2029]/.test(line), line);
      for (const escape of ["\\u003c", "\\u003e", "\\u0026", "\\u2028", "\\u2029"]) {
        assert.ok(line.includes(escape), `${escape} in ${line}`);
      }
      assert.ok(line.includes("é") && line.includes("😀"), "other characters are written as they are");
      assert.deepEqual(JSON.parse(line), value);
    });
  }
});
