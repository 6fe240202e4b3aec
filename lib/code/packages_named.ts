// Code mode's npm packages by literal specifiers (packages.ts says why both): the part main.ts holds,
// so that a confined run reads them with the rest of its graph and the compiled binary embeds them.

import type { CodePackages } from "./packages.ts";

export const NAMED: CodePackages = {
  core: () => import("quickjs-emscripten-core"),
  variant: () => import("@jitl/quickjs-singlefile-mjs-release-sync"),
  stripper: () => import("@swc/wasm-typescript"),
};
