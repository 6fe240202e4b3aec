// The write tools of the real relay's table, in its order (tinyrelay's mcp_tools.go and
// mcp_grant_request.go): called with plain fields each answers the unsigned event to sign; called with
// `event` it publishes that event (write_tools.ts). The facade offers 18 of them with --allow-writes.

import {
  artifacts,
  assignees,
  attachments,
  commit,
  def,
  described,
  enumOf,
  event,
  hash,
  id,
  jobEvent,
  labels,
  object,
  pageName,
  pubKey,
  PUBLISHES,
  roomID,
  rootKind,
  type Schema,
  text,
  unixTime,
} from "./tool_schema.ts";
import type { ToolDef } from "./types.ts";

const ANSWER_NOTE =
  " The asked key answers with a kind 7 reaction (+ approves, - declines) or a kind 1111 NIP-22 reply. Query kinds 7 and 1111 with #e set to the published request's event id to collect answers. A question's text answer is a reply, not an arbitrary reaction.";
const SIGN_AGAIN = "to receive the unsigned event, sign it, then call again with the signed event.";

/** The plain fields the long-task answer tools share; a result also takes artifacts. */
function jobAnswer(withArtifacts: boolean): Schema {
  const fields: Record<string, Schema> = {
    event,
    request: jobEvent,
    e: hash,
    p: pubKey,
    room: roomID,
    content: text,
  };
  return object(withArtifacts ? { ...fields, artifacts } : fields);
}

const nonEmpty = { type: "string", minLength: 1 };

/** request_grant's arguments (mcpGrantRequestSchema). */
const grantRequest = object({
  event,
  reason: { type: "string", minLength: 1, maxLength: 500 },
  changes: object({
    kinds: { type: "array", items: { type: "integer", minimum: 0, maximum: 65535 } },
    rooms: { type: "array", items: nonEmpty },
    repos: {
      type: "array",
      items: object(
        { owner: pubKey, identifier: nonEmpty, level: enumOf("propose", "read", "maintain") },
        "owner",
        "identifier",
        "level",
      ),
    },
    sites: {
      type: "array",
      items: object(
        {
          label: nonEmpty,
          ttl: { type: "integer", minimum: 1, maximum: 365 },
          encrypted: { type: "boolean" },
        },
        "label",
      ),
    },
    wiki: nonEmpty,
    jobs: nonEmpty,
    rate: { type: "integer", minimum: 1, maximum: 600 },
  }),
});

export const WRITE_TOOL_DEFS: ToolDef[] = [
  def(
    "publish_event",
    "Publish a signed Nostr event to this relay. The relay's access rules apply as they do for POST /events.",
    object({ event }, "event"),
    PUBLISHES,
  ),
  def(
    "create_issue",
    `Open an issue on a hosted repository. Pass owner, repo, title and content to receive the unsigned kind 1621 event, sign it, then call again with the signed event.`,
    object({ event, owner: pubKey, repo: id, title: text, content: text, labels }),
    PUBLISHES,
  ),
  def(
    "create_pull_request",
    `Open a pull request on a hosted repository. Pass owner, repo, title, commit and clone (plus optional content, merge_base and labels) to receive the unsigned kind 1618 event, sign it, then call again with the signed event.`,
    object({
      event,
      owner: pubKey,
      repo: id,
      title: text,
      content: text,
      commit,
      clone: described(text, "HTTP or HTTPS clone URL without credentials."),
      merge_base: commit,
      labels,
    }),
    PUBLISHES,
  ),
  def(
    "comment",
    `Reply to an issue, pull request or comment with a NIP-22 kind 1111 event. Pass owner, repo, root, root_kind, root_pubkey and content (plus parent, parent_kind and parent_pubkey to answer a comment) ${SIGN_AGAIN} To review one line of a pull request or patch diff, add file, line and side (old for the base, new for the change).`,
    object({
      event,
      owner: pubKey,
      repo: id,
      root: hash,
      root_kind: rootKind,
      root_pubkey: pubKey,
      parent: hash,
      parent_kind: enumOf(1111, 1617, 1618, 1621),
      parent_pubkey: pubKey,
      content: text,
      file: { type: "string", minLength: 1, description: "Path of the diff file the comment is about." },
      line: { type: "integer", minimum: 1, description: "Line number on the chosen side of the diff." },
      side: enumOf("old", "new"),
    }),
    PUBLISHES,
  ),
  def(
    "set_status",
    `Change the status of an issue or pull request. The author, repository owner and maintainers may do this. Pass owner, repo, root, root_pubkey and status ${SIGN_AGAIN}`,
    object({
      event,
      owner: pubKey,
      repo: id,
      root: hash,
      root_pubkey: pubKey,
      status: enumOf("open", "resolved", "merged", "closed", "draft"),
    }),
    PUBLISHES,
  ),
  def(
    "post_message",
    "Post a kind 9 chat message in a room. Pass room and content or attachments, plus optional mentions, to receive an unsigned event. Sign it, then call again with event. Posting in an open room joins it.",
    object({
      event,
      room: roomID,
      content: text,
      mentions: { type: "array", items: pubKey },
      attachments,
    }),
    PUBLISHES,
  ),
  def(
    "start_thread",
    "Start a kind 11 thread in a room. Pass room and content or attachments, plus an optional title, to receive an unsigned event. Sign it, then call again with event.",
    object({ event, room: roomID, title: text, content: text, attachments }),
    PUBLISHES,
  ),
  def(
    "reply_in_thread",
    "Reply with a kind 12 event. Pass room, root and content or attachments, plus optional root_pubkey, to receive an unsigned event. A nested root is resolved to the thread root before signing. Sign it, then call again with event.",
    object({ event, room: roomID, root: hash, root_pubkey: pubKey, content: text, attachments }),
    PUBLISHES,
  ),
  def(
    "react",
    `React to an event with a kind 7 reaction: + to like or approve, - to dislike or decline, or one emoji. Pass target, target_pubkey and content (plus room for a room message) ${SIGN_AGAIN} A + or - from a wiki merge request's destination author answers the request.`,
    object({
      event,
      target: hash,
      target_pubkey: pubKey,
      content: { type: "string", minLength: 1, description: "+, - or one emoji." },
      room: roomID,
    }),
    PUBLISHES,
  ),
  def(
    "publish_wiki_page",
    `Publish or replace your version of a kind 30818 wiki page in Djot markup. Pass d (the page name), title and content, plus optional summary and, to fork another author's version, fork_author and fork_event, ${SIGN_AGAIN}`,
    object({
      event,
      d: pageName,
      title: text,
      summary: text,
      content: text,
      fork_author: pubKey,
      fork_event: hash,
    }),
    PUBLISHES,
  ),
  def(
    "propose_wiki_merge",
    `Ask a wiki author to take in changes from another version with a kind 818 merge request. Pass d, destination (the author asked), source (the proposed version's event id) and content, plus an optional base version id, ${SIGN_AGAIN} The destination author answers with a + or - reaction.`,
    object({ event, d: pageName, destination: pubKey, source: hash, base: hash, content: text }),
    PUBLISHES,
  ),
  def(
    "publish_site",
    "Publish a static site manifest (NIP-5A). Upload the files to the blob store first, then pass paths as [path, sha256] pairs, an optional label (your npub for your own site, the default, or a named site label under your key) and an optional expiration, to receive the unsigned kind 15128 or 35128 event, sign it, then call again with the signed event. An agent needs a sites grant that covers the label; a grant with a ttl requires the expiration.",
    object({
      event,
      label: described(
        { type: "string", minLength: 1 },
        "Site label: your npub, or a named site label under your key. Defaults to your own site.",
      ),
      paths: {
        type: "array",
        items: { type: "array", items: text },
        description: 'One [path, sha256] pair per file, such as ["/index.html", "<sha256>"].',
      },
      expiration: unixTime,
    }),
    PUBLISHES,
  ),
  def(
    "create_room",
    `Create a chat room with a kind 9007 event. Relay members may do this. Pass room (the new id), name and optional about and visibility (open or members) ${SIGN_AGAIN} The signer becomes the room owner.`,
    object({ event, room: roomID, name: text, about: text, visibility: enumOf("open", "members") }),
    PUBLISHES,
  ),
  def(
    "request_decision",
    "Ask a person for an approval, a decision or an answer. Pass pubkey, request and content, plus room and optional root for a kind 9 room message, or root, root_kind and root_pubkey for a kind 1111 comment under another event. A room root is resolved to the thread root before signing." +
      ANSWER_NOTE,
    object({
      event,
      pubkey: pubKey,
      request: enumOf("approve", "decide", "question"),
      content: text,
      room: roomID,
      root: hash,
      root_kind: { type: "integer", minimum: 0 },
      root_pubkey: pubKey,
      expiration: unixTime,
      subject: text,
    }),
    PUBLISHES,
  ),
  def(
    "request_job",
    "Ask one or more keys to take on a long task with a kind 43001 job request in a room. Pass room, assignees and content or subject, plus optional root (a thread root in the room) and expiration. The keys asked answer with accept_job, job_progress and job_result or job_error; cancel_job withdraws the request; read_job follows it.",
    object({
      event,
      room: roomID,
      assignees,
      subject: text,
      content: text,
      root: hash,
      expiration: unixTime,
    }),
    PUBLISHES,
  ),
  def(
    "accept_job",
    "Take on a long task you were asked to do with a kind 43002 job accepted event. Pass request (the job request event) or e, p and room, plus optional content.",
    jobAnswer(false),
    PUBLISHES,
  ),
  def(
    "job_progress",
    "Report progress on a long task you were asked to do with a kind 43003 job progress event, as often as needed. Pass request or e, p and room, plus content with the progress line.",
    jobAnswer(false),
    PUBLISHES,
  ),
  def(
    "job_result",
    "Finish a long task with a kind 43004 job result. Pass request or e, p and room, content with the output and optional artifacts, each an e, a or r reference that clients link.",
    jobAnswer(true),
    PUBLISHES,
  ),
  def(
    "job_error",
    "End a long task that failed with a kind 43006 job error. Pass request or e, p and room, plus content with the error message.",
    jobAnswer(false),
    PUBLISHES,
  ),
  def(
    "cancel_job",
    "Cancel a long task you requested with a kind 43005 job cancel. Pass request or e and room, plus optional p (one of the keys asked) and content.",
    object({ event, request: jobEvent, e: hash, room: roomID, p: pubKey, content: text }),
    PUBLISHES,
  ),
  def(
    "request_grant",
    "Ask your current grant operator for agent permission changes. Pass reason (1 to 500 Unicode characters) and changes. Kinds and rooms are added; repos and sites replace matching entries; wiki, jobs and rate replace their fields. Other fields stay unchanged. Sign the returned kind 1111 request and call again with event. Only the operator's signed kind 30392 replacement grants access; a + reaction does not.",
    grantRequest,
    PUBLISHES,
  ),
];
