// The objective agent: a model reads the portfolio, how much its objectives agree, and a sample of
// the results table, and writes one new objective function (a pure JS function over the table). It
// is run in the sandbox on every scored candidate before it joins; one that fails is sent back with
// the error, and after three failures nothing is added.
import { z } from 'zod';
import { untilValidCall, type Accepted } from '../llm/toolCall';
import type { ChatMessage, LlmClient, ToolSpec } from '../llm/provider';
import { addObjective, type ObjectiveEntry, ObjectiveName, objectiveInputs, readPortfolio, scorePortfolio, workspaceIsolation } from './portfolio';
import { runObjectives } from './objectiveRunner';

export const ProposedObjective = z
  .object({
    name: ObjectiveName,
    rationale: z.string().min(10).max(2000).describe('which facet of solver quality it measures that the portfolio misses'),
    code: z
      .string()
      .min(10)
      .max(8000)
      .describe(
        'a JavaScript arrow function (d) => number, lower is better; d = { candidate, timeout_s, instances: [{instance, family, expected, answer, status, time_s, mem_mb}], baseline: [same, for the seed] }; pure: no I/O, no randomness',
      ),
  })
  .strict();

const TOOL: ToolSpec = {
  name: 'submit_objective',
  description: 'Add one objective function to the portfolio (call once).',
  parameters: z.toJSONSchema(ProposedObjective) as Record<string, unknown>,
};

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
  const out = await untilValidCall({
    chat: (m) => client.chat({ system: SYSTEM, messages: m, tools: [TOOL], maxOutputTokens: 3000, ...(o.signal ? { signal: o.signal } : {}) }),
    messages,
    tool: TOOL,
    schema: ProposedObjective,
    attempts,
    nudge: 'Call submit_objective with name, rationale and code.',
    again: 'Call submit_objective again with valid arguments.',
    accept: async (p): Promise<Accepted<ObjectiveEntry>> => {
      if (existing.some((e) => e.entry.name === p.name))
        return { problem: `an objective named ${p.name} exists`, reply: `invalid: an objective named ${p.name} exists; choose another name` };
      // It must run: a number for every scored candidate, in the sandbox.
      const [run] = await runObjectives([p.code], inputs, { isolation: await workspaceIsolation(ws) });
      const bad = run!.scores.filter((x) => x === null).length;
      if (bad) {
        const problem = `it gave no number for ${bad} of ${inputs.length} candidates${run!.error ? ` (${run!.error})` : ''}`;
        return { problem, reply: `rejected: ${problem}. Fix the code and call submit_objective again.` };
      }
      return { value: await addObjective(ws, { name: p.name, code: p.code, rationale: p.rationale, author: 'model' }) };
    },
  });
  if ('value' in out) return out.value;
  const problem = out.problem;
  throw new Error(`the model proposed no working objective in ${attempts} attempts (${problem})`);
}
