// Building a client for a role from satlution.yaml, and the metered wrapper every agent uses:
// budget check before the call, retries around it, usage and cost recorded after it.
import type { ModelConfig } from '../config/schema';
import { AnthropicClient } from './anthropic';
import { OpenAiClient } from './openai';
import { withRetries, type RetryOptions } from './retry';
import { LlmError, type ChatRequest, type ChatResponse, type LlmClient, type Role } from './provider';
import { costUsd, type UsageLedger } from './usage';

const DEFAULT_KEY_ENV = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY', 'openai-compatible': 'OPENAI_API_KEY' } as const;

/** The API key for the CLI: the variable named by api_key_env, else the provider's usual one. */
export function apiKeyFromEnv(m: ModelConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[m.api_key_env ?? DEFAULT_KEY_ENV[m.provider]] || undefined;
}

export function createClient(m: ModelConfig, apiKey: string | undefined): LlmClient {
  // A local OpenAI-compatible server usually needs no key; the SDK still wants a string.
  const key = apiKey ?? (m.provider === 'openai-compatible' ? 'not-needed' : undefined);
  if (!key)
    throw new LlmError(
      'auth',
      `no API key for ${m.provider} (${m.model}): set ${m.api_key_env ?? DEFAULT_KEY_ENV[m.provider]} or use "SATLUTION: Set API Key"`,
    );
  const opts = { apiKey: key, ...(m.base_url ? { baseUrl: m.base_url } : {}) };
  return m.provider === 'anthropic' ? new AnthropicClient(m.model, opts) : new OpenAiClient(m.provider, m.model, opts);
}

export class MeteredClient implements LlmClient {
  constructor(
    private readonly inner: LlmClient,
    private readonly meta: { role: Role; run: string; cycle: number | null; config: ModelConfig; ledger: UsageLedger; retry?: RetryOptions },
  ) {}

  get provider() {
    return this.inner.provider;
  }

  get model() {
    return this.inner.model;
  }

  async chat(req: ChatRequest): Promise<ChatResponse> {
    await this.meta.ledger.ensureBudget();
    const res = await withRetries(() => this.inner.chat(req), { ...this.meta.retry, ...(req.signal ? { signal: req.signal } : {}) });
    await this.meta.ledger.add({
      at: new Date().toISOString(),
      run: this.meta.run,
      cycle: this.meta.cycle,
      role: this.meta.role,
      model: res.model,
      usage: res.usage,
      usd: costUsd(res.usage, this.meta.config.price_usd_per_mtok),
    });
    return res;
  }
}
