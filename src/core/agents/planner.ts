// The planner: reads the champion and the other candidates with read-only tools (diagnosis without
// pasting whole logs; never the benchmark sets or the stored results, which hold the answers), then
// submits a plan that is validated (zod, with length caps) and written as HYPOTHESIS.md with a task
// list for the coder.
import * as path from 'node:path';
import { z } from 'zod';
import { toolSummary } from './agentEvents';
import { parseToolCall } from '../llm/toolCall';
import type { ChatMessage, LlmClient, ToolSpec } from '../llm/provider';
import type { AgentLoopEvent } from './coder';
import { withoutAnswers } from './context';
import { Sandbox } from './sandbox';
import { argumentLimit, keptCall, runTool, toolSpecs, type ToolHost } from './coderTools';
import { Transcript } from '../llm/transcript';
import { writeCandidateDoc } from '../workspace/candidateFs';

/** The longest a plan's prose parts may be, in characters: the plan goes with every coder request. */
const LONG = 3000;
/** The longest an expected effect, or one task, may be. */
const SHORT = 400;

/** A plan, at most some 17,000 characters in all (3 x 3,000, 3 x 400, 12 tasks of 400 and a title). */
export const Plan = z
  .object({
    title: z.string().min(5).max(120),
    change: z.string().min(20).max(LONG).describe('what to change, concretely (files, functions)'),
    rationale: z.string().min(20).max(LONG).describe('the mechanism: why it should help'),
    expected_effect: z.object({ sat: z.string().min(3).max(SHORT), unsat: z.string().min(3).max(SHORT), par2: z.string().min(3).max(SHORT) }).strict(),
    risks: z.string().min(5).max(LONG),
    tasks: z.array(z.string().min(5).max(SHORT)).min(1).max(12).describe('ordered steps for the coder'),
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
   * The workspace, when the planner may read all of its candidate directories (read-only), failed ones
   * too: their sources and RESULTS.md — diagnosis by reading, not pasting. Nothing else of it: not the
   * benchmark sets with their answers, not the stored evaluations. Without it, only the champion.
   */
  workspace?: string;
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
    req.workspace
      ? `# Reading\nPaths start at the workspace's candidate directories: the champion is ${path.basename(req.championDir)}/; the other candidates, failed ones too, are SATLUTION_<n>/ with their sources, HYPOTHESIS.md (the plan), CHANGELOG.md (what was done) and RESULTS.md (gates, failures, metrics). The benchmark sets, their expected answers and the stored evaluations are not readable: the metrics and failures above are what they say. Search and read what you need rather than everything.`
      : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  const submit: ToolSpec = {
    name: 'submit_plan',
    description: "Submit the plan (it becomes HYPOTHESIS.md and the coder's task list).",
    parameters: stripSchema(z.toJSONSchema(Plan, { io: 'input' }) as Record<string, unknown>),
  };
  const tools = [...toolSpecs().filter((t) => READ_ONLY.includes(t.name)), submit];
  const host: ToolHost = {
    // Everything is read-only to the planner.
    sandbox: req.workspace ? Sandbox.workspaceView(req.workspace) : new Sandbox(req.championDir, ['**']),
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
    const res = await req.client.chat({
      system,
      messages,
      tools,
      ...(req.signal ? { signal: req.signal } : {}),
      onText: (delta) => req.onEvent?.({ type: 'text', delta }),
    });
    // An oversized call is refused, and kept in the conversation as a note only.
    const assistant: ChatMessage = { role: 'assistant', content: res.text, ...(res.toolCalls.length ? { toolCalls: res.toolCalls.map(keptCall) } : {}) };
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
      let isError: boolean;
      if (call.name === 'submit_plan') {
        const p = call.arguments.length > argumentLimit(call.name) ? undefined : parseToolCall(call, Plan, '(plan)');
        if (p?.ok) {
          const hypothesis = renderHypothesis(req.candidate, p.data);
          messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: 'plan accepted' });
          await transcript.add({ type: 'message', message: messages[messages.length - 1]! });
          await transcript.add({ type: 'end', reason: 'plan accepted' });
          req.onEvent?.({ type: 'tool', name: call.name, ok: true, summary: `plan accepted: ${p.data.title}` });
          return { plan: p.data, hypothesis };
        }
        isError = true;
        if (!p)
          content = `the plan is ${call.arguments.length} characters; a plan is at most some 17,000 (change, rationale and risks ${LONG} each, each task and expected effect ${SHORT}): keep it to the point`;
        else if (!p.issues) content = `the plan is ${p.problem}`;
        else {
          const issue = (x: z.core.$ZodIssue) => `${x.path.join('.') || '(plan)'}: ${x.message}`;
          const long = p.issues.filter((x) => x.code === 'too_big');
          const other = p.issues.filter((x) => x.code !== 'too_big');
          content = [
            other.length ? `the plan is incomplete: ${other.map(issue).join('; ')}` : '',
            long.length ? `the plan is too long: ${long.map(issue).join('; ')}; keep it to the point` : '',
          ]
            .filter(Boolean)
            .join('; ');
        }
      } else if (READ_ONLY.includes(call.name)) {
        const out = await runTool(call.name, call.arguments, host, req.signal);
        // A failed candidate's RESULTS.md names the answers it got wrong: said as "wrong", not as the answer.
        content = withoutAnswers(out.content);
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

/** Writes the plan into the candidate's HYPOTHESIS.md (replacing whatever stands there, never through a link). */
export async function writeHypothesis(candidateDir: string, hypothesis: string): Promise<void> {
  await writeCandidateDoc(candidateDir, 'HYPOTHESIS.md', hypothesis);
}

function stripSchema(s: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _drop, ...rest } = s;
  return rest;
}
