// The small interfaces through which the engine talks to whoever hosts it (the VS Code adapter or
// the CLI). Tests implement them in a few lines; the core never knows which host it runs in.

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
}

/** Asks a person. The CLI answers from flags or a terminal prompt; VS Code shows a modal dialog. */
export interface Approver {
  /** `yesLabel` names the action, e.g. "Generate Scripts" (hosts that show buttons use it). */
  confirm(question: string, detail?: string, yesLabel?: string): Promise<boolean>;
  /** A cycle's plan, when the host has a richer place to show it (else `confirm` asks). */
  plan?(p: PlanApproval): Promise<PlanAnswer>;
}

/** A plan that waits for a person: HYPOTHESIS.md as it is on disk now. */
export interface PlanApproval {
  cycle: number;
  /** The candidate directory, e.g. `SATLUTION_3`. */
  candidate: string;
  title: string;
  hypothesis: string;
}

export interface PlanAnswer {
  approved: boolean;
  /** Why a plan was rejected, recorded with the discarded candidate. */
  reason?: string;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {}, debug() {} };

export const approveAll: Approver = { confirm: async () => true };
