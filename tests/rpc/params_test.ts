// Each method's params (lib/rpc/params.ts), rpc-facts.md section 3: the valid forms, the defaults
// (created_at, tags, content, GET), and every error, the Go peer's words where it names a rule
// (`subscription is required`, `invalid HTTP method`, `invalid attachment data`, diagnose's four).

import assert from "node:assert/strict";
import {
  type Checked,
  diagnoseParams,
  downloadParams,
  HTTP_METHODS,
  INVALID_ATTACHMENT,
  MAX_ATTACHMENT_BYTES,
  publishParams,
  queryParams,
  requestParams,
  subscribeParams,
  SUBSCRIPTION_REQUIRED,
  unsubscribeParams,
  uploadParams,
} from "../../lib/rpc/params.ts";
import type { JsonObject } from "../../lib/wire/mcp.ts";

function valid<T>(checked: Checked<T>): T {
  assert.ok(checked.ok, `expected valid params, got ${JSON.stringify(checked)}`);
  return checked.value;
}

function error<T>(checked: Checked<T>): string {
  assert.ok(!checked.ok, `expected an error, got ${JSON.stringify(checked)}`);
  return checked.error;
}

/** `params` as the line would give them (parsed JSON). */
const p = (json: string) => JSON.parse(json) as JsonObject;

/** Standard padded base64 of bytes, written here without the code under test. */
const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

Deno.test("publish", async (t) => {
  await t.step("the event as given, nothing else", () => {
    const value = valid(publishParams(p(
      `{"event":{"kind":9,"tags":[["h","general"],["p","${"ab".repeat(32)}","","mention"]],"content":"hi",` +
        `"created_at":1700000000,"id":"x","pubkey":"y","sig":"z","extra":1}}`,
    )));
    assert.deepEqual(value, {
      kind: 9,
      tags: [["h", "general"], ["p", "ab".repeat(32), "", "mention"]],
      content: "hi",
      created_at: 1_700_000_000,
    });
  });
  await t.step("created_at absent or 0: left out, to be filled with now", () => {
    for (const createdAt of ["", ',"created_at":0', ',"created_at":null']) {
      const value = valid(publishParams(p(`{"event":{"kind":9,"tags":[],"content":"x"${createdAt}}}`)));
      assert.ok(!Object.hasOwn(value, "created_at"), createdAt);
    }
  });
  await t.step("created_at 1 is kept", () => {
    assert.equal(valid(publishParams(p('{"event":{"kind":9,"created_at":1}}'))).created_at, 1);
  });
  await t.step('tags absent or null: []; content absent or null: ""', () => {
    for (const event of ['{"kind":1}', '{"kind":1,"tags":null,"content":null}']) {
      assert.deepEqual(valid(publishParams(p(`{"event":${event}}`))), { kind: 1, tags: [], content: "" });
    }
  });
  await t.step("kinds from 0 to 65535", () => {
    for (const kind of [0, 1, 9, 1111, 30023, 65535]) {
      assert.equal(valid(publishParams({ event: { kind, tags: [], content: "" } })).kind, kind);
    }
  });
  const mistakes: [string, string, string][] = [
    ["event absent", "{}", "publish: params.event is required: an object with kind, tags and content"],
    [
      "event null",
      '{"event":null}',
      "publish: params.event is required: an object with kind, tags and content",
    ],
    [
      "event an array",
      '{"event":[9]}',
      "publish: params.event is required: an object with kind, tags and content",
    ],
    [
      "event a string",
      '{"event":"{}"}',
      "publish: params.event is required: an object with kind, tags and content",
    ],
    [
      "kind absent",
      '{"event":{"content":"x"}}',
      "publish: event.kind must be a whole number from 0 to 65535",
    ],
    ["kind -1", '{"event":{"kind":-1}}', "publish: event.kind must be a whole number from 0 to 65535"],
    ["kind 65536", '{"event":{"kind":65536}}', "publish: event.kind must be a whole number from 0 to 65535"],
    ["kind 9.5", '{"event":{"kind":9.5}}', "publish: event.kind must be a whole number from 0 to 65535"],
    ["kind a string", '{"event":{"kind":"9"}}', "publish: event.kind must be a whole number from 0 to 65535"],
    ["kind null", '{"event":{"kind":null}}', "publish: event.kind must be a whole number from 0 to 65535"],
    [
      "tags a string",
      '{"event":{"kind":9,"tags":"h"}}',
      "publish: event.tags must be an array of arrays of strings",
    ],
    [
      "tags an object",
      '{"event":{"kind":9,"tags":{}}}',
      "publish: event.tags must be an array of arrays of strings",
    ],
    [
      "a tag not an array",
      '{"event":{"kind":9,"tags":["h"]}}',
      "publish: event.tags must be an array of arrays of strings",
    ],
    [
      "a tag item a number",
      '{"event":{"kind":9,"tags":[["h",1]]}}',
      "publish: event.tags must be an array of arrays of strings",
    ],
    [
      "a tag item null",
      '{"event":{"kind":9,"tags":[["h",null]]}}',
      "publish: event.tags must be an array of arrays of strings",
    ],
    ["content a number", '{"event":{"kind":9,"content":5}}', "publish: event.content must be a string"],
    ["content an object", '{"event":{"kind":9,"content":{}}}', "publish: event.content must be a string"],
  ];
  const CREATED_AT =
    "publish: event.created_at must be a whole number of seconds since 1970 (or absent: now)";
  mistakes.push(
    ["created_at negative", '{"event":{"kind":9,"created_at":-1}}', CREATED_AT],
    ["created_at a fraction", '{"event":{"kind":9,"created_at":1.5}}', CREATED_AT],
    ["created_at a string", '{"event":{"kind":9,"created_at":"1700000000"}}', CREATED_AT],
    ["created_at past 2^53", '{"event":{"kind":9,"created_at":9007199254740993}}', CREATED_AT],
  );
  for (const [name, params, message] of mistakes) {
    await t.step(`refused: ${name}`, () => assert.equal(error(publishParams(p(params))), message));
  }
});

Deno.test("query", async (t) => {
  await t.step("one filter object is one filter", () => {
    assert.deepEqual(valid(queryParams(p('{"filter":{"kinds":[9],"#h":["general"],"limit":1}}'))), [
      { kinds: [9], "#h": ["general"], limit: 1 },
    ]);
  });
  await t.step("an array of filters, kept in order", () => {
    assert.deepEqual(valid(queryParams(p('{"filter":[{"ids":["a"]},{"kinds":[43004]},{}]}'))), [
      { ids: ["a"] },
      { kinds: [43004] },
      {},
    ]);
  });
  const mistakes: [string, string, string][] = [
    ["filter absent", "{}", "query: params.filter is required: a filter object, or an array of them"],
    [
      "filter null",
      '{"filter":null}',
      "query: params.filter is required: a filter object, or an array of them",
    ],
    ["an empty array", '{"filter":[]}', "query: params.filter holds no filter: give at least one"],
    ["a string", '{"filter":"kinds"}', 'query: each filter must be a JSON object, such as {"kinds":[9]}'],
    ["a number", '{"filter":5}', 'query: each filter must be a JSON object, such as {"kinds":[9]}'],
    [
      "an array holding a number",
      '{"filter":[{},5]}',
      'query: each filter must be a JSON object, such as {"kinds":[9]}',
    ],
    [
      "an array holding null",
      '{"filter":[null]}',
      'query: each filter must be a JSON object, such as {"kinds":[9]}',
    ],
    [
      "an array of arrays",
      '{"filter":[[{}]]}',
      'query: each filter must be a JSON object, such as {"kinds":[9]}',
    ],
  ];
  for (const [name, params, message] of mistakes) {
    await t.step(`refused: ${name}`, () => assert.equal(error(queryParams(p(params))), message));
  }
});

Deno.test("subscribe and unsubscribe", async (t) => {
  await t.step("a name and one filter", () => {
    assert.deepEqual(
      valid(subscribeParams(p('{"subscription":"tinyagent","filter":{"kinds":[9,11,12,1111]}}'))),
      {
        name: "tinyagent",
        filter: { kinds: [9, 11, 12, 1111] },
      },
    );
  });
  assert.equal(SUBSCRIPTION_REQUIRED, "subscription is required");
  for (
    const params of [
      "{}",
      '{"subscription":""}',
      '{"subscription":5}',
      '{"subscription":null}',
      '{"subscription":["a"]}',
    ]
  ) {
    await t.step(`subscription is required: ${params}`, () => {
      assert.equal(error(subscribeParams(p(params))), "subscription is required");
      // The name is checked first, as the Go peer does: whatever the filter.
      const withFilter = { ...p(params), filter: { kinds: [9] } };
      assert.equal(error(subscribeParams(withFilter)), "subscription is required");
    });
  }
  for (const filter of ["", ',"filter":null', ',"filter":[{"kinds":[9]}]', ',"filter":"x"']) {
    await t.step(`one filter object is required: ${filter || "absent"}`, () => {
      assert.equal(
        error(subscribeParams(p(`{"subscription":"s"${filter}}`))),
        "subscribe: params.filter is required: one filter object (an array is for query)",
      );
    });
  }
  await t.step("unsubscribe: any string, the empty one too", () => {
    assert.equal(valid(unsubscribeParams(p('{"subscription":"tinyagent"}'))), "tinyagent");
    assert.equal(valid(unsubscribeParams(p('{"subscription":""}'))), "");
  });
  for (const params of ["{}", '{"subscription":5}', '{"subscription":null}']) {
    await t.step(`unsubscribe refused: ${params}`, () => {
      assert.equal(error(unsubscribeParams(p(params))), "unsubscribe: params.subscription must be a string");
    });
  }
});

Deno.test("request", async (t) => {
  await t.step("GET by default, no body", () => {
    assert.deepEqual(valid(requestParams(p('{"path":"/readyz"}'))), {
      path: "/readyz",
      method: "GET",
      hasBody: false,
    });
    assert.deepEqual(valid(requestParams(p('{"path":"/readyz","method":null}'))), {
      path: "/readyz",
      method: "GET",
      hasBody: false,
    });
  });
  await t.step("each of the six methods", () => {
    assert.deepEqual([...HTTP_METHODS], ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]);
    for (const method of HTTP_METHODS) {
      assert.equal(valid(requestParams({ path: "/x", method })).method, method);
    }
  });
  await t.step("a body, whatever its value (null too), is a body", () => {
    for (const body of ['{"a":1}', "null", '""', "0", "[]"]) {
      assert.equal(
        valid(requestParams(p(`{"path":"/x","method":"POST","body":${body}}`))).hasBody,
        true,
        body,
      );
    }
  });
  await t.step('an empty method is GET, as the Go peer reads it (`if method == "" { GET }`)', () => {
    assert.equal(valid(requestParams(p('{"path":"/x","method":""}'))).method, "GET");
  });
  for (
    const params of [
      "{}",
      '{"path":""}',
      '{"path":5}',
      '{"path":null}',
      '{"path":["/x"]}',
      '{"method":"get"}',
    ]
  ) {
    await t.step(
      `path is required: ${params}`,
      () => assert.equal(error(requestParams(p(params))), "path is required"),
    );
  }
  for (const method of ["get", "Get", "post", "OPTIONS", "CONNECT", "TRACE", " GET", "GET ", "G\u0045T\n"]) {
    await t.step(`invalid HTTP method: ${JSON.stringify(method)}`, () => {
      assert.equal(error(requestParams({ path: "/x", method })), "invalid HTTP method");
    });
  }
  for (const method of ["5", "true", '["GET"]', "{}"]) {
    await t.step(`a method that is not a string: ${method}`, () => {
      assert.equal(
        error(requestParams(p(`{"path":"/x","method":${method}}`))),
        'request: params.method must be a string, such as "POST"',
      );
    });
  }
});

Deno.test("upload", async (t) => {
  const hello = new TextEncoder().encode("hello");
  await t.step("room and data; filename and type default to empty", () => {
    assert.deepEqual(valid(uploadParams(p('{"room":"general","data":"aGVsbG8="}'))), {
      room: "general",
      bytes: hello,
      filename: "",
      type: "",
    });
  });
  await t.step("every field, and bytes of each value", () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const value = valid(uploadParams({
      room: "general",
      data: base64(bytes),
      filename: "a/b c.bin",
      type: "application/octet-stream",
    }));
    assert.deepEqual(value, {
      room: "general",
      bytes,
      filename: "a/b c.bin",
      type: "application/octet-stream",
    });
  });
  await t.step("every length modulo 3 decodes to the bytes given", () => {
    for (let length = 1; length <= 7; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 73 + 41) % 256);
      assert.deepEqual(
        valid(uploadParams({ room: "r", data: base64(bytes) })).bytes,
        bytes,
        `${length} bytes`,
      );
    }
  });
  await t.step("media types a header can carry", () => {
    for (
      const type of ["", "image/png", "text/plain; charset=utf-8", 'multipart/x; boundary="a b"', "a\tb"]
    ) {
      assert.equal(
        valid(uploadParams({ room: "r", data: "aGVsbG8=", type })).type,
        type,
        JSON.stringify(type),
      );
    }
  });
  for (
    const params of [
      '{"data":"aGVsbG8="}',
      '{"room":"","data":"aGVsbG8="}',
      '{"room":5,"data":"aGVsbG8="}',
      '{"room":null}',
    ]
  ) {
    await t.step(
      `room is required: ${params}`,
      () => assert.equal(error(uploadParams(p(params))), "room is required"),
    );
  }
  await t.step("filename and type must be strings", () => {
    assert.equal(
      error(uploadParams(p('{"room":"r","data":"aGVsbG8=","filename":5}'))),
      "upload: params.filename must be a string",
    );
    assert.equal(
      error(uploadParams(p('{"room":"r","data":"aGVsbG8=","type":["text/plain"]}'))),
      "upload: params.type must be a string",
    );
  });
  for (
    const type of [
      "text/plain\r\nX-Evil: 1",
      "text/plain\n",
      "text/plain\r",
      "a\u0000b",
      "text/plaín",
      "text/plain ",
      "a\u007fb",
    ]
  ) {
    await t.step(`a type no header can carry: ${JSON.stringify(type)}`, () => {
      assert.equal(
        error(uploadParams({ room: "r", data: "aGVsbG8=", type })),
        "upload: params.type is not a media type",
      );
    });
  }
  for (
    const params of [
      '{"room":"r"}',
      '{"room":"r","data":5}',
      '{"room":"r","data":null}',
      '{"room":"r","data":["aGVsbG8="]}',
    ]
  ) {
    await t.step(`data must be a string: ${params}`, () => {
      assert.equal(
        error(uploadParams(p(params))),
        "upload: params.data is required: the file's bytes in standard base64",
      );
    });
  }
  assert.equal(INVALID_ATTACHMENT, "invalid attachment data");
  const notBase64: [string, string][] = [
    ["unpadded", "aGVsbG8"],
    ["unpadded by two", "aGVsbA"],
    ["one character", "a"],
    ["too much padding", "aGVsbG8=="],
    ["padding alone", "===="],
    ["padding first", "=aGVsbG8"],
    ["padding in the middle", "aGVs=G8=aGVs"],
    ["a space inside", "aGVs bG8="],
    ["a leading space", " aGVsbG8="],
    ["a trailing newline", "aGVsbG8=\n"],
    ["a CRLF inside", "aGVs\r\nbG8="],
    ["a tab", "aGVs\tbG8="],
    ["the URL-safe alphabet (-)", "aGVs-G8="],
    ["the URL-safe alphabet (_)", "aGVs_G8="],
    ["a character of neither alphabet", "aGVs*G8="],
    ["non-ASCII", "aGVsbé8="],
  ];
  for (const [name, data] of notBase64) {
    await t.step(`invalid attachment data: ${name}`, () => {
      assert.equal(error(uploadParams({ room: "r", data })), "invalid attachment data");
    });
  }
  await t.step("zero bytes: invalid upload", () => {
    assert.equal(error(uploadParams(p('{"room":"r","data":""}'))), "invalid upload");
  });
  await t.step("32 MiB exactly is accepted", () => {
    // 32 MiB = 11184810 groups of three bytes and two bytes more.
    const data = "AAAA".repeat(11_184_810) + "AAA=";
    const value = valid(uploadParams({ room: "r", data }));
    assert.equal(value.bytes.length, MAX_ATTACHMENT_BYTES);
    assert.equal(MAX_ATTACHMENT_BYTES, 32 * 1024 * 1024);
  });
  await t.step("one byte more is invalid attachment data", () => {
    const data = "AAAA".repeat(11_184_811);
    assert.equal(error(uploadParams({ room: "r", data })), "invalid attachment data");
  });
  await t.step("over 64 Mi characters is invalid attachment data", () => {
    assert.equal(
      error(uploadParams({ room: "r", data: "A".repeat(64 * 1024 * 1024 + 4) })),
      "invalid attachment data",
    );
  });
});

Deno.test("download", async (t) => {
  await t.step("a path, the empty one too (then `path must be same-origin and absolute`)", () => {
    assert.equal(
      valid(downloadParams(p(`{"path":"/media/${"ab".repeat(32)}.png"}`))),
      `/media/${"ab".repeat(32)}.png`,
    );
    assert.equal(valid(downloadParams(p('{"path":""}'))), "");
  });
  for (const params of ["{}", '{"path":5}', '{"path":null}']) {
    await t.step(`refused: ${params}`, () => {
      assert.equal(
        error(downloadParams(p(params))),
        'download: params.path must be a string, such as "/media/<sha256>.png"',
      );
    });
  }
});

Deno.test("diagnose: the Go peer's four messages", async (t) => {
  await t.step("nothing given: no rooms, no kinds", () => {
    assert.deepEqual(valid(diagnoseParams({})), { rooms: [], kinds: [] });
    assert.deepEqual(valid(diagnoseParams(p('{"rooms":null,"kinds":null}'))), { rooms: [], kinds: [] });
  });
  await t.step("rooms and kinds", () => {
    assert.deepEqual(valid(diagnoseParams(p('{"rooms":["general","ops"],"kinds":[0,9,65535]}'))), {
      rooms: ["general", "ops"],
      kinds: [0, 9, 65535],
    });
  });
  const mistakes: [string, string][] = [
    ['{"rooms":"general"}', "rooms must be an array of room ids"],
    ['{"rooms":{}}', "rooms must be an array of room ids"],
    ['{"kinds":9}', "kinds must be an array of event kinds"],
    ['{"kinds":"9,12"}', "kinds must be an array of event kinds"],
    ['{"rooms":"x","kinds":9}', "rooms must be an array of room ids"],
    ['{"rooms":[""]}', "rooms must be room ids"],
    ['{"rooms":["general"," "]}', "rooms must be room ids"],
    ['{"rooms":[5]}', "rooms must be room ids"],
    ['{"rooms":[null]}', "rooms must be room ids"],
    ['{"kinds":[-1]}', "kinds must be event kinds"],
    ['{"kinds":[65536]}', "kinds must be event kinds"],
    ['{"kinds":[9.5]}', "kinds must be event kinds"],
    ['{"kinds":["9"]}', "kinds must be event kinds"],
  ];
  for (const [params, message] of mistakes) {
    await t.step(`refused: ${params}`, () => assert.equal(error(diagnoseParams(p(params))), message));
  }
});
