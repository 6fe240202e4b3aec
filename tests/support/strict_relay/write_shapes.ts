// What each write tool tells a caller whose arguments or event it cannot take: the shape it expects,
// in tinyrelay's words (internal/daemon/mcp_tools.go), and the instruction that comes with a template.

export const SIGN_NEXT =
  "Sign this event with your Nostr key and call the tool again with the signed event as the event argument.";

export const SHAPES = {
  issue:
    'Expected a signed kind 1621 event with tags ["a","30617:<owner>:<repo>"], ["p","<owner>"], ["subject","<title>"] and optional ["t","<label>"] tags, with the Markdown description in content.',
  pull:
    'Expected a signed kind 1618 event with tags ["a","30617:<owner>:<repo>"], ["p","<owner>"], ["subject","<title>"], ["c","<40-hex commit>"], ["clone","<http or https URL>"], optional ["merge-base","<40-hex commit>"] and optional ["t","<label>"] tags, with the description in content.',
  comment:
    'Expected a signed kind 1111 event with NIP-22 tags ["a","30617:<owner>:<repo>"], ["E","<root id>","","<root pubkey>"], ["K","<root kind>"], ["P","<root pubkey>"], ["e","<parent id>","","<parent pubkey>"], ["k","<parent kind>"], ["p","<parent pubkey>"], with the comment in content. The parent is the root for a top-level comment. A review comment under a pull request or patch may add ["file","<path>"] and ["line","<n>","old" or "new"] to name one diff line.',
  status:
    'Expected a signed event of kind 1630 (open), 1631 (resolved or merged), 1632 (closed) or 1633 (draft) with tags ["a","30617:<owner>:<repo>"], ["e","<root id>","","root"] and ["p","<root pubkey>"].',
  message:
    'Expected a signed kind 9 event with tag ["h","<room id>"] and optional ["p","<pubkey>"] mentions, with the message in content.',
  thread:
    'Expected a signed kind 11 event with tag ["h","<room id>"] and optional ["subject","<title>"], with the opening post in content.',
  reply:
    'Expected a signed kind 12 event with tags ["h","<room id>"], ["e","<thread root id>"] and optional ["p","<root author>"], with the reply in content.',
  react:
    'Expected a signed kind 7 event with tags ["e","<event id>"], ["p","<event author>"] and, for a room message, ["h","<room id>"], with "+", "-" or one emoji in content.',
  wiki:
    'Expected a signed kind 30818 event with tags ["d","<normalized page name>"], ["title","<title>"], optional ["summary","<summary>"] and, for a fork, ["a","30818:<author>:<page name>","","fork"] and ["e","<version id>","","fork"], with the Djot article in content.',
  merge:
    'Expected a signed kind 818 event with tags ["a","30818:<destination>:<page name>"], ["p","<destination>"], ["e","<proposed version id>","","source"] and optional ["e","<base version id>"], with the explanation in content.',
  room:
    'Expected a signed kind 9007 event with tags ["h","<new room id>"], ["name","<name>"], optional ["about","<description>"] and ["visibility","open" or "members"].',
  request:
    'Expected a signed kind 9 event with ["h","<room id>"] and optional ["e","<thread root id>","","root"], or a signed kind 1111 event with NIP-22 tags ["E","<root id>","","<root pubkey>"], ["K","<root kind>"], ["P","<root pubkey>"], ["e","<root id>","","<root pubkey>"] and ["k","<root kind>"], carrying ["request","approve", "decide" or "question"], ["p","<asked pubkey>"] and optional ["expiration","<unix time>"] and ["subject","<subject>"], with the question in content.',
  jobRequest:
    'Expected a signed kind 43001 event with tags ["h","<room id>"], one or more ["p","<asked pubkey>"], optional ["subject","<title>"], ["e","<thread root id>","","root"] and ["expiration","<unix time>"], with the task text in content.',
  jobAnswer:
    'Expected a signed kind 43002 (accepted), 43003 (progress), 43004 (result) or 43006 (error) event with tags ["e","<request id>"], ["p","<requester pubkey>"] and ["h","<room id>"] matching the request, with the progress line, output or error message in content. A result may add ["e","<event id>"], ["a","<coordinate>"] and ["r","<http or https URL>"] tags for the artifacts it produced.',
  jobCancel:
    'Expected a signed kind 43005 event from the requester with tags ["e","<request id>"], ["h","<room id>"] and optional ["p","<asked pubkey>"].',
  site:
    'Expected a signed kind 15128 event for your own site, or a signed kind 35128 event with ["d","<site name>"] for a named site under your key, with one ["path","/<file path>","<sha256 of the file>"] tag per file, the blobs already uploaded, and an optional ["expiration","<unix time>"] tag.',
  grantRequest:
    "Expected a signed kind 1111 NIP-22 event with matching E/K/P and e/k tags for the current kind 30392 grant, one p tag for its operator, request=grant and a grant JSON tag containing the current grant id and additive changes.",
  anyEvent: "Expected a signed Nostr event.",
} as const;
