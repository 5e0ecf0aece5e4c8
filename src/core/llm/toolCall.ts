// A tool call's arguments as the agents take them: parsed and validated by a zod schema, or refused with
// words a model can act on; and the loop of the one-call agents (the judge, the objective proposer):
// ask, answer a missing or invalid call with what is wrong, and stop after a number of turns.
import type { z } from 'zod';
import type { ChatMessage, ChatResponse, ToolCall, ToolSpec, Usage } from './provider';

/** A call's arguments, parsed and validated: the data, or the problem (its zod issues where they were valid JSON). */
export type ParsedCall<T> = { ok: true; data: T } | { ok: false; problem: string; issues?: z.core.$ZodIssue[] };

/** Parses a call's JSON arguments and validates them with `schema`; `label` names the arguments in the problem. */
export function parseToolCall<T>(call: ToolCall, schema: z.ZodType<T>, label = 'arguments'): ParsedCall<T> {
  let json: unknown;
  try {
    json = JSON.parse(call.arguments);
  } catch (e) {
    return { ok: false, problem: `not valid JSON (${(e as Error).message})` };
  }
  const p = schema.safeParse(json);
  if (p.success) return { ok: true, data: p.data };
  return { ok: false, problem: p.error.issues.map((x) => `${x.path.join('.') || label}: ${x.message}`).join('; '), issues: p.error.issues };
}

/** What a one-call agent's `accept` says of valid arguments: the value to return, or why not and what to tell the model. */
export type Accepted<R> = { value: R } | { problem: string; reply: string };

/**
 * Asks until the model makes a `tool` call whose arguments `schema` and `accept` take, at most
 * `attempts` turns: no call is answered with `nudge`, invalid arguments with the problem and `again`.
 * Every message added to `messages` is passed to `onMessage` (with the turn's usage for the model's).
 * Returns the accepted value, or the last problem.
 */
export async function untilValidCall<T, R>(o: {
  chat: (messages: ChatMessage[]) => Promise<ChatResponse>;
  messages: ChatMessage[];
  tool: ToolSpec;
  schema: z.ZodType<T>;
  attempts: number;
  nudge: string;
  again: string;
  accept: (data: T) => Promise<Accepted<R>>;
  onMessage?: (m: ChatMessage, usage?: Usage) => Promise<void>;
}): Promise<{ value: R } | { problem: string }> {
  const add = async (m: ChatMessage, usage?: Usage) => {
    o.messages.push(m);
    await o.onMessage?.(m, usage);
  };
  let problem = `no ${o.tool.name} call`;
  for (let i = 0; i < o.attempts; i++) {
    const r = await o.chat(o.messages);
    await add({ role: 'assistant', content: r.text, ...(r.toolCalls.length ? { toolCalls: r.toolCalls } : {}) }, r.usage);
    const call = r.toolCalls.find((c) => c.name === o.tool.name);
    if (!call) {
      problem = `no ${o.tool.name} call`;
      await add({ role: 'user', content: o.nudge });
      continue;
    }
    const parsed = parseToolCall(call, o.schema);
    const verdict: Accepted<R> = parsed.ok ? await o.accept(parsed.data) : { problem: parsed.problem, reply: `invalid: ${parsed.problem}. ${o.again}` };
    if ('value' in verdict) return verdict;
    problem = verdict.problem;
    await add({ role: 'tool', toolCallId: call.id, name: call.name, content: verdict.reply, isError: true });
  }
  return { problem };
}
