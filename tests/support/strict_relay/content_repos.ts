// Hosted repositories as the real relay's browse methods show them: list_repositories (browserepos,
// by "<owner>/<identifier>" with that as cursor, `q` on the identifier) and the repository record the
// issue and pull request reads carry. An unknown repository is refused with the words the relay's
// Git registry gives (Go's os.ErrNotExist: "file does not exist"). Go sends a nil slice as null, so
// a repository with no clone URL or relay says `null` there, not `[]`.

import * as nip19 from "nostr-tools/nip19";
import type { RepositorySeed } from "./content_types.ts";
import { browseOk, type ContentView, limitOf, type Reader, text } from "./content_view.ts";

export const NO_REPOSITORY = "file does not exist";

/** A maintainer as the relay lists one (gitrelay.Maintainer): the owner first, then the announced ones. */
export interface Maintainer {
  pubkey: string;
  /** "owner", "maintainer" or "agent". */
  role: string;
  name?: string;
}

/** A repository with the defaults the seed leaves out filled in. */
export interface Repository {
  owner: string;
  identifier: string;
  head: string;
  private: boolean;
  clone: string[] | null;
  relays: string[] | null;
  refs: Record<string, string>;
  maintainers: Maintainer[];
  /** The keys whose status changes count: the owner's and the maintainers'. */
  maintainerKeys: string[];
  seed: RepositorySeed;
}

/** A list as Go encodes a slice: null when it holds nothing. */
const goSlice = (list: string[]): string[] | null => list.length === 0 ? null : list;

/**
 * The owner, then the seed's maintainers. The relay adds agents holding a maintain grant (role
 * "agent", with the grant's name) last; the twin seeds no grants, so it lists none and no names.
 */
function maintainersOf(seed: RepositorySeed): Maintainer[] {
  const keys = [...new Set([seed.owner, ...(seed.maintainers ?? [])])];
  return keys.map((pubkey, i) => ({ pubkey, role: i === 0 ? "owner" : "maintainer" }));
}

export function repositoryOf(seed: RepositorySeed, view: ContentView): Repository {
  const newest = seed.commits?.[0]?.oid;
  const base = view.url.replace(/\/+$/, "");
  return {
    owner: seed.owner,
    identifier: seed.identifier,
    head: seed.head ?? "ref: refs/heads/main",
    private: seed.private ?? false,
    clone: goSlice(seed.clone ?? [`${base}/${nip19.npubEncode(seed.owner)}/${seed.identifier}.git`]),
    relays: goSlice(seed.relays ?? [base.replace(/^http/, "ws")]),
    refs: seed.refs ?? (newest ? { "refs/heads/main": newest } : {}),
    maintainers: maintainersOf(seed),
    maintainerKeys: maintainersOf(seed).map((m) => m.pubkey),
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
