// diagnose's one relay call (lib/diagnose/probe.ts) through a fake ManagePort: exactly one signed
// browsegrant, its params naming only what was asked, and the report built from its answer.

import assert from "node:assert/strict";
import * as nip19 from "nostr-tools/nip19";
import { getPublicKey } from "nostr-tools/pure";
import { hexToBytes } from "@noble/hashes/utils.js";
import { diagnose, type ManagePort } from "../../lib/diagnose/probe.ts";
import type { Asked } from "../../lib/diagnose/classify.ts";
import type { HttpOutcome } from "../../lib/relay/answer.ts";
import { Signer } from "../../lib/key/signer.ts";
import { grantResult, http, RELAY } from "../support/browsegrant.ts";

const SECRET = "7f3a9c1e5b2d8f4a6c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a";

class FakePort implements ManagePort {
  readonly base = RELAY;
  readonly calls: { method: string; params: unknown[] }[] = [];
  constructor(readonly outcome: HttpOutcome) {}
  manage(method: string, params: unknown[]): Promise<HttpOutcome> {
    this.calls.push({ method, params: structuredClone(params) });
    return Promise.resolve(this.outcome);
  }
}

async function signer(): Promise<Signer> {
  const result = await Signer.fromValue(SECRET, "TINY_PRIVATE_KEY");
  assert.ok(result.ok);
  return result.signer;
}

Deno.test("one browsegrant call, its params naming only what was asked", async (t) => {
  const cases: [string, Asked, unknown[]][] = [
    ["nothing asked: no params at all", { rooms: [], kinds: [] }, []],
    ["rooms only", { rooms: ["general", "ops"], kinds: [] }, [{ rooms: ["general", "ops"] }]],
    ["kinds only", { rooms: [], kinds: [9, 1111] }, [{ kinds: [9, 1111] }]],
    ["both", { rooms: ["general"], kinds: [0, 65535] }, [{ rooms: ["general"], kinds: [0, 65535] }]],
  ];
  for (const [name, asked, params] of cases) {
    await t.step(name, async () => {
      const port = new FakePort(http(200, { result: grantResult({ missing: { rooms: [], kinds: [] } }) }));
      await diagnose(port, await signer(), asked);
      assert.deepEqual(port.calls, [{ method: "browsegrant", params }]);
    });
  }
});

Deno.test("the report: the port's relay, the signer's key, the answer's verdict", async () => {
  const port = new FakePort(http(200, { result: grantResult({ missing: { rooms: ["ops"], kinds: [] } }) }));
  const asked = { rooms: ["general", "ops"], kinds: [] };
  const report = await diagnose(port, await signer(), asked);
  const pubkey = getPublicKey(hexToBytes(SECRET));
  assert.equal(report.relay, RELAY);
  assert.equal(report.pubkey, pubkey);
  assert.equal(report.npub, nip19.npubEncode(pubkey));
  assert.equal(report.verdict, "needs-grant");
  assert.deepEqual(report.checks.coverage.asked, asked);
  assert.deepEqual(report.request_grant?.changes, { rooms: ["ops"] });
});

Deno.test("a relay that gives no answer is a report, never a throw", async () => {
  const port = new FakePort({ ok: false, failure: { class: "transport", detail: "connection refused" } });
  const report = await diagnose(port, await signer(), { rooms: [], kinds: [] });
  assert.equal(report.verdict, "unreachable");
  assert.equal(report.checks.reachability.detail, "connection refused");
  assert.equal(port.calls.length, 1, "not retried");
});
