// The contract's lists and kind table (facade.md, "Exposed tools" and "Sign
// and resubmit"), written out here rather than imported from lib/, so a
// change to lib/facade/tools.ts that breaks the contract fails the tests.

export const CONTRACT_READ: readonly string[] = [
  "list_repositories",
  "read_repository",
  "list_issues",
  "read_issue",
  "list_pull_requests",
  "read_pull_request",
  "list_files",
  "read_file",
  "read_attachment",
  "list_rooms",
  "read_room",
  "read_thread",
  "list_wiki",
  "read_wiki_page",
  "list_jobs",
  "read_job",
  "read_status",
];

export const CONTRACT_KINDS: Readonly<Record<string, readonly number[]>> = {
  create_issue: [1621],
  create_pull_request: [1618],
  comment: [1111],
  post_message: [9],
  start_thread: [11],
  reply_in_thread: [12],
  react: [7],
  publish_wiki_page: [30818],
  propose_wiki_merge: [818],
  upload_attachment: [],
  request_decision: [9, 1111],
  request_grant: [1111],
  request_job: [43001],
  accept_job: [43002],
  job_progress: [43003],
  job_result: [43004],
  job_error: [43006],
  cancel_job: [43005],
};

export const CONTRACT_WRITE: readonly string[] = Object.keys(CONTRACT_KINDS);
