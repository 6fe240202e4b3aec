// What --version prints: the version (wire/identity.ts, from deno.json) and
// what a bug report needs. A release binary also knows the commit it was
// built from: scripts/compile.ts writes it to dist/commit.txt (git-ignored, so
// the tree stays clean) and embeds that file with --include (a .txt, so Deno
// embeds it as a data file rather than as a module).
import { NAME, VERSION } from "../wire/identity.ts";

/** Where scripts/compile.ts writes the commit being built, relative to the repository root. */
export const COMMIT_FILE = "dist/commit.txt";
const COMMIT_URL = new URL(`../../${COMMIT_FILE}`, import.meta.url);

/** What `--version` reports. */
export interface BuildFacts {
  version: string;
  /** The target triple the binary runs as (`Deno.build.target`). */
  target: string;
  /** The Deno version it runs on: in a compiled binary, the denort it was built with. */
  deno: string;
  commit: string;
}

export const FROM_SOURCE = "unknown (run from source)";
export const UNKNOWN_COMMIT = "unknown";

/** The commit in the commit file's text (`<40 hex>[-dirty]`), or `unknown` when it holds none. */
export function parseCommitFile(text: string): string {
  const commit = text.trim();
  return /^[0-9a-f]{40}(-dirty)?$/.test(commit) ? commit : UNKNOWN_COMMIT;
}

/** The commit this program was built from, as the binary's embedded commit file says. */
export function buildCommit(): string {
  // Only a compiled binary has the file; reading it under deno run could prompt for permission.
  if (!Deno.build.standalone) return FROM_SOURCE;
  try {
    return parseCommitFile(Deno.readTextFileSync(COMMIT_URL));
  } catch {
    return UNKNOWN_COMMIT; // Compiled without scripts/compile.ts, or without read permission.
  }
}

/** `tinyagent <version>` on the first line (scripts and users match it), then what a bug report needs. */
export function versionText(facts: BuildFacts = currentFacts()): string {
  return [
    `${NAME} ${facts.version}`,
    `target ${facts.target}`,
    `deno ${facts.deno}`,
    `commit ${facts.commit}`,
  ].join("\n");
}

export function currentFacts(): BuildFacts {
  return { version: VERSION, target: Deno.build.target, deno: Deno.version.deno, commit: buildCommit() };
}
