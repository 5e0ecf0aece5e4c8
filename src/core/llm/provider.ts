// One interface for every LLM provider: a chat turn with tools, streamed, cancellable, with usage.
// Tool-call arguments stay raw JSON text here: the agent validates them (zod) and answers a malformed
// call with a tool error, so a model's mistake never crashes the loop.

export type Role = 'planner' | 'coder' | 'judge';

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text, possibly malformed). */
  arguments: string;
}

export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError?: boolean };

export interface ChatRequest {
  system: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  maxOutputTokens?: number;
  signal?: AbortSignal;
  /** Streamed text as it arrives. */
  onText?: (delta: string) => void;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface ChatResponse {
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
  stop: 'end' | 'tool_use' | 'max_tokens' | 'other';
  model: string;
}

export interface LlmClient {
  readonly provider: 'openai' | 'anthropic' | 'openai-compatible';
  readonly model: string;
  chat(req: ChatRequest): Promise<ChatResponse>;
}

export type LlmErrorKind = 'auth' | 'model' | 'context' | 'rate_limit' | 'server' | 'network' | 'bad_request' | 'aborted' | 'budget';

/** A provider failure, classified so the caller knows whether to retry and what to tell a person. */
export class LlmError extends Error {
  override name = 'LlmError';
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  get retryable(): boolean {
    return this.kind === 'rate_limit' || this.kind === 'server' || this.kind === 'network';
  }
}

export const emptyUsage = (): Usage => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
