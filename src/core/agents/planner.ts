// The planner: reads the champion with read-only tools (diagnosis without pasting whole logs), then
// submits a plan that is validated (zod) and written as HYPOTHESIS.md with a task list for the coder.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { toolSummary } from './events';
import type { ChatMessage, LlmClient, ToolSpec } from '../llm/types';
import type { AgentLoopEvent } from './coder';
import { Sandbox } from './sandbox';
import { runTool, toolSpecs, type ToolHost } from './tools';
import { Transcript } from '../llm/transcript';

export const Plan = z
  .object({
    title: z.string().min(5).max(120),
    change: z.string().min(20).describe('what to change, concretely (files, functions)'),
    rationale: z.string().min(20).describe('the mechanism: why it should help'),
    expected_effect: z.object({ sat: z.string().min(3), unsat: z.string().min(3), par2: z.string().min(3) }).strict(),
    risks: z.string().min(5),
    tasks: z.array(z.string().min(5)).min(1).max(12).describe('ordered steps for the coder'),
  })
  .strict();
export type Plan = z.infer<typeof Plan>;

export interface PlannerContext {
  rules: string;
  codeMap: string;
  metrics: string;
  failures: string;
  notes: string;
  directive: string;
}

export interface PlannerRequest {
  client: LlmClient;
  /** The champion's directory (read-only to the planner). */
  championDir: string;
  /**
   * What the planner may read (default: the champion). Given the workspace, it can also open failed
   * candidates' RESULTS.md and the evaluations in .satlution/evals/ — diagnosis by reading, not pasting.
   */
  readRoot?: string;
  candidate: string;
  context: PlannerContext;
  transcriptFile: string;
  maxIterations?: number;
  signal?: AbortSignal;
  /** Streamed text and each tool call with its outcome, as they happen. */
  onEvent?: (e: AgentLoopEvent) => void;
}

const READ_ONLY: readonly string[] = ['list_files', 'read_file', 'search'];

const SYSTEM = `You are the planning agent of SATLUTION, which evolves a SAT solver's whole repository.
Propose ONE change to the champion solver that should improve PAR-2 without ever risking a wrong
answer. Look at the code with the read-only tools first (read only what you need), then call
submit_plan. The coder will implement your tasks in a copy of the champion.`;

export function renderHypothesis(candidate: string, p: Plan): string {
  return `# ${candidate}: ${p.title}

## Change
${p.change}

## Rationale
${p.rationale}

## Expected effect
- SAT: ${p.expected_effect.sat}
- UNSAT: ${p.expected_effect.unsat}
- PAR-2: ${p.expected_effect.par2}

## Risks
${p.risks}

## Tasks
${p.tasks.map((t, i) => `${i + 1}. ${t}`).join('\n')}
`;
}

export async function runPlanner(req: PlannerRequest): Promise<{ plan: Plan; hypothesis: string }> {
  const c = req.context;
  const system = `${SYSTEM}\n\n# Rules\n${c.rules}`;
  const user = [
    `# Directive for this cycle\n${c.directive}`,
    `# The champion's code\n${c.codeMap}`,
    `# Metrics so far\n${c.metrics}`,
    `# Recent failures\n${c.failures}`,
    c.notes ? `# Notes from the person steering\n${c.notes}` : '',
    req.readRoot
      ? `# Reading\nPaths are relative to the workspace: the champion is ${path.relative(req.readRoot, req.championDir)}/; failed candidates keep RESULTS.md and their sources in SATLUTION_<n>/; evaluations (per-instance results, failures) are in .satlution/evals/SATLUTION_<n>.json. Search and read what you need rather than everything.`
      : '',
  ].filter(Boolean).join('\n\n');
  const submit: ToolSpec = { name: 'submit_plan', description: 'Submit the plan (it becomes HYPOTHESIS.md and the coder\'s task list).', parameters: stripSchema(z.toJSONSchema(Plan, { io: 'input' }) as Record<string, unknown>) };
  const tools = [...toolSpecs().filter((t) => READ_ONLY.includes(t.name)), submit];
  const host: ToolHost = {
    sandbox: new Sandbox(req.readRoot ?? req.championDir, ['**']), // everything is read-only to the planner
    build: async () => ({ ok: false, text: 'not available to the planner' }),
    smoke: async () => ({ ok: false, text: 'not available to the planner' }),
  };
  const transcript = new Transcript(req.transcriptFile);
  await transcript.add({ type: 'system', content: system, candidate: req.candidate });
  const messages: ChatMessage[] = [{ role: 'user', content: user }];
  await transcript.add({ type: 'message', message: messages[0]! });
  const max = req.maxIterations ?? 12;
  for (let i = 0; i < max; i++) {
    req.signal?.throwIfAborted();
    const res = await req.client.chat({ system, messages, tools, ...(req.signal ? { signal: req.signal } : {}), onText: (delta) => req.onEvent?.({ type: 'text', delta }) });
    const assistant: ChatMessage = { role: 'assistant', content: res.text, ...(res.toolCalls.length ? { toolCalls: res.toolCalls } : {}) };
    messages.push(assistant);
    await transcript.add({ type: 'message', message: assistant, usage: res.usage });
    if (!res.toolCalls.length) {
      const nudge: ChatMessage = { role: 'user', content: 'Call submit_plan with the plan.' };
      messages.push(nudge);
      await transcript.add({ type: 'message', message: nudge });
      continue;
    }
    for (const call of res.toolCalls) {
      let content: string;
      let isError = false;
      if (call.name === 'submit_plan') {
        let json: unknown;
        try {
          json = JSON.parse(call.arguments);
        } catch (e) {
          json = undefined;
          content = `the plan is not valid JSON (${(e as Error).message})`;
          isError = true;
        }
        const p = json === undefined ? undefined : Plan.safeParse(json);
        if (p?.success) {
          const hypothesis = renderHypothesis(req.candidate, p.data);
          messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: 'plan accepted' });
          await transcript.add({ type: 'message', message: messages[messages.length - 1]! });
          await transcript.add({ type: 'end', reason: 'plan accepted' });
          req.onEvent?.({ type: 'tool', name: call.name, ok: true, summary: `plan accepted: ${p.data.title}` });
          return { plan: p.data, hypothesis };
        }
        if (p) {
          content = `the plan is incomplete: ${p.error.issues.map((x) => `${x.path.join('.') || '(plan)'}: ${x.message}`).join('; ')}`;
          isError = true;
        }
      } else if (READ_ONLY.includes(call.name)) {
        const out = await runTool(call.name, call.arguments, host);
        content = out.content;
        isError = out.isError;
      } else {
        content = `the planner cannot use ${call.name}; it can read (list_files, read_file, search) and submit_plan`;
        isError = true;
      }
      const result: ChatMessage = { role: 'tool', toolCallId: call.id, name: call.name, content: content!, ...(isError ? { isError: true } : {}) };
      messages.push(result);
      await transcript.add({ type: 'message', message: result });
      req.onEvent?.({ type: 'tool', name: call.name, ok: !isError, summary: toolSummary(content!) });
    }
  }
  await transcript.add({ type: 'end', reason: 'no plan' });
  throw new Error(`the planner submitted no valid plan in ${max} turns (transcript: ${req.transcriptFile})`);
}

/** Writes the plan into the candidate's HYPOTHESIS.md. */
export async function writeHypothesis(candidateDir: string, hypothesis: string): Promise<void> {
  await fs.writeFile(path.join(candidateDir, 'HYPOTHESIS.md'), hypothesis);
}

function stripSchema(s: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _drop, ...rest } = s;
  return rest;
}
