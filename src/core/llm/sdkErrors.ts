// Turns the SDKs' errors into LlmErrors with a message a person can act on.
import { LlmError } from './provider';

interface HttpLikeError {
  status?: number;
  headers?: Headers | Record<string, string | null | undefined>;
  message?: string;
  error?: unknown;
  name?: string;
}

function header(h: HttpLikeError['headers'], name: string): string | undefined {
  if (!h) return undefined;
  if (typeof (h as Headers).get === 'function') return (h as Headers).get(name) ?? undefined;
  return (h as Record<string, string | null | undefined>)[name] ?? undefined;
}

/** Retry-After in ms: seconds, an HTTP date, or the retry-after-ms header some gateways send. */
export function retryAfterMs(h: HttpLikeError['headers']): number | undefined {
  const ms = Number(header(h, 'retry-after-ms'));
  if (ms > 0) return ms;
  const v = header(h, 'retry-after');
  if (!v) return undefined;
  const s = Number(v);
  if (!Number.isNaN(s)) return Math.max(0, s * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

export function classify(e: unknown, provider: string, model: string): LlmError {
  if (e instanceof LlmError) return e;
  const err = e as HttpLikeError;
  const text = `${err.message ?? String(e)} ${JSON.stringify(err.error ?? '')}`;
  if (err.name === 'AbortError' || err.name === 'APIUserAbortError') return new LlmError('aborted', 'cancelled');
  const status = err.status;
  if (status === undefined)
    return new LlmError('network', `cannot reach ${provider} (${(err.message ?? String(e)).slice(0, 200)}); check the base URL and the network`);
  if (status === 401 || status === 403)
    return new LlmError(
      'auth',
      `${provider} rejected the API key (HTTP ${status}); set it with "SATLUTION: Set API Key" or the environment variable named by api_key_env`,
    );
  if (status === 404) return new LlmError('model', `${provider} does not know the model "${model}" (HTTP 404); check models.*.model in satlution.yaml`);
  if (status === 429) return new LlmError('rate_limit', `${provider} rate limit (HTTP 429)`, retryAfterMs(err.headers));
  if (status === 413 || /context_length_exceeded|maximum context length|prompt is too long|too many tokens/i.test(text))
    return new LlmError('context', `the conversation is longer than ${model}'s context window; the agent must summarize or drop old turns`);
  if (status >= 500) return new LlmError('server', `${provider} server error (HTTP ${status})`, retryAfterMs(err.headers));
  return new LlmError('bad_request', `${provider} refused the request (HTTP ${status}): ${(err.message ?? '').slice(0, 300)}`);
}
