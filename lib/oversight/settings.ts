// The oversight settings a person chose (`--audit-log`, `--max-writes`,
// `--confirm-writes`, `--confirm-timeout`) and how they are said where a person
// looks: the startup line and `tinyagent tools`. Pure.

/** How long the person has to answer unless `--confirm-timeout` says otherwise. */
export const DEFAULT_CONFIRM_TIMEOUT_SECONDS = 300;

export interface OversightSettings {
  /** The audit log's path, absolute when the main thread could resolve it. */
  auditLog?: string;
  /** At most this many writes in the process. */
  maxWrites?: number;
  /** Ask the person before each write. */
  confirmWrites: boolean;
  /** How long the person has to answer. */
  confirmTimeoutMs: number;
}

/** No flag given: writes (when allowed) go ahead unasked and uncounted, each with its receipt on stderr. */
export const DEFAULT_OVERSIGHT: OversightSettings = {
  confirmWrites: false,
  confirmTimeoutMs: DEFAULT_CONFIRM_TIMEOUT_SECONDS * 1000,
};

/**
 * The settings in words, for the startup line and `tinyagent tools`. `asker` says who asks the
 * person; `canAsk: false` (a host that declared no elicitation) says that every write will be refused.
 */
export function oversightSummary(
  settings: OversightSettings,
  allowWrites: boolean,
  asker: "host" | "terminal" | { room: string },
  canAsk = true,
  /** --confirm-timeout also bounds the approval cards of Claude Code's permission requests (--approvers). */
  timesCards = false,
): string {
  const log = settings.auditLog === undefined ? "" : `; audit log ${JSON.stringify(settings.auditLog)}`;
  if (!allowWrites) {
    // Given with writes off (a bundle passes every setting): said, so nobody thinks they act.
    const idle = [
      ...(settings.maxWrites !== undefined ? [`--max-writes ${settings.maxWrites}`] : []),
      ...(settings.confirmWrites ? ["--confirm-writes"] : []),
    ];
    const note = idle.length === 0
      ? ""
      : ` (${idle.join(" and ")} have no writes to act on: add --allow-writes)`;
    return `writes not allowed${note}${log}`;
  }
  const parts = ["writes allowed, each with a receipt on stderr"];
  if (settings.confirmWrites) {
    const seconds = settings.confirmTimeoutMs / 1000;
    parts.push(
      typeof asker === "object"
        ? `each approved by an approver's signed answer to a card in room ${
          JSON.stringify(asker.room)
        } first ` +
          `(${seconds} s to answer)`
        : canAsk
        ? `each approved by the person through the ${asker} first (${seconds} s to answer)`
        : `each to be approved through the ${asker}, which cannot ask its person (its initialize declared no ` +
          `elicitation capability): every write will be refused; use a host that supports MCP elicitation, ` +
          `or drop --confirm-writes`,
    );
  }
  if (settings.maxWrites !== undefined) {
    parts.push(`at most ${settings.maxWrites} write${settings.maxWrites === 1 ? "" : "s"} in this session`);
  }
  if (
    !settings.confirmWrites && !timesCards && settings.confirmTimeoutMs !== DEFAULT_OVERSIGHT.confirmTimeoutMs
  ) {
    parts.push("--confirm-timeout has nothing to time without --confirm-writes");
  }
  return parts.join("; ") + log;
}

/** The settings as `tinyagent tools --json` reports them. */
export function oversightReport(settings: OversightSettings, allowWrites: boolean) {
  return {
    allow_writes: allowWrites,
    confirm_writes: settings.confirmWrites,
    confirm_timeout_seconds: settings.confirmTimeoutMs / 1000,
    max_writes: settings.maxWrites ?? null,
    audit_log: settings.auditLog ?? null,
  };
}
