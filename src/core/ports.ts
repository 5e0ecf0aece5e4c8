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
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {}, debug() {} };

export const approveAll: Approver = { confirm: async () => true };
