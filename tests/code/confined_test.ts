// QuickJS and sucrase load without reading a file: a Worker holding no permission at all (no read, as
// tinyagent's sandboxed worker, lib/sandbox/confine.ts) loads runProgram and runs a TypeScript program
// that calls the relay, twice (the second on the loaded engine).

import assert from "node:assert/strict";
import { within } from "../support/waits.ts";
import type { Reply, Request } from "./confined_program.ts";

const NONE: Deno.PermissionOptionsObject = {
  read: false,
  net: false,
  env: false,
  write: false,
  run: false,
  ffi: false,
  sys: false,
  import: false,
};

function ask(worker: Worker, request: Request): Promise<Reply> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<Reply>) => resolve(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message));
    };
    worker.postMessage(request);
  });
}

Deno.test("a worker without read permission loads the sandbox and runs programs", async () => {
  const worker = new Worker(new URL("./confined_program.ts", import.meta.url), {
    type: "module",
    deno: { permissions: NONE },
  });
  try {
    const code = "interface Room { id: string }\n" +
      "async function run(relay: any): Promise<Room[]> {\n" +
      "  const answer = await relay.list_rooms({ limit: 1 });\n" +
      "  return [{ id: answer.tool + ' ' + answer.args.limit + ', ' + answer.from }];\n" +
      "}";
    for (const round of ["cold", "warm"]) {
      const reply = await within(60_000, `the ${round} program's outcome`, ask(worker, { code }));
      assert.ok(!("failed" in reply), "failed" in reply ? reply.failed : "");
      assert.equal(reply.readDenied, "NotCapable", "the worker cannot read a file");
      assert.equal(reply.outcome.end, "returned", reply.outcome.error);
      assert.deepEqual(reply.outcome.value, [{ id: "list_rooms 1, the worker's bridge" }]);
      console.log(`${round}: ${reply.ms.toFixed(1)} ms`);
    }
  } finally {
    worker.terminate();
  }
});
