// Trajectory export: every agent session (planner, coder, judge) with what came of it — the
// candidate's gate outcome and a reward — as JSONL in the chat format open-model fine-tuning tools
// read ({"messages": [...]} with tool calls). We export; training (e.g. ThetaEvolve's test-time RL)
// needs open weights and GPUs and happens elsewhere.
//
// Reward, in [-0.4, 1]: ThetaEvolve's graded early-check penalties for failures (no patch -0.4,
// invalid change -0.3, build failure or crash -0.2, wrong answer or bad proof -0.1), and for a correct
// candidate a sigmoid of its PAR-2 gain over the parent, 1 / (1 + exp(-gain% / 5)): 0.5 at no change.
// null where nothing was measured (a rejected plan, a proposal the judge screened out).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { parseTranscriptName, TRANSCRIPTS_DIR, type TranscriptEntry } from '../llm/transcript';
import { EvalStore } from '../eval/evalStore';
import { readJsonLines } from '../store/atomic';
import { CandidateStore, type CandidateRecord } from '../store/candidates';
import { parseCandidateDir } from '../layout';

export const TrajectoryMessage = z.union([
  z.object({ role: z.enum(['system', 'user']), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string(),
    tool_calls: z.array(z.object({ id: z.string(), type: z.literal('function'), function: z.object({ name: z.string(), arguments: z.string() }) })).optional(),
  }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), name: z.string(), content: z.string() }),
]);

export const TrajectoryRecord = z.object({
  messages: z.array(TrajectoryMessage),
  metadata: z.object({
    cycle: z.number().int().positive(),
    role: z.string(),
    candidate: z.string().nullable(),
    /** The candidate's last status and, when it was evaluated, the verdict and first failed gate. */
    status: z.string().nullable(),
    verdict: z.enum(['pass', 'fail']).nullable(),
    failed_gate: z.string().nullable(),
    gain_pct: z.number().nullable(),
    reward: z.number().min(-0.4).max(1).nullable(),
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
  }),
});
export type TrajectoryRecord = z.infer<typeof TrajectoryRecord>;

interface EvalSummary {
  verdict: 'pass' | 'fail';
  failedGate: string | null;
  par2: number | null;
  timeoutS: number | null;
}

const PENALTY: Record<string, number> = { comply: -0.3, build: -0.2, smoke: -0.2, verify: -0.1, perf: -0.1 };

export function rewardOf(status: string | null, detail: string | null, e: EvalSummary | undefined, gainPct: number | null): number | null {
  if (e?.verdict === 'fail') return PENALTY[e.failedGate ?? ''] ?? -0.2;
  if (e?.verdict === 'pass') return gainPct === null ? null : 1 / (1 + Math.exp(-gainPct / 5));
  if (status === 'failed' && /coding did not finish/.test(detail ?? '')) return -0.4;
  return null;
}

async function readEval(ws: string, dir: string): Promise<EvalSummary | undefined> {
  const j = await new EvalStore(ws).get(dir);
  return j && { verdict: j.verdict, failedGate: j.gates.find((g) => !g.ok)?.gate ?? null, par2: j.metrics?.par2 ?? null, timeoutS: j.timeout_s };
}

/** Splits a transcript into sessions (each starts with its system event). */
function sessions(entries: TranscriptEntry[]): TranscriptEntry[][] {
  const out: TranscriptEntry[][] = [];
  for (const e of entries) {
    if (e.type === 'system' || !out.length) out.push([]);
    out[out.length - 1]!.push(e);
  }
  return out;
}

function toMessages(session: TranscriptEntry[]): { messages: TrajectoryRecord['messages']; input: number; output: number } {
  const messages: TrajectoryRecord['messages'] = [];
  let input = 0;
  let output = 0;
  for (const e of session) {
    if (e.type === 'system') messages.push({ role: 'system', content: e.content });
    else if (e.type === 'message') {
      const m = e.message;
      input += e.usage?.input ?? 0;
      output += e.usage?.output ?? 0;
      if (m.role === 'user') messages.push({ role: 'user', content: m.content });
      else if (m.role === 'assistant')
        messages.push({
          role: 'assistant',
          content: m.content,
          ...(m.toolCalls?.length
            ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
            : {}),
        });
      else messages.push({ role: 'tool', tool_call_id: m.toolCallId, name: m.name, content: m.content });
    }
  }
  return { messages, input, output };
}

/** Every session of every transcript, oldest cycle first. */
export async function exportTrajectories(ws: string): Promise<TrajectoryRecord[]> {
  const dir = path.join(ws, TRANSCRIPTS_DIR);
  const names = (await fs.readdir(dir).catch(() => [] as string[])).flatMap((n) => {
    const t = parseTranscriptName(n);
    return t ? [{ name: n, ...t }] : [];
  });
  names.sort((a, b) => a.cycle - b.cycle || a.role.localeCompare(b.role));
  const { index } = await new CandidateStore(ws).load();
  const byDir = new Map<string, CandidateRecord>(index.candidates.map((c) => [c.dir, c]));
  const evals = new Map<string, EvalSummary | undefined>();
  const evalOf = async (d: string) => {
    if (!evals.has(d)) evals.set(d, await readEval(ws, d));
    return evals.get(d);
  };
  const out: TrajectoryRecord[] = [];
  for (const t of names) {
    const { records } = await readJsonLines(path.join(dir, t.name));
    for (const session of sessions(records as TranscriptEntry[])) {
      const sys = session[0]?.type === 'system' ? session[0] : undefined;
      const candidate = sys?.candidate && parseCandidateDir(sys.candidate) !== undefined ? sys.candidate : null;
      const rec = candidate ? byDir.get(candidate) : undefined;
      const e = candidate ? await evalOf(candidate) : undefined;
      const parent = rec?.parent !== null && rec?.parent !== undefined ? index.candidates.find((c) => c.id === rec.parent) : undefined;
      const pe = parent ? await evalOf(parent.dir) : undefined;
      const gainPct = e?.verdict === 'pass' && pe?.par2 && e.par2 !== null && e.timeoutS === pe.timeoutS ? (100 * (pe.par2 - e.par2)) / pe.par2 : null;
      const { messages, input, output } = toMessages(session);
      if (!messages.length) continue;
      out.push({
        messages,
        metadata: {
          cycle: t.cycle,
          role: t.role,
          candidate,
          status: rec?.status ?? null,
          verdict: e?.verdict ?? null,
          failed_gate: e?.failedGate ?? null,
          gain_pct: gainPct,
          reward: rewardOf(rec?.status ?? null, rec?.detail ?? null, e, gainPct),
          input_tokens: input,
          output_tokens: output,
        },
      });
    }
  }
  return out;
}
