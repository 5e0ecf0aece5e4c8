// The real `openai` and `@anthropic-ai/sdk` clients against a local server that speaks each wire
// protocol: streamed text and tool calls, usage, 429 with Retry-After, 500, dropped connections,
// malformed tool-call JSON, bad keys, unknown models, context overflow; accounting and budgets.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { AnthropicClient } from '../../src/core/llm/anthropic';
import { createClient, MeteredClient } from '../../src/core/llm/factory';
import { OpenAiClient } from '../../src/core/llm/openai';
import { withRetries } from '../../src/core/llm/retry';
import { parseToolCall, untilValidCall } from '../../src/core/llm/toolCall';
import { z } from 'zod';
import { LlmError, type LlmClient } from '../../src/core/llm/provider';
import { costUsd, UsageLedger } from '../../src/core/llm/usage';
import { LlmTestServer } from '../fixtures/llmServer';
import { tempDir } from './helpers';

const TOOLS = [
  { name: 'edit', description: 'Replace text in a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
];

for (const provider of ['openai', 'anthropic'] as const) {
  describe(`llm: ${provider} client over its wire protocol`, function () {
    this.timeout(20000);
    let server: LlmTestServer;
    let client: LlmClient;
    beforeEach(async () => {
      server = new LlmTestServer();
      const url = await server.start();
      client =
        provider === 'openai'
          ? new OpenAiClient('openai', 'gpt-test', { apiKey: 'sk-test', baseUrl: `${url}/v1` })
          : new AnthropicClient('claude-test', { apiKey: 'sk-ant-test', baseUrl: url });
    });
    afterEach(() => server.close());

    it('streams text and reports usage', async () => {
      server.queue({ kind: 'text', text: 'Hello from the planner', usage: { input: 120, output: 9, cacheRead: 100 } });
      const deltas: string[] = [];
      const r = await client.chat({ system: 'You plan.', messages: [{ role: 'user', content: 'Plan.' }], onText: (d) => deltas.push(d) });
      assert.equal(r.text, 'Hello from the planner');
      assert.ok(deltas.length > 1, 'streamed in pieces');
      assert.equal(deltas.join(''), r.text);
      assert.equal(r.stop, 'end');
      assert.deepEqual([r.usage.input, r.usage.output, r.usage.cacheRead], [120, 9, 100]);
      const seen = server.requests[0]!;
      if (provider === 'anthropic') {
        assert.ok(seen.headers['x-api-key'] === 'sk-ant-test' || seen.headers.authorization === 'Bearer sk-ant-test', 'the key is sent');
        assert.ok(seen.headers['anthropic-version']);
        assert.deepEqual((seen.body.system as { cache_control: unknown }[])[0]!.cache_control, { type: 'ephemeral' }, 'the system prompt is cached');
      } else assert.equal(seen.headers.authorization, 'Bearer sk-test');
    });

    it('streams a tool call whose arguments arrive in pieces, and sends tool results back', async () => {
      server.queue({ kind: 'tool', name: 'edit', args: '{"path":"src/search.c"}', id: 'call_7', text: 'Editing.' }, { kind: 'text', text: 'done' });
      const r = await client.chat({ system: 's', messages: [{ role: 'user', content: 'go' }], tools: TOOLS });
      assert.equal(r.stop, 'tool_use');
      assert.deepEqual(r.toolCalls, [{ id: 'call_7', name: 'edit', arguments: '{"path":"src/search.c"}' }]);
      await client.chat({
        system: 's',
        tools: TOOLS,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: r.text, toolCalls: r.toolCalls },
          { role: 'tool', toolCallId: 'call_7', name: 'edit', content: 'edit failed: 0 matches', isError: true },
        ],
      });
      const sent = JSON.stringify(server.requests[1]!.body.messages);
      assert.match(sent, /call_7/);
      assert.match(sent, /edit failed: 0 matches/);
      if (provider === 'anthropic') assert.match(sent, /"is_error":true/);
    });

    it('classifies a bad key, an unknown model and a context overflow, without retrying them', async () => {
      server.queue(
        { kind: 'error', status: 401, message: 'invalid x-api-key', code: 'authentication_error' },
        { kind: 'error', status: 404, message: 'model not found', code: 'not_found_error' },
        { kind: 'error', status: 400, message: "This model's maximum context length is 8192 tokens. prompt is too long", code: 'context_length_exceeded' },
      );
      const kinds: string[] = [];
      for (let i = 0; i < 3; i++)
        await withRetries(() => client.chat({ system: 's', messages: [{ role: 'user', content: 'x' }] }), { baseMs: 1 }).catch((e: LlmError) =>
          kinds.push(`${e.kind}:${e.retryable}`),
        );
      assert.deepEqual(kinds, ['auth:false', 'model:false', 'context:false']);
      assert.equal(server.requests.length, 3, 'no retries');
    });

    it('retries a 429 after its Retry-After, a 500, and a dropped stream', async () => {
      server.queue(
        { kind: 'error', status: 429, message: 'slow down', code: 'rate_limit_error', headers: { 'retry-after': '1' } },
        { kind: 'error', status: 500, message: 'boom', code: 'api_error' },
        { kind: 'drop', text: 'partial answer that never ends' },
        { kind: 'text', text: 'finally' },
      );
      const waits: number[] = [];
      const t0 = Date.now();
      const r = await withRetries(() => client.chat({ system: 's', messages: [{ role: 'user', content: 'x' }] }), {
        baseMs: 10,
        onWait: (w) => waits.push(w.delayMs),
      });
      assert.equal(r.text, 'finally');
      assert.equal(server.requests.length, 4);
      assert.ok(waits[0]! >= 1000, `honoured Retry-After (${waits[0]} ms)`);
      assert.ok(Date.now() - t0 >= 1000);
    });
  });
}

describe('llm: malformed tool calls, retry now, accounting and budgets', function () {
  this.timeout(20000);
  let server: LlmTestServer;
  beforeEach(async () => {
    server = new LlmTestServer();
    await server.start();
  });
  afterEach(() => server.close());

  it('hands malformed tool-call JSON to the agent as it came (to answer with a tool error)', async () => {
    server.queue({ kind: 'tool', name: 'edit', args: '{"path": "src/a.c", ' });
    const c = new OpenAiClient('openai-compatible', 'local', { apiKey: 'x', baseUrl: `${server.url}/v1` });
    const r = await c.chat({ system: 's', messages: [{ role: 'user', content: 'x' }], tools: TOOLS });
    assert.equal(r.toolCalls[0]!.arguments, '{"path": "src/a.c", ');
    assert.throws(() => JSON.parse(r.toolCalls[0]!.arguments));
  });

  it('Anthropic: the SDK completes truncated tool-input JSON as far as it parses (the agent validates it)', async () => {
    server.queue({ kind: 'tool', name: 'edit', args: '{"path": "src/a.c", ' });
    const c = new AnthropicClient('claude-test', { apiKey: 'x', baseUrl: server.url });
    const r = await c.chat({ system: 's', messages: [{ role: 'user', content: 'x' }], tools: TOOLS });
    assert.deepEqual(JSON.parse(r.toolCalls[0]!.arguments), { path: 'src/a.c' });
  });

  it('"retry now" ends a long Retry-After wait at once', async () => {
    server.queue({ kind: 'error', status: 429, message: 'wait', headers: { 'retry-after': '30' } }, { kind: 'text', text: 'ok' });
    const c = new OpenAiClient('openai', 'gpt-test', { apiKey: 'x', baseUrl: `${server.url}/v1` });
    const t0 = Date.now();
    const r = await withRetries(() => c.chat({ system: 's', messages: [{ role: 'user', content: 'x' }] }), { onWait: (w) => setTimeout(w.retryNow, 50) });
    assert.equal(r.text, 'ok');
    assert.ok(Date.now() - t0 < 5000);
  });

  it('a cancelled wait stops cleanly', async () => {
    server.queue({ kind: 'error', status: 503, message: 'overloaded', headers: { 'retry-after': '30' } });
    const c = new OpenAiClient('openai', 'gpt-test', { apiKey: 'x', baseUrl: `${server.url}/v1` });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    await assert.rejects(
      withRetries(() => c.chat({ system: 's', messages: [{ role: 'user', content: 'x' }], signal: abort.signal }), { signal: abort.signal }),
      (e: LlmError) => e.kind === 'aborted',
    );
  });

  it('accounts tokens and dollars per role and cycle, and stops at the budget', async () => {
    const ws = tempDir();
    const config = {
      provider: 'openai-compatible' as const,
      model: 'local',
      base_url: `${server.url}/v1`,
      price_usd_per_mtok: { input: 3, output: 15, cache_read: 0.3 },
    };
    const ledger = UsageLedger.forWorkspace(ws, 0.002);
    const planner = new MeteredClient(createClient(config, undefined), { role: 'planner', run: 'r1', cycle: 1, config, ledger, retry: { baseMs: 1 } });
    server.queue(
      { kind: 'text', text: 'a', usage: { input: 200, output: 50, cacheRead: 100 } },
      { kind: 'text', text: 'b', usage: { input: 200, output: 50 } },
    );
    await planner.chat({ system: 's', messages: [{ role: 'user', content: 'x' }] });
    const one = costUsd({ input: 200, output: 50, cacheRead: 100, cacheWrite: 0 }, config.price_usd_per_mtok);
    assert.ok(Math.abs(one - (200 * 3 + 50 * 15 + 100 * 0.3) / 1e6) < 1e-12);
    assert.ok(Math.abs((await ledger.totalUsd({ role: 'planner', cycle: 1 })) - one) < 1e-12);
    await planner.chat({ system: 's', messages: [{ role: 'user', content: 'x' }] });
    assert.deepEqual(await new UsageLedger(path.join(ws, '.satlution', 'usage.jsonl')).tokens({ run: 'r1' }), {
      input: 400,
      output: 100,
      cacheRead: 100,
      cacheWrite: 0,
    });
    await assert.rejects(planner.chat({ system: 's', messages: [{ role: 'user', content: 'x' }] }), /the USD budget is spent \(\$0\.00\d\d of \$0\.0020\)/);
    assert.equal(server.requests.length, 2, 'the call over budget was never sent');
  });

  it('says which key is missing', () => {
    assert.throws(() => createClient({ provider: 'anthropic', model: 'claude-x' }, undefined), /no API key for anthropic \(claude-x\): set ANTHROPIC_API_KEY/);
  });
});

describe('tool calls the one-call agents take (llm/toolCall.ts)', () => {
  const Score = z.object({ score: z.number().int().min(1).max(10) });
  const call = (args: string) => ({ id: 'c1', name: 'submit_score', arguments: args });
  const tool = { name: 'submit_score', description: 'score', parameters: {} };

  it('parses and validates arguments, or says what is wrong in words a model can act on', () => {
    assert.deepEqual(parseToolCall(call('{"score": 7}'), Score), { ok: true, data: { score: 7 } });
    const bad = parseToolCall(call('{"score": 11}'), Score);
    assert.ok(!bad.ok && /^score: /.test(bad.problem) && bad.issues?.[0]?.code === 'too_big', JSON.stringify(bad));
    const torn = parseToolCall(call('{"score": '), Score);
    assert.ok(!torn.ok && /^not valid JSON \(/.test(torn.problem) && !torn.issues, JSON.stringify(torn));
  });

  it('asks again after no call and after invalid or refused arguments, and gives up after its attempts with the last problem', async () => {
    const replies = ['no call', '{"score": 0}', '{"score": 3}', '{"score": 8}'];
    const turn = (text: string) => ({
      text,
      toolCalls: text === 'no call' ? [] : [call(text)],
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
      stop: 'end' as const,
      model: 'm',
    });
    const run = (attempts: number) => {
      const queue = [...replies];
      const seen: string[] = [];
      return untilValidCall({
        chat: async () => turn(queue.shift()!),
        messages: [],
        tool,
        schema: Score,
        attempts,
        nudge: 'Call submit_score.',
        again: 'Again.',
        accept: async (s) => (s.score < 5 ? { problem: 'too low', reply: 'refused: too low' } : { value: s.score }),
        onMessage: async (m) => void seen.push(m.role === 'tool' ? `tool:${m.content}` : m.role),
      }).then((out) => ({ out, seen }));
    };
    const won = await run(4);
    assert.deepEqual(won.out, { value: 8 });
    assert.deepEqual(won.seen, [
      'assistant',
      'user',
      'assistant',
      'tool:invalid: score: Too small: expected number to be >=1. Again.',
      'assistant',
      'tool:refused: too low',
      'assistant',
    ]);
    assert.deepEqual((await run(3)).out, { problem: 'too low' });
  });
});
