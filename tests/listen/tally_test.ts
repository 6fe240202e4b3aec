import assert from "node:assert/strict";
import { Tally } from "../../lib/listen/tally.ts";

Deno.test("tally: counted by reason, said once a period, the rest at close, no timer left", async (t) => {
  const said: string[] = [];
  const say = (total: number, parts: string) => said.push(`${total}: ${parts}`);

  await t.step("many counts in one period are one line, reasons in the order first counted", async () => {
    const tally = new Tally<"a" | "b">(say, 20);
    tally.count("b");
    tally.count("a");
    tally.count("b");
    assert.deepEqual(said, [], "nothing is said before the period ends");
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.deepEqual(said.splice(0), ["3: 2 b, 1 a"]);
    tally.count("a");
    tally.close();
    assert.deepEqual(said.splice(0), ["1: 1 a"], "close says what the period had not said yet");
  });

  await t.step("close with nothing counted says nothing, and a second close neither", () => {
    const tally = new Tally<string>(say, 20);
    tally.close();
    tally.count("x");
    tally.close();
    tally.close();
    assert.deepEqual(said.splice(0), ["1: 1 x"]);
  });
});
