// What a person set for listening (`--listen`, `--allow-from`,
// `--require-mention`) and for approvals from the room (`--approvers`,
// `--home-room`, `--confirm-via`): cli/listen_args.ts reads the flags into these.

/** Which rooms the session listens to, and whose events may reach the model. */
export interface ListenSettings {
  rooms: string[];
  /** Public keys (hex) whose events are admitted; never empty. */
  allowFrom: string[];
  /** Only events addressed to the agent (a mention, a reply, a job naming it); false: every message. */
  requireMention: boolean;
}

/** Who may approve from the room, and where the cards go. */
export interface ApprovalSettings {
  approvers: string[];
  homeRoom: string;
  /** `--confirm-via relay`: `--confirm-writes` asks the approvers with a card instead of the host. */
  confirmViaRelay: boolean;
}
