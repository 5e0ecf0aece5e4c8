// OpenAI Chat Completions (and any OpenAI-compatible server: vLLM, Ollama, LM Studio, gateways) with
// streamed text and streamed tool calls, through the official `openai` client.
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { classify } from './sdkErrors';
import { emptyUsage, type ChatMessage, type ChatRequest, type ChatResponse, type LlmClient, type ToolCall } from './provider';

export class OpenAiClient implements LlmClient {
  private readonly client: OpenAI;

  constructor(
    readonly provider: 'openai' | 'openai-compatible',
    readonly model: string,
    opts: { apiKey: string; baseUrl?: string; timeoutMs?: number },
  ) {
    // Retries are ours (with Retry-After and "retry now"), so the SDK's are off.
    this.client = new OpenAI({ apiKey: opts.apiKey, ...(opts.baseUrl ? { baseURL: opts.baseUrl } : {}), maxRetries: 0, timeout: opts.timeoutMs ?? 600_000 });
  }

  async chat(req: ChatRequest): Promise<ChatResponse> {
    try {
      const stream = await this.client.chat.completions.create(
        {
          model: this.model,
          messages: [{ role: 'system', content: req.system }, ...req.messages.map(toOpenAi)],
          ...(req.tools?.length
            ? {
                tools: req.tools.map((t): ChatCompletionTool => ({
                  type: 'function',
                  function: { name: t.name, description: t.description, parameters: t.parameters },
                })),
              }
            : {}),
          // max_tokens is what every OpenAI-compatible server understands.
          ...(req.maxOutputTokens ? { max_tokens: req.maxOutputTokens } : {}),
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal: req.signal },
      );
      let text = '';
      const calls: { id: string; name: string; arguments: string }[] = [];
      const usage = emptyUsage();
      let finish: string | null = null;
      for await (const chunk of stream) {
        if (chunk.usage) {
          usage.input = chunk.usage.prompt_tokens ?? 0;
          usage.output = chunk.usage.completion_tokens ?? 0;
          usage.cacheRead = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
        }
        const choice = chunk.choices[0];
        if (!choice) continue;
        if (choice.delta.content) {
          text += choice.delta.content;
          req.onText?.(choice.delta.content);
        }
        for (const tc of choice.delta.tool_calls ?? []) {
          const c = (calls[tc.index] ??= { id: '', name: '', arguments: '' });
          if (tc.id) c.id = tc.id;
          if (tc.function?.name) c.name += tc.function.name;
          if (tc.function?.arguments) c.arguments += tc.function.arguments;
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      const toolCalls: ToolCall[] = calls.filter(Boolean).map((c, i) => ({ id: c.id || `call_${i}`, name: c.name, arguments: c.arguments }));
      return {
        text,
        toolCalls,
        usage,
        model: this.model,
        stop: finish === 'tool_calls' || toolCalls.length ? 'tool_use' : finish === 'length' ? 'max_tokens' : finish === 'stop' ? 'end' : 'other',
      };
    } catch (e) {
      throw classify(e, this.provider, this.model);
    }
  }
}

function toOpenAi(m: ChatMessage): ChatCompletionMessageParam {
  if (m.role === 'user') return { role: 'user', content: m.content };
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.isError ? `ERROR: ${m.content}` : m.content };
  return {
    role: 'assistant',
    content: m.content || null,
    ...(m.toolCalls?.length
      ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
      : {}),
  };
}
