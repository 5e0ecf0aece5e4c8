// Retries for provider calls: exponential backoff with jitter, at least as long as the server's
// Retry-After, cancellable, and cut short by a person's "retry now".
import { LlmError } from './provider';

export interface RetryOptions {
  maxAttempts?: number;
  baseMs?: number;
  maxMs?: number;
  signal?: AbortSignal;
  /** Called before each wait; `retryNow()` ends the wait at once. */
  onWait?: (w: { attempt: number; delayMs: number; error: LlmError; retryNow: () => void }) => void;
  random?: () => number;
}

export async function withRetries<T>(call: () => Promise<T>, o: RetryOptions = {}): Promise<T> {
  const max = o.maxAttempts ?? 6;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      const err = e instanceof LlmError ? e : new LlmError('network', String((e as Error).message ?? e));
      if (!err.retryable || attempt >= max || o.signal?.aborted) throw err;
      const backoff = Math.min(o.maxMs ?? 60_000, (o.baseMs ?? 1000) * 2 ** (attempt - 1)) * (0.5 + (o.random ?? Math.random)() / 2);
      const delayMs = Math.max(backoff, err.retryAfterMs ?? 0);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(done, delayMs);
        function done() {
          clearTimeout(timer);
          o.signal?.removeEventListener('abort', abort);
          resolve();
        }
        function abort() {
          clearTimeout(timer);
          reject(new LlmError('aborted', 'cancelled'));
        }
        o.signal?.addEventListener('abort', abort, { once: true });
        o.onWait?.({ attempt, delayMs, error: err, retryNow: done });
      });
    }
  }
}
