// Code mode's npm packages (lib/code/packages.ts): loaded by name, as a worker started from source does,
// they are the very modules the literal loaders (packages_named.ts, main.ts's part) give, under the
// import map's names.

import assert from "node:assert/strict";
import { BY_NAME, type CodePackages, PACKAGE_NAMES } from "../../lib/code/packages.ts";
import { NAMED } from "../../lib/code/packages_named.ts";

Deno.test("by name and by literal specifier: the same modules", async () => {
  for (const name of Object.keys(PACKAGE_NAMES) as (keyof CodePackages)[]) {
    assert.equal(await BY_NAME[name](), await NAMED[name](), name);
  }
});

Deno.test("the names are the import map's", async () => {
  const { imports } = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  for (const name of Object.values(PACKAGE_NAMES)) assert.ok(name in imports, `${name} in deno.json`);
});
