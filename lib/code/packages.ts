// Code mode's npm packages, QuickJS (quickjs-emscripten's core and its one-module build) and swc's type
// stripper (@swc/wasm-typescript), and how they are loaded. By default by a name computed at run time: a
// literal `import()` would put them in the graph of every module that names it, and a sandbox worker
// started with code mode reads that graph before it answers the host (~3 ms as shipped), while an npm
// package loads at first use with no read permission at all. A run whose graph holds everything anyway
// (main.ts: a confined run, the compiled binary, which embeds only the packages its graph names) is given
// literal loaders instead (packages_named.ts, a part of its own: session/parts.ts).

/** quickjs-emscripten's core. */
export type Core = typeof import("quickjs-emscripten-core");
/** QuickJS built as one ES module, its WebAssembly inside: nothing to read. */
export type VariantModule = typeof import("@jitl/quickjs-singlefile-mjs-release-sync");
/** swc's TypeScript stripper: one CommonJS file, its WebAssembly inside as base64, no dependency. */
export type Stripper = typeof import("@swc/wasm-typescript");

/** How each package is imported. */
export interface CodePackages {
  core(): Promise<Core>;
  variant(): Promise<VariantModule>;
  stripper(): Promise<Stripper>;
}

/** The import map's names (deno.json), which the compiled binary's embedded map also resolves. */
export const PACKAGE_NAMES = {
  core: "quickjs-emscripten-core",
  variant: "@jitl/quickjs-singlefile-mjs-release-sync",
  stripper: "@swc/wasm-typescript",
} as const;

/** Each package imported by its name, read from a table so the import is not a literal one. */
export const BY_NAME: CodePackages = {
  core: () => import(PACKAGE_NAMES.core),
  variant: () => import(PACKAGE_NAMES.variant),
  stripper: () => import(PACKAGE_NAMES.stripper),
};
