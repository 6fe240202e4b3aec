// Content mode's read tools by name: the relay's answer to each from the seeded content, or
// undefined for a tool content mode does not serve (it keeps its default answer).

import { listFiles, readAttachment, readFile } from "./content_files.ts";
import { listIssues, listPulls, readIssue, readPull } from "./content_issues.ts";
import { listJobs, readJob } from "./content_jobs.ts";
import { listRepositories } from "./content_repos.ts";
import { listRooms, readRoom, readThread } from "./content_rooms.ts";
import { readRepository } from "./content_tree.ts";
import type { ContentView, Reader } from "./content_view.ts";
import { listWiki, readWikiPage } from "./content_wiki.ts";
import type { ToolResult } from "./types.ts";

const READERS: Record<string, Reader> = {
  list_rooms: listRooms,
  read_room: readRoom,
  read_thread: readThread,
  list_repositories: listRepositories,
  read_repository: readRepository,
  list_issues: listIssues,
  read_issue: readIssue,
  list_pull_requests: listPulls,
  read_pull_request: readPull,
  list_wiki: listWiki,
  read_wiki_page: readWikiPage,
  list_jobs: listJobs,
  read_job: readJob,
  list_files: listFiles,
  read_file: readFile,
  read_attachment: readAttachment,
};

/** The tools content mode answers. */
export const CONTENT_TOOLS = Object.keys(READERS);

export function answerContent(
  tool: string,
  args: Record<string, unknown>,
  view: ContentView,
): ToolResult | undefined {
  return Object.hasOwn(READERS, tool) ? READERS[tool](args, view) : undefined;
}
