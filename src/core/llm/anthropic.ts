// Anthropic Messages with streamed text, tool use and prompt caching (the system prompt and the tool
// list are marked cacheable: they repeat in every turn of an agent loop), through `@anthropic-ai/sdk`.
import Anthropic from '@anthropic-ai/sdk';
import { classify } from './sdkErrors';
import { emptyUsage, type ChatMessage, type ChatRequest, type ChatResponse, type LlmClient, type ToolCall } from './provider';

type Params = Parameters<Anthropic['messages']['stream']>[0];
type MessageParam = Params['messages'][number];

export class AnthropicClient implements LlmClient {
  readonly provider = 'anthropic' as const;
  private readonly client: Anthropic;

  constructor(
    readonly model: string,
    opts: { apiKey: string; baseUrl?: string; timeoutMs?: number },
  ) {
    this.client = new Anthropic({ apiKey: opts.apiKey, ...(opts.baseUrl ? { baseURL: opts.baseUrl } : {}), maxRetries: 0, timeout: opts.timeoutMs ?? 600_000 });
  }

  async chat(req: ChatRequest): Promise<ChatResponse> {
    try {
      const tools = (req.tools ?? []).map((t, i, all) => ({
        name: t.name,
        description: t.description,
        input_schema: t.parameters as { type: 'object'; [k: string]: unknown },
        ...(i === all.length - 1 ? { cache_control: { type: 'ephemeral' as const } } : {}),
      }));
      const stream = this.client.messages.stream(
        {
          model: this.model,
          max_tokens: req.maxOutputTokens ?? 8192,
          system: [{ type: 'text', text: req.system, cache_control: { type: 'ephemeral' } }],
          messages: toAnthropic(req.messages),
          ...(tools.length ? { tools } : {}),
        } as Params,
        { signal: req.signal },
      );
      stream.on('text', (delta) => req.onText?.(delta));
      const msg = await stream.finalMessage();
      let text = '';
      const toolCalls: ToolCall[] = [];
      for (const block of msg.content) {
        if (block.type === 'text') text += block.text;
        else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
      }
      const u = msg.usage;
      const usage = {
        ...emptyUsage(),
        input: u.input_tokens ?? 0,
        output: u.output_tokens ?? 0,
        cacheRead: u.cache_read_input_tokens ?? 0,
        cacheWrite: u.cache_creation_input_tokens ?? 0,
      };
      const stop =
        msg.stop_reason === 'tool_use' ? 'tool_use' : msg.stop_reason === 'max_tokens' ? 'max_tokens' : msg.stop_reason === 'end_turn' ? 'end' : 'other';
      return { text, toolCalls, usage, stop, model: msg.model ?? this.model };
    } catch (e) {
      throw classify(e, this.provider, this.model);
    }
  }
}

/** Our turns as Anthropic's: tool results are user turns of tool_result blocks, merged when adjacent. */
function toAnthropic(messages: ChatMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      const content: unknown[] = [];
      if (m.content) content.push({ type: 'text', text: m.content });
      for (const c of m.toolCalls ?? []) content.push({ type: 'tool_use', id: c.id, name: c.name, input: safeJson(c.arguments) });
      out.push({ role: 'assistant', content } as MessageParam);
      continue;
    }
    const block =
      m.role === 'user'
        ? { type: 'text', text: m.content }
        : { type: 'tool_result', tool_use_id: m.toolCallId, content: m.content, ...(m.isError ? { is_error: true } : {}) };
    const last = out[out.length - 1];
    if (last?.role === 'user' && Array.isArray(last.content)) (last.content as unknown[]).push(block);
    else out.push({ role: 'user', content: [block] } as MessageParam);
  }
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {}; // the call was malformed; the tool_result that follows says so
  }
}
