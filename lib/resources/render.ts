// A read tool's structured answer as the contents of `resources/read`: markdown a person and a
// model both read well (the kind's own rendering), or with ?as=json the relay's answer itself,
// pretty-printed; a file as its own type. An answer that cannot be recognised is shown as its
// JSON in a fenced block with a one-line note, and an answer that names another resource than
// the one asked is caught before anything is shown. Pure.

import { isObject } from "../wire/json.ts";
import { type Kind, kindSpec, type ResourceAddress } from "./kinds.ts";
import { arr, num, obj, str, tagValues } from "./fields.ts";
import { fenced, LIMITS, type RenderContext } from "./markdown.ts";
import { type ContentItem, renderFile } from "./render_file.ts";
import { renderIssue } from "./render_issue.ts";
import { renderJob } from "./render_job.ts";
import { renderRepository } from "./render_repo.ts";
import { renderRoom, renderThread } from "./render_room.ts";
import { renderWikiPage } from "./render_wiki.ts";
import { count, escapeHiding } from "./text.ts";
import type { ParsedUri } from "./uri.ts";

/** The answer to `resources/read`: its items, and the links in `_meta`. */
export interface ReadContents {
  contents: ContentItem[];
  _meta?: Record<string, unknown>;
}

/** The relay's answer as JSON text: pretty-printed, each hiding character as a (still valid) \u escape. */
export function jsonText(answer: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(answer, null, 2);
  } catch {
    text = undefined;
  }
  return escapeHiding(text ?? "null");
}

/** The marker tinyagent's bound leaves in place of a structured answer over 256 KiB. */
export function boundMarker(answer: unknown): number | undefined {
  return isObject(answer) && answer.truncated === true && Object.keys(answer).length === 2
    ? num(answer, "bytes")
    : undefined;
}

/** An answer shown as it came: a note saying why, then its JSON fenced. */
export function unrecognised(tool: string, answer: unknown): string {
  return [
    `tinyagent does not recognise this answer of ${tool}; here it is as the relay gave it.`,
    "",
    ...fenced(jsonText(answer), LIMITS.json, "json"),
  ].join("\n") + "\n";
}

function markdownOf(address: ResourceAddress, answer: unknown, ctx: RenderContext): string | undefined {
  const values = address.values;
  switch (address.kind) {
    default:
      return undefined;
    case "room":
      return renderRoom(answer, values.id, ctx);
    case "thread":
      return renderThread(answer, values.id, ctx);
    case "repo":
      return renderRepository(answer, values.owner, values.name, ctx);
    case "issue":
    case "pull":
      return renderIssue(answer, address.kind === "pull", values.owner, values.name, ctx);
    case "wiki":
      return renderWikiPage(answer, values.d, ctx);
    case "job":
      return renderJob(answer, ctx);
    case "file":
      return undefined;
  }
}

/** The contents of a read of `parsed`, from its read tool's structured answer. */
export function renderRead(parsed: ParsedUri, answer: unknown, ctx: RenderContext): ReadContents {
  const uri = ctx.uri;
  if (parsed.as === "json") {
    return { contents: [{ uri, mimeType: "application/json", text: jsonText(answer) }] };
  }
  const tool = kindSpec(parsed.address.kind).readTool;
  const bytes = boundMarker(answer);
  if (bytes !== undefined) {
    const text =
      `The relay's answer (${count(bytes)} bytes) was over tinyagent's 256 KiB bound for a structured ` +
      `answer, so it was not kept. Call ${tool} with a smaller limit to read it in parts.\n`;
    return { contents: [{ uri, mimeType: "text/markdown", text }] };
  }
  if (parsed.address.kind === "file") {
    const item = renderFile(answer, uri);
    return { contents: [item ?? { uri, mimeType: "text/markdown", text: unrecognised(tool, answer) }] };
  }
  const text = markdownOf(parsed.address, answer, ctx) ?? unrecognised(tool, answer);
  return { contents: [{ uri, mimeType: "text/markdown", text }] };
}

/** Where the answer says what it is, the values it says, by variable; a missing one is not compared. */
function saidValues(kind: Kind, answer: unknown): Record<string, string | undefined> {
  switch (kind) {
    case "room":
      return { id: str(obj(answer, "room"), "id") };
    case "thread":
      return { id: str(obj(answer, "room"), "id"), event: str(obj(answer, "root"), "id") };
    case "repo":
      return { owner: str(answer, "owner"), name: str(answer, "identifier") };
    case "issue":
    case "pull": {
      // The repository is named by its owner, and by the root's coordinate 30617:<owner>:<name>.
      const root = obj(answer, "root");
      const tags = arr(root, "tags").filter((tag): tag is string[] =>
        Array.isArray(tag) && tag.every((t) => typeof t === "string")
      );
      const coordinate = [...tagValues(tags, "a"), ...tagValues(tags, "A")].find((value) =>
        value.startsWith("30617:")
      );
      const [, owner, ...name] = coordinate?.split(":") ?? [];
      return {
        owner: str(obj(answer, "repository"), "owner") ?? owner,
        name: coordinate === undefined ? undefined : name.join(":"),
        id: str(root, "id") ?? str(obj(answer, "item"), "id"),
      };
    }
    case "job":
      return { id: str(obj(answer, "item"), "id") };
    case "file":
      return { sha256: str(answer, "sha256") };
    default:
      // The relay normalizes a page's name, so the name it answers with may rightly differ.
      return {};
  }
}

/**
 * Undefined when the answer is of the resource asked (as far as it says); otherwise words saying
 * what it names instead, so a read never shows one resource under another's URI.
 */
export function answerMismatch(address: ResourceAddress, answer: unknown): string | undefined {
  const said = saidValues(address.kind, answer);
  for (const [variable, value] of Object.entries(said)) {
    if (value !== undefined && value !== address.values[variable]) {
      return `the relay answered for {${variable}} = ${
        JSON.stringify(escapeHiding(value.slice(0, 100)))
      }, not the one asked`;
    }
  }
  return undefined;
}
