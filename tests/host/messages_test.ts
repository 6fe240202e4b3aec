// parseLine's notification case (lib/host/messages.ts): a message with a method and no id is
// handed on, whatever its method and params, and never answered. The other cases (requests,
// responses, every malformed line, encodeAnswer) are in protocol_test.

import assert from "node:assert/strict";
import { parseLine } from "../../lib/host/messages.ts";

Deno.test("a notification: its method and params, as written, nothing answered", () => {
  const cases: [unknown, unknown][] = [
    [{ jsonrpc: "2.0", method: "notifications/initialized" }, undefined],
    [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }, { requestId: 1 }],
    [
      {
        jsonrpc: "2.0",
        method: "notifications/claude/channel/permission_request",
        params: { request_id: "abcde", tool_name: "Bash" },
      },
      { request_id: "abcde", tool_name: "Bash" },
    ],
    // Whatever the params: a notification is never refused.
    [{ jsonrpc: "2.0", method: "no/such/thing", params: "text" }, "text"],
    [{ jsonrpc: "2.0", method: "tools/call", params: [1, 2] }, [1, 2]],
  ];
  for (const [message, params] of cases) {
    const { method } = message as { method: string };
    assert.deepEqual(parseLine(JSON.stringify(message)), { notification: { method, params } }, method);
  }
});

Deno.test("an id, even null, makes it a request, not a notification", () => {
  const parsed = parseLine('{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}');
  assert.ok(!("notification" in parsed));
  assert.ok("answer" in parsed);
  assert.ok("request" in parseLine('{"jsonrpc":"2.0","id":1,"method":"ping"}'));
});

Deno.test("a method that is not a string, or a wrong jsonrpc, is no notification", () => {
  for (
    const line of [
      '{"jsonrpc":"2.0","method":7}',
      '{"jsonrpc":"1.0","method":"notifications/initialized"}',
      '{"method":"notifications/initialized"}',
    ]
  ) {
    const parsed = parseLine(line);
    assert.ok(!("notification" in parsed), line);
    assert.ok("answer" in parsed, line);
  }
});
