// The objective agent: a model reads the portfolio, how much its objectives agree, and a sample of
// the results table, and writes one new objective function (a pure JS function over the table). It
// is run in the sandbox on every scored candidate before it joins; one that fails is sent back with
// the error, and after three failures nothing is added.
import { z } from 'zod';
import type { ChatMessage, LlmClient, ToolSpec } from '../llm/types';
import { addObjective, type ObjectiveEntry, ObjectiveName, objectiveInputs, readPortfolio, scorePortfolio, workspaceIsolation } from './portfolio';
import { runObjectives } from './sandbox';

export const ProposedObjective = z
  .object({
    name: ObjectiveName,
    rationale: z.string().min(10).max(2000).describe('which facet of solver quality it measures that the portfolio misses'),
    code: z.string().min(10).max(8000).describe('a JavaScript arrow function (d) => number, lower is better; d = { candidate, timeout_s, instances: [{instance, family, expected, answer, status, time_s, mem_mb}], baseline: [same, for the seed] }; pure: no I/O, no randomness'),
  })
  .strict();

const TOOL: ToolSpec = { name: 'submit_objective', description: 'Add one objective function to the portfolio (call once).', parameters: z.toJSONSchema(ProposedObjective) as Record<string, unknown> };

const SYSTEM = `You maintain the objective portfolio of SATLUTION, which evolves SAT solvers. Objectives are pure
functions over a candidate's per-instance results (lower is better); their consensus ranks candidates.
Correctness is a gate, never an objective: do not score wrong answers. Propose ONE objective that
measures a facet the portfolio misses (objectives that agree with all others add nothing), robust to
missing data, then call submit_objective.`;

export async function proposeObjective(ws: string, client: LlmClient, o: { attempts?: number; signal?: AbortSignal } = {}): Promise<ObjectiveEntry> {
  const view = await scorePortfolio(ws);
  const { inputs } = await objectiveInputs(ws);
  if (!inputs.length) throw new Error('no candidate has passed the full perf set yet: objectives need results to work on');
  const existing = await readPortfolio(ws);
  const sample = inputs.slice(0, 2).map((i) => ({ ...i, instances: i.instances.slice(0, 8), baseline: i.baseline.slice(0, 8) }));
  const messages: ChatMessage[] = [
    {
      role: 'user',
      content: `# The portfolio (weight, mean Kendall tau with the others)\n${view.objectives.map((x) => `- ${x.name} (${x.author}, weight ${x.weight.toFixed(2)}, tau ${x.tau === null ? 'n/a' : x.tau.toFixed(2)}): ${x.rationale}\n  ${existing.find((e) => e.entry.name === x.name)?.code ?? ''}`).join('\n') || '(empty)'}\n\n# A sample of the input (${inputs.length} candidates are scored)\n${JSON.stringify(sample).slice(0, 12000)}`,
    },
  ];
  const attempts = o.attempts ?? 3;
  let problem = '';
  for (let i = 0; i < attempts; i++) {
    const r = await client.chat({ system: SYSTEM, messages, tools: [TOOL], maxOutputTokens: 3000, ...(o.signal ? { signal: o.signal } : {}) });
    messages.push({ role: 'assistant', content: r.text, ...(r.toolCalls.length ? { toolCalls: r.toolCalls } : {}) });
    const call = r.toolCalls.find((c) => c.name === TOOL.name);
    if (!call) {
      problem = 'no submit_objective call';
      messages.push({ role: 'user', content: 'Call submit_objective with name, rationale and code.' });
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(call.arguments);
    } catch {
      json = undefined;
    }
    const p = ProposedObjective.safeParse(json);
    const reply = (content: string) => messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content, isError: true });
    if (!p.success) {
      problem = p.error.issues.map((x) => `${x.path.join('.') || 'arguments'}: ${x.message}`).join('; ');
      reply(`invalid: ${problem}`);
      continue;
    }
    if (existing.some((e) => e.entry.name === p.data.name)) {
      problem = `an objective named ${p.data.name} exists`;
      reply(`invalid: ${problem}; choose another name`);
      continue;
    }
    // It must run: a number for every scored candidate, in the sandbox.
    const [run] = await runObjectives([p.data.code], inputs, { isolation: await workspaceIsolation(ws) });
    const bad = run!.scores.filter((x) => x === null).length;
    if (bad) {
      problem = `it gave no number for ${bad} of ${inputs.length} candidates${run!.error ? ` (${run!.error})` : ''}`;
      reply(`rejected: ${problem}. Fix the code and call submit_objective again.`);
      continue;
    }
    return addObjective(ws, { name: p.data.name, code: p.data.code, rationale: p.data.rationale, author: 'model' });
  }
  throw new Error(`the model proposed no working objective in ${attempts} attempts (${problem})`);
}
