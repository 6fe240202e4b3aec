// The relay's HTTP answers as the helper reads them (lib/relay/helper_answer.ts), rpc-facts.md 3.2
// and 4.3: a non-2xx in the Go peer's words `relay HTTP <code> <reason>: <body, trimmed>`, and the
// publish receipt (accepted, refused with the relay's message, or not a receipt at all).

import assert from "node:assert/strict";
import {
  httpRefusal,
  type PlainAnswer,
  publishReceipt,
  REFUSAL_BODY_CHARS,
  succeeded,
} from "../../lib/relay/helper_answer.ts";

const answer = (status: number, reason: string, body: string): PlainAnswer => ({ status, reason, body });
const EVENT_ID = "ab".repeat(32);

Deno.test("httpRefusal: the status line and the body, whitespace-trimmed", async (t) => {
  const cases: [string, PlainAnswer, string][] = [
    [
      "a refused publish",
      answer(
        400,
        "Bad Request",
        ` \n{"accepted":false,"event_id":"${EVENT_ID}","message":"restricted: not a member of room x"}\r\n\t`,
      ),
      `relay HTTP 400 Bad Request: {"accepted":false,"event_id":"${EVENT_ID}","message":"restricted: not a member of room x"}`,
    ],
    [
      "an expired token",
      answer(401, "Unauthorized", '{"error":"auth-required: token expired"}\n'),
      'relay HTTP 401 Unauthorized: {"error":"auth-required: token expired"}',
    ],
    [
      "a plain-text body",
      answer(413, "Payload Too Large", "attachment exceeds 32 MiB\n"),
      "relay HTTP 413 Payload Too Large: attachment exceeds 32 MiB",
    ],
    [
      "inner whitespace kept",
      answer(404, "Not Found", "  relay  not\nfound  "),
      "relay HTTP 404 Not Found: relay  not\nfound",
    ],
    ["an empty body", answer(500, "Internal Server Error", ""), "relay HTTP 500 Internal Server Error: "],
    [
      "a body of whitespace",
      answer(503, "Service Unavailable", " \r\n\t "),
      "relay HTTP 503 Service Unavailable: ",
    ],
    ["no reason phrase", answer(418, "", "teapot"), "relay HTTP 418: teapot"],
    ["a 3xx is said the same way", answer(302, "Found", ""), "relay HTTP 302 Found: "],
  ];
  for (const [name, given, expected] of cases) {
    await t.step(name, () => assert.equal(httpRefusal(given), expected));
  }
  await t.step(`a body of exactly ${REFUSAL_BODY_CHARS} characters is kept whole`, () => {
    const body = "x".repeat(REFUSAL_BODY_CHARS);
    assert.equal(httpRefusal(answer(400, "Bad Request", ` ${body} `)), `relay HTTP 400 Bad Request: ${body}`);
  });
  await t.step("a longer body is cut, and says how long it was", () => {
    const body = "y".repeat(REFUSAL_BODY_CHARS) + "z".repeat(904);
    const text = httpRefusal(answer(400, "Bad Request", `\n${body}\n`));
    assert.ok(
      text.startsWith(`relay HTTP 400 Bad Request: ${"y".repeat(REFUSAL_BODY_CHARS)}`),
      text.slice(0, 80),
    );
    assert.ok(!text.includes("z"), "nothing past the cut");
    assert.match(text, /5000 characters/);
    assert.ok(text.length < REFUSAL_BODY_CHARS + 100, `${text.length} characters`);
  });
});

Deno.test("succeeded: 2xx only", () => {
  for (const status of [200, 201, 202, 204, 299]) assert.equal(succeeded({ status }), true, `${status}`);
  for (const status of [100, 199, 300, 304, 400, 401, 500, 599]) {
    assert.equal(succeeded({ status }), false, `${status}`);
  }
});

Deno.test("publishReceipt", async (t) => {
  const cases: [string, PlainAnswer, ReturnType<typeof publishReceipt>][] = [
    [
      "accepted",
      answer(200, "OK", `{"accepted":true,"event_id":"${EVENT_ID}","message":""}`),
      { accepted: true, message: "" },
    ],
    [
      "accepted as a duplicate: the message is kept",
      answer(
        200,
        "OK",
        `{"accepted":true,"event_id":"${EVENT_ID}","message":"duplicate: already have this event"}`,
      ),
      { accepted: true, message: "duplicate: already have this event" },
    ],
    ["accepted without a message", answer(200, "OK", '{"accepted":true}'), { accepted: true, message: "" }],
    [
      "accepted with a 201",
      answer(201, "Created", ' {"accepted": true, "message": "info: report received"} '),
      {
        accepted: true,
        message: "info: report received",
      },
    ],
    ["accepted with a 299", answer(299, "", '{"accepted":true}'), { accepted: true, message: "" }],
    [
      "a 2xx refusal: the relay's message alone",
      answer(
        200,
        "OK",
        `{"accepted":false,"event_id":"${EVENT_ID}","message":"restricted: agent grant expired"}`,
      ),
      { accepted: false, error: "restricted: agent grant expired", refused: true },
    ],
    [
      "a 2xx refusal with an empty message",
      answer(200, "OK", '{"accepted":false,"message":""}'),
      { accepted: false, error: "relay rejected event", refused: true },
    ],
    [
      "a 2xx refusal without a message",
      answer(200, "OK", '{"accepted":false}'),
      { accepted: false, error: "relay rejected event", refused: true },
    ],
  ];
  for (const [name, given, expected] of cases) {
    await t.step(name, () => assert.deepEqual(publishReceipt(given), expected));
  }
  const notReceipts: [string, string][] = [
    ["not JSON", "ok"],
    ["an empty body", ""],
    ["HTML", "<html>ok</html>"],
    ["no accepted", `{"event_id":"${EVENT_ID}","message":""}`],
    ["accepted as a string", '{"accepted":"true"}'],
    ["accepted as a number", '{"accepted":1}'],
    ["accepted null", '{"accepted":null}'],
    ["an array", "[true]"],
    ["a bare boolean", "true"],
    ["null", "null"],
    ["truncated JSON", '{"accepted":true'],
  ];
  for (const [name, body] of notReceipts) {
    await t.step(`a 2xx that is no receipt: ${name}`, () => {
      for (const [status, reason] of [[200, "OK"], [201, "Created"], [204, "No Content"]] as const) {
        assert.deepEqual(publishReceipt(answer(status, reason, body)), {
          accepted: false,
          error: "relay returned an invalid publish receipt",
          refused: false,
        });
      }
    });
  }
  const refusals: [string, PlainAnswer][] = [
    [
      "the real relay's 400 receipt",
      answer(400, "Bad Request", `{"accepted":false,"event_id":"${EVENT_ID}","message":"restricted: x"}\n`),
    ],
    [
      "an auth failure",
      answer(401, "Unauthorized", '{"error":"auth-required: token was signed for another URL"}'),
    ],
    ["a non-2xx that says accepted", answer(500, "Internal Server Error", '{"accepted":true}')],
    ["a redirect", answer(307, "Temporary Redirect", "")],
    ["a body too large", answer(400, "Bad Request", '{"error":"http: request body too large"}')],
  ];
  for (const [name, given] of refusals) {
    await t.step(`a non-2xx is refused in httpRefusal's words: ${name}`, () => {
      assert.deepEqual(publishReceipt(given), { accepted: false, error: httpRefusal(given), refused: true });
      assert.match(httpRefusal(given), new RegExp(`^relay HTTP ${given.status} `));
    });
  }
});
