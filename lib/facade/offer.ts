// What a host is offered, and why not the rest (`tinyagent tools`): the tools
// tools/list would answer, in order, and for every curated tool left out, the
// reason a user can act on. Pure: the exposure flags and the table's state in,
// the listing out, as text or as JSON.

import { failureText } from "../relay/answer.ts";
import type { TableState } from "./table.ts";
import {
  DIAGNOSE_TOOL,
  isWriteTool,
  READ_TOOLS,
  unknownToolHint,
  WRITE_KINDS,
  WRITE_TOOLS,
} from "./tools.ts";

export interface OfferedTool {
  name: string;
  /** read or write (a curated relay tool), or local (answered by tinyagent itself). */
  type: "read" | "write" | "local";
  /** For a write tool: the event kinds tinyagent signs for it. */
  kinds?: number[];
}

export interface Offer {
  /** Whether the relay's table was read; when not, why. */
  table: { ok: true } | { ok: false; error: string };
  offered: OfferedTool[];
  not_offered: { name: string; reason: string }[];
}

/** The listing for these exposure flags and this state of the relay's table. */
export function describeOffer(exposed: readonly string[], allowWrites: boolean, state: TableState): Offer {
  const listed = state.ok ? state.table.map((tool) => tool.name) : [];
  const offered: OfferedTool[] = listed.map((name) =>
    isWriteTool(name) ? { name, type: "write", kinds: [...WRITE_KINDS[name]] } : { name, type: "read" }
  );
  offered.push({ name: DIAGNOSE_TOOL, type: "local" });
  const notOffered = [...READ_TOOLS, ...WRITE_TOOLS].filter((name) => !listed.includes(name)).map((name) => ({
    name,
    reason: !exposed.includes(name)
      ? unknownToolHint(name, allowWrites).replace(/^ \((.*)\)$/, "$1")
      : state.ok
      ? "the relay does not list it"
      : "the relay's table could not be read",
  }));
  return {
    table: state.ok ? { ok: true } : { ok: false, error: failureText(state.failure) },
    offered,
    not_offered: notOffered,
  };
}

/** The listing for a person: the offered tools in order, then the others with their reasons. */
export function renderOffer(offer: Offer): string {
  const width = Math.max(...[...offer.offered, ...offer.not_offered].map((tool) => tool.name.length)) + 2;
  const lines: string[] = [];
  if (!offer.table.ok) lines.push(`the relay's table could not be read: ${offer.table.error}`, "");
  lines.push(`offered to a host, in order (${offer.offered.length}):`);
  for (const tool of offer.offered) {
    const what = tool.type === "local"
      ? "answered by tinyagent itself"
      : tool.type === "write"
      ? tool.kinds!.length > 0 ? `write: signs kind ${tool.kinds!.join(" or ")}` : "write: signs nothing"
      : "read";
    lines.push(`  ${tool.name.padEnd(width)}${what}`);
  }
  if (offer.not_offered.length > 0) {
    lines.push("", `not offered (${offer.not_offered.length}):`);
    for (const tool of offer.not_offered) lines.push(`  ${tool.name.padEnd(width)}${tool.reason}`);
  }
  return lines.join("\n");
}
