// Exit codes (ARCHITECTURE.md, "Contracts"): 0 success, 1 a candidate failed a gate, 2 bad usage, config or input.
export const EXIT = { ok: 0, gateFailed: 1, usage: 2 } as const;

/** An error whose message is for the person at the terminal; printed without a stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}
