// INTERIM (being written): approvals from the room. Until then every question is refused.

import type { PublishDeps } from "../oversight/gated_publish.ts";
import type { ConfirmAnswer } from "../oversight/confirmation.ts";
import type { RelayStream } from "../stream/relay_stream.ts";
import type { ApprovalSettings } from "./settings.ts";

export interface ApprovalsOptions {
  settings: ApprovalSettings;
  agent: string;
  stream: RelayStream;
  publish: PublishDeps;
  lifetimeMs: number;
  verdict(requestId: string, behavior: "allow" | "deny"): void;
  ownEvent(id: string): void;
  log(line: string): void;
}

export class Approvals {
  constructor(readonly options: ApprovalsOptions) {}
  ask = (_question: string): Promise<ConfirmAnswer> =>
    Promise.resolve({ action: "unable", why: "approvals from the room are not written yet" });
  permissionRequest(_params: unknown): void {}
  close(): void {}
}
