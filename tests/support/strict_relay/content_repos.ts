// Hosted repositories as the real relay's browse methods show them: list_repositories (browserepos,
// by "<owner>/<identifier>" with that as cursor, `q` on the identifier) and the repository record the
// issue and pull request reads carry. An unknown repository is refused with the words the relay's
// Git registry gives (Go's os.ErrNotExist: "file does not exist").

import * as nip19 from "nostr-tools/nip19";
import type { RepositorySeed } from "./content_types.ts";
import { browseOk, type ContentView, limitOf, type Reader, text } from "./content_view.ts";

export const NO_REPOSITORY = "file does not exist";

/** A repository with the defaults the seed leaves out filled in. */
export interface Repository {
  owner: string;
  identifier: string;
  head: string;
  private: boolean;
  clone: string[];
  relays: string[];
  refs: Record<string, string>;
  maintainers: string[];
  seed: RepositorySeed;
}

export function repositoryOf(seed: RepositorySeed, view: ContentView): Repository {
  const newest = seed.commits?.[0]?.oid;
  const base = view.url.replace(/\/+$/, "");
  return {
    owner: seed.owner,
    identifier: seed.identifier,
    head: seed.head ?? "ref: refs/heads/main",
    private: seed.private ?? false,
    clone: seed.clone ?? [`${base}/${nip19.npubEncode(seed.owner)}/${seed.identifier}.git`],
    relays: seed.relays ?? [base.replace(/^http/, "ws")],
    refs: seed.refs ?? (newest ? { "refs/heads/main": newest } : {}),
    maintainers: [...new Set([seed.owner, ...(seed.maintainers ?? [])])],
    seed,
  };
}

/** The repository the call's owner and repo name, or undefined. */
export function findRepository(view: ContentView, owner: unknown, repo: unknown): Repository | undefined {
  const seed = view.repositories.get(`${text(owner)}/${text(repo)}`);
  return seed && repositoryOf(seed, view);
}

/** The repository the relay sends with issue and pull request reads (a Go map: keys sorted). */
export function repositoryRecord(r: Repository): Record<string, unknown> {
  return {
    clone: r.clone,
    head: r.head,
    maintainers: r.maintainers,
    owner: r.owner,
    private: r.private,
    refs: r.refs,
  };
}

export const listRepositories: Reader = (args, view) => {
  const limit = limitOf(args.limit, 50);
  const cursor = text(args.cursor);
  const q = text(args.q).toLowerCase();
  const keys = [...view.repositories.keys()].sort();
  const items: Record<string, unknown>[] = [];
  let next = "";
  for (const key of keys) {
    const r = repositoryOf(view.repositories.get(key)!, view);
    if (key <= cursor || (q !== "" && !r.identifier.toLowerCase().includes(q))) continue;
    if (items.length === limit) {
      next = `${items[limit - 1].owner}/${items[limit - 1].identifier}`;
      break;
    }
    items.push({
      clone: r.clone,
      head: r.head,
      identifier: r.identifier,
      owner: r.owner,
      private: r.private,
      refs: r.refs,
      relays: r.relays,
    });
  }
  return browseOk({ items, next_cursor: next });
};
