// The flags that let the relay reach the agent in an MCP host (`mcp --listen
// ROOMS --allow-from KEYS [--require-mention=false]`) and people approve from a
// room (`--approvers KEYS --home-room ROOM`, `--confirm-via host|relay`).
// Pure; the keys are checked here, hex or npub, without the signing stack.

import type { ApprovalSettings, ListenSettings } from "../listen/settings.ts";
import { publicKeyHex } from "../wire/bech32.ts";
import { type Flags, list, redactKeys, type Topic, UsageError } from "./flags.ts";

export const LISTEN_FLAGS: Flags = {
  listen: { type: "string" },
  "allow-from": { type: "string" },
  "require-mention": { type: "boolean" },
  approvers: { type: "string" },
  "home-room": { type: "string" },
  "confirm-via": { type: "string" },
};

/** The relay's room ids. */
const ROOM = /^[a-z0-9_-]{1,64}$/;

function rooms(flag: string, value: string, topic: Topic): string[] {
  const named = [...new Set(list(value))];
  if (named.length === 0) {
    throw new UsageError(`${flag}: name at least one room, such as ${flag} general`, topic);
  }
  // An nsec is 63 of a-z and 0-9, a room id's letters: refused unshown, never sent as a filter.
  if (named.some((room) => redactKeys(room) !== room)) {
    throw new UsageError(
      `${flag}: an item looks like a private key and is not shown: name rooms here`,
      topic,
    );
  }
  const bad = named.find((room) => !ROOM.test(room));
  if (bad !== undefined) {
    throw new UsageError(
      `${flag}: ${JSON.stringify(bad)} is not a room id (1-64 of a-z, 0-9, _ and -)`,
      topic,
    );
  }
  return named;
}

/** Keys given as npub or hex, as hex; a bad one is named by its place, never echoed (it may be a secret). */
function keys(flag: string, value: string, topic: Topic): string[] {
  const given = list(value) ?? [];
  if (given.length === 0) {
    throw new UsageError(`${flag}: name at least one public key (npub1… or 64 hex)`, topic);
  }
  return [
    ...new Set(given.map((key, i) => {
      const hex = publicKeyHex(key);
      if (hex === undefined) {
        throw new UsageError(
          `${flag}: item ${i + 1} is not a public key (an npub1… or 64 hex characters); it is not shown`,
          topic,
        );
      }
      return hex;
    })),
  ];
}

/** A flag that only means something beside another: said, never silently dropped. */
function needs(
  values: Record<string, unknown>,
  flag: string,
  other: string,
  why: string,
  topic: Topic,
): void {
  if (values[flag] !== undefined && values[other] === undefined) {
    throw new UsageError(`--${flag} needs --${other}: ${why}`, topic);
  }
}

export function listenFlags(values: Record<string, unknown>, topic: Topic): ListenSettings | undefined {
  if (values.listen === undefined) {
    needs(values, "allow-from", "listen", "it says whose events the listener admits", topic);
    needs(values, "require-mention", "listen", "it says which events the listener admits", topic);
    return undefined;
  }
  if (values["allow-from"] === undefined) {
    throw new UsageError(
      "--listen needs --allow-from: name the keys (npub or hex) whose events may reach the model; nobody is " +
        "admitted by default, since an ungated listener lets anyone in the room put text before the model",
      topic,
    );
  }
  return {
    rooms: rooms("--listen", values.listen as string, topic),
    allowFrom: keys("--allow-from", values["allow-from"] as string, topic),
    requireMention: values["require-mention"] !== false,
  };
}

function homeRoom(value: string, topic: Topic): string {
  const [room, ...more] = rooms("--home-room", value, topic);
  if (more.length > 0) throw new UsageError("--home-room: one room, where the approval cards go", topic);
  return room;
}

export function approvalFlags(
  values: Record<string, unknown>,
  confirmWrites: boolean,
  topic: Topic,
): ApprovalSettings | undefined {
  const via = values["confirm-via"] as string | undefined;
  if (via !== undefined && via !== "host" && via !== "relay") {
    throw new UsageError(
      "--confirm-via: host (the host asks its person) or relay (a card in --home-room)",
      topic,
    );
  }
  needs(values, "approvers", "home-room", "the room where the approval cards are posted", topic);
  needs(values, "home-room", "approvers", "the keys (npub or hex) whose signed answers approve", topic);
  if (via === "relay" && values.approvers === undefined) {
    throw new UsageError(
      "--confirm-via relay needs --approvers and --home-room: who answers, and where",
      topic,
    );
  }
  if (via === "relay" && !confirmWrites) {
    throw new UsageError("--confirm-via relay says how --confirm-writes asks: add --confirm-writes", topic);
  }
  if (values.approvers === undefined) return undefined;
  return {
    approvers: keys("--approvers", values.approvers as string, topic),
    homeRoom: homeRoom(values["home-room"] as string, topic),
    confirmViaRelay: via === "relay",
  };
}

export type { ApprovalSettings, ListenSettings };
