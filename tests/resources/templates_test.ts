// The resource templates (lib/resources/templates.ts): one per kind and one per collection, an RFC
// 6570 template for this relay's base, words for a person and a model with an example that parses,
// text/markdown but for files, and only those whose tools are exposed.

import assert from "node:assert/strict";
import { CONTRACT_READ } from "../support/contract.ts";
import {
  allTemplates,
  exposedTemplates,
  templateByUri,
  templateEntry,
  uriTemplateOf,
} from "../../lib/resources/templates.ts";
import { KINDS } from "../../lib/resources/kinds.ts";
import { parseUri, type ResourceBase } from "../../lib/resources/uri.ts";

const BASE: ResourceBase = { host: "relay.example" };
const TENANT: ResourceBase = { host: "relay.example:8443", tenant: "acme" };

Deno.test("one template per kind, with the namespace's exact grammar", () => {
  assert.deepEqual(allTemplates(BASE).map((t) => [t.name, t.uriTemplate, t.readTool, t.variables]), [
    ["room", "tiny://relay.example/room/{id}", "read_room", ["id"]],
    ["thread", "tiny://relay.example/room/{id}/thread/{event}", "read_thread", ["id", "event"]],
    ["repository", "tiny://relay.example/repo/{owner}/{name}", "read_repository", ["owner", "name"]],
    ["issue", "tiny://relay.example/repo/{owner}/{name}/issue/{id}", "read_issue", ["owner", "name", "id"]],
    ["pull_request", "tiny://relay.example/repo/{owner}/{name}/pull/{id}", "read_pull_request", [
      "owner",
      "name",
      "id",
    ]],
    ["wiki_page", "tiny://relay.example/wiki/{d}", "read_wiki_page", ["d"]],
    ["job", "tiny://relay.example/job/{id}", "read_job", ["id"]],
    ["file", "tiny://relay.example/file/{sha256}", "read_attachment", ["sha256"]],
    ["kinds", "tiny://relay.example/", "", []],
    ["rooms", "tiny://relay.example/room/", "list_rooms", []],
    ["threads", "tiny://relay.example/room/{id}/thread/", "read_room", ["id"]],
    ["repositories", "tiny://relay.example/repo/", "list_repositories", []],
    ["issues", "tiny://relay.example/repo/{owner}/{name}/issue/", "list_issues", ["owner", "name"]],
    ["pull_requests", "tiny://relay.example/repo/{owner}/{name}/pull/", "list_pull_requests", [
      "owner",
      "name",
    ]],
    ["wiki_pages", "tiny://relay.example/wiki/", "list_wiki", []],
    ["jobs", "tiny://relay.example/job/", "list_jobs", []],
    ["files", "tiny://relay.example/file/", "list_files", []],
  ]);
  assert.equal(uriTemplateOf(TENANT, KINDS[0]), "tiny://relay.example:8443/r/acme/room/{id}");
});

Deno.test("titles and descriptions for people and models: what it reads, and an example that resolves", () => {
  for (const base of [BASE, TENANT]) {
    for (const template of allTemplates(base)) {
      assert.ok(template.title.length > 0 && template.title.length <= 40, template.name);
      assert.ok(template.description.length >= 100 && template.description.length <= 600, template.name);
      const example = /Example: (\S+?)\.?(?:\s|$)/.exec(template.description)?.[1] ??
        (template.kind === "root" ? `${template.uriTemplate}` : undefined);
      assert.ok(example, `${template.name} has an example`);
      const parsed = parseUri(base, example);
      assert.ok(parsed.ok, `${template.name}: ${example}`);
      assert.equal(parsed.value.address.kind, template.kind);
      for (const variable of template.variables) assert.ok(template.description.includes(`{${variable}}`));
    }
  }
});

Deno.test("media types: text/markdown, but a file keeps its own (none stated)", () => {
  const entries = allTemplates(BASE).map(templateEntry);
  for (const entry of entries) {
    if (entry.name === "file") assert.ok(!("mimeType" in entry));
    else assert.equal(entry.mimeType, "text/markdown");
    assert.deepEqual(Object.keys(entry).filter((k) => k !== "mimeType"), [
      "uriTemplate",
      "name",
      "title",
      "description",
    ]);
  }
});

Deno.test("only templates whose tools are exposed are offered", () => {
  assert.equal(exposedTemplates(BASE, new Set(CONTRACT_READ)).length, 17);
  assert.deepEqual(
    exposedTemplates(BASE, new Set(["read_room", "list_rooms", "read_job"])).map((t) => t.name),
    ["room", "job", "kinds", "rooms"],
    "a collection wants its list tool and its children's read tool: no list_jobs, no jobs; no read_thread, no threads",
  );
  assert.deepEqual(
    exposedTemplates(BASE, new Set(CONTRACT_READ.filter((t) => t !== "read_attachment"))).map((t) => t.name)
      .includes("file"),
    false,
  );
  assert.deepEqual(exposedTemplates(BASE, new Set()).map((t) => t.name), ["kinds"], "the root needs no tool");
});

Deno.test("a completion's ref/resource finds its template by the template string", () => {
  const offered = exposedTemplates(BASE, new Set(["read_room", "read_thread"]));
  assert.equal(templateByUri(offered, "tiny://relay.example/room/{id}/thread/{event}")?.kind, "thread");
  assert.equal(templateByUri(offered, "tiny://relay.example/job/{id}"), undefined);
  assert.equal(templateByUri(offered, "tiny://other.example/room/{id}"), undefined);
});
