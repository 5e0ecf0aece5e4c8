// Rule evolution: a failure that repeats across candidates becomes a proposed rule patch (a diff a
// person reads and approves); applying one bumps the rule's version and snapshots the whole rule set
// in .rules/.history/vN/ with a line saying what changed and why. Deterministic: no LLM is needed.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { hasCandidateDoc } from '../workspace/candidateFs';
import { createTwoFilesPatch } from 'diff';
import { z } from 'zod';
import { appendJsonLine, readJsonLines, writeFileAtomic, writeJsonAtomic } from '../store/atomic';
import { CandidateStore } from '../store/candidates';
import { parseCandidateDir, RULES_DIR, STATE_DIR } from '../layout';
import { loadRules } from './loadRules';
import { clusters, EvalForPostmortem, SignatureLog, signaturesOf, type Cluster, type Signature, type SignatureKind } from './postmortem';

export const RulePatch = z.object({
  id: z.string(),
  key: z.string(),
  kind: z.string(),
  rule_id: z.string(),
  file: z.string(),
  rationale: z.string(),
  before: z.string(),
  after: z.string(),
  diff: z.string(),
  created_at: z.string(),
  status: z.enum(['pending', 'applied', 'rejected']),
  decided_at: z.string().optional(),
  version: z.number().optional(),
});
export type RulePatch = z.infer<typeof RulePatch>;

const pendingDir = (ws: string) => path.join(ws, RULES_DIR, '.pending');
const historyDir = (ws: string) => path.join(ws, RULES_DIR, '.history');

/** Which rule a repeated failure of each kind strengthens, and how. */
const TARGET: Record<SignatureKind, { rule: string; heading: (c: Cluster) => string; advice: string }> = {
  rule: { rule: '', heading: (c) => `Repeated violation: ${c.key.slice(5)}`, advice: 'Check this rule yourself before handing a candidate over; it stopped earlier candidates before any benchmark ran.' },
  build: { rule: 'R01-pre-evaluation', heading: (c) => `Known build failure: ${c.key.slice(6)}`, advice: 'Build with `bash starexec_build` and read every compiler error before handing the candidate over.' },
  link: { rule: 'R01-pre-evaluation', heading: (c) => `Known link failure: ${c.key.slice(5)}`, advice: 'Every new function must be defined in a file that the build compiles and links; run the full build, not one file.' },
  crash: { rule: 'R04-forbidden-patterns', heading: (c) => `FORBIDDEN: changes that crash the solver (${c.key.slice(6)})`, advice: 'Run the smoke set under the limits before handing over; check array bounds and the invariants of the data structures you changed.' },
  wrong: { rule: 'R04-forbidden-patterns', heading: (c) => `FORBIDDEN: unsound shortcuts (${c.key.slice(6)} answers that were false)`, advice: 'Never answer from a heuristic, a prediction or an incomplete search; an answer must be established by the search itself.' },
  invalid_model: { rule: 'R04-forbidden-patterns', heading: () => 'FORBIDDEN: models that are not reconstructed', advice: 'Variables removed by simplification must get values when the model is printed (extend the model through the reconstruction stack).' },
  invalid_proof: { rule: 'R04-forbidden-patterns', heading: () => 'FORBIDDEN: proof output that drat-trim rejects', advice: 'Every clause the solver adds must be written to the proof before it is used, and deletions only after; simplifications must emit their derivations.' },
  missing_proof: { rule: 'R04-forbidden-patterns', heading: () => 'FORBIDDEN: UNSAT answers without a proof', advice: 'Proof output must stay enabled on every path that can conclude UNSAT, including preprocessing and early exits.' },
  smoke_timeout: { rule: 'R01-pre-evaluation', heading: () => 'Known failure: hangs on trivial formulas', advice: 'Before handing over, run every smoke formula with a 10 s limit; a hang there is a bug (an endless loop or a lost termination check), not slowness.' },
  docs: { rule: 'R03-mandatory-logging', heading: (c) => `Enforced: ${c.key.slice(5)} in every candidate`, advice: 'Write the document before handing the candidate over; the compliance gate stops candidates without it.' },
};

/** Proposes patches for clusters that repeat (two or more candidates) and have no patch yet. */
export async function proposePatches(ws: string, sigs: Signature[], now = new Date()): Promise<RulePatch[]> {
  const existing = await listPatches(ws);
  const rules = await loadRules(path.join(ws, RULES_DIR));
  const out: RulePatch[] = [];
  for (const c of clusters(sigs)) {
    if (c.candidates.length < 2 || existing.some((p) => p.key === c.key)) continue;
    const t = TARGET[c.kind];
    const ruleId = c.kind === 'rule' ? c.key.slice(5).split('/')[0]! : t.rule;
    const rule = rules.find((r) => r.id === ruleId);
    if (!rule) continue; // the person removed that rule: nothing to strengthen
    const file = path.join(ws, RULES_DIR, rule.file);
    const before = await fs.readFile(file, 'utf8');
    const block = [
      '',
      `## ${t.heading(c)}`,
      '',
      `Seen in ${c.candidates.length} candidates (${c.candidates.join(', ')}). ${t.advice}`,
      '',
      'Examples:',
      '',
      ...c.examples.slice(0, 3).map((e) => `    ${e.replace(/\n/g, ' ').slice(0, 300)}`),
      '',
    ].join('\n');
    const after = bumpVersion(before).trimEnd() + '\n' + block;
    const id = `P-${now.toISOString().replace(/[-:T]/g, '').slice(0, 14)}-${createHash('sha256').update(c.key).digest('hex').slice(0, 6)}`;
    const patch: RulePatch = {
      id,
      key: c.key,
      kind: c.kind,
      rule_id: ruleId,
      file: rule.file,
      rationale: `${c.kind} failure "${c.key}" repeated in ${c.candidates.length} candidates: ${c.candidates.join(', ')}`,
      before,
      after,
      diff: createTwoFilesPatch(`a/${rule.file}`, `b/${rule.file}`, before, after, '', ''),
      created_at: now.toISOString(),
      status: 'pending',
    };
    await writeJsonAtomic(path.join(pendingDir(ws), `${id}.json`), patch);
    out.push(patch);
  }
  return out;
}

function bumpVersion(text: string): string {
  return text.replace(/^(---[\s\S]*?\nversion:\s*)(\d+)/, (_m, head: string, v: string) => `${head}${Number(v) + 1}`);
}

export async function listPatches(ws: string): Promise<RulePatch[]> {
  const dir = pendingDir(ws);
  const out: RulePatch[] = [];
  for (const f of (await fs.readdir(dir).catch(() => [] as string[])).filter((x) => x.endsWith('.json')).sort()) {
    const p = RulePatch.safeParse(JSON.parse(await fs.readFile(path.join(dir, f), 'utf8').catch(() => 'null')));
    if (p.success) out.push(p.data);
  }
  return out;
}

async function getPatch(ws: string, id: string): Promise<RulePatch> {
  const p = (await listPatches(ws)).find((x) => x.id === id);
  if (!p) throw new Error(`no rule patch ${id} (satlution rules pending lists them)`);
  if (p.status !== 'pending') throw new Error(`rule patch ${id} was already ${p.status}`);
  return p;
}

export const HistoryEntry = z.object({ version: z.number(), at: z.string(), patch: z.string().nullable(), rule: z.string().nullable(), why: z.string() });
export type HistoryEntry = z.infer<typeof HistoryEntry>;

export async function history(ws: string): Promise<HistoryEntry[]> {
  const { records } = await readJsonLines(path.join(historyDir(ws), 'log.jsonl'));
  return records.flatMap((r) => {
    const e = HistoryEntry.safeParse(r);
    return e.success ? [e.data] : [];
  });
}

async function snapshot(ws: string, entry: Omit<HistoryEntry, 'version'>): Promise<number> {
  const version = ((await history(ws)).at(-1)?.version ?? 0) + 1;
  const dest = path.join(historyDir(ws), `v${version}`);
  await fs.mkdir(dest, { recursive: true });
  const src = path.join(ws, RULES_DIR);
  for (const f of (await fs.readdir(src)).filter((x) => x.endsWith('.md'))) await fs.copyFile(path.join(src, f), path.join(dest, f));
  await appendJsonLine(path.join(historyDir(ws), 'log.jsonl'), { version, ...entry });
  return version;
}

/** Applies a pending patch: the rule file must still be as the patch saw it. Returns the new set version. */
export async function applyPatch(ws: string, id: string, now = new Date()): Promise<number> {
  const p = await getPatch(ws, id);
  const file = path.join(ws, RULES_DIR, p.file);
  const current = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (current !== p.before) throw new Error(`${p.file} changed since patch ${id} was proposed; reject it, and the next post-mortem proposes a fresh one`);
  if ((await history(ws)).length === 0) await snapshot(ws, { at: now.toISOString(), patch: null, rule: null, why: 'the rule set before the first evolved patch' });
  await writeFileAtomic(file, p.after);
  const version = await snapshot(ws, { at: now.toISOString(), patch: id, rule: p.rule_id, why: p.rationale });
  await writeJsonAtomic(path.join(pendingDir(ws), `${id}.json`), { ...p, status: 'applied', decided_at: now.toISOString(), version });
  return version;
}

export async function rejectPatch(ws: string, id: string, now = new Date()): Promise<void> {
  const p = await getPatch(ws, id);
  await writeJsonAtomic(path.join(pendingDir(ws), `${id}.json`), { ...p, status: 'rejected', decided_at: now.toISOString() });
}

// --- Effectiveness: how often each rule fired, stopped a candidate, and was followed by a fix ---

const ComplianceEvent = z.object({ at: z.string(), candidate: z.string(), fired: z.record(z.string(), z.number()), stopped: z.boolean() });
export type ComplianceEvent = z.infer<typeof ComplianceEvent>;
const eventsFile = (ws: string) => path.join(ws, STATE_DIR, 'postmortem', 'compliance.jsonl');

export async function recordCompliance(ws: string, e: ComplianceEvent): Promise<void> {
  await appendJsonLine(eventsFile(ws), e);
}

export interface RuleStats {
  rule: string;
  fired: number;
  prevented: number;
  fixed: number;
}

export async function ruleStats(ws: string): Promise<RuleStats[]> {
  const events = (await readJsonLines(eventsFile(ws))).records.flatMap((r) => {
    const e = ComplianceEvent.safeParse(r);
    return e.success ? [e.data] : [];
  });
  const stats = new Map<string, RuleStats>();
  const get = (rule: string) => stats.get(rule) ?? stats.set(rule, { rule, fired: 0, prevented: 0, fixed: 0 }).get(rule)!;
  events.forEach((e, i) => {
    for (const [rule, n] of Object.entries(e.fired)) {
      const s = get(rule);
      s.fired += n;
      if (e.stopped) {
        s.prevented++;
        // Fixed: a later check of the same candidate in which this rule no longer fires.
        if (events.slice(i + 1).some((l) => l.candidate === e.candidate && !l.fired[rule])) s.fixed++;
      }
    }
  });
  return [...stats.values()].sort((a, b) => b.fired - a.fired);
}

/**
 * The post-mortem of one evaluation of a workspace candidate: records its failure signatures and its
 * compliance, and proposes patches for failures that now repeat. Returns the new patches.
 */
export async function postmortem(ws: string, candidate: string, evaluation: unknown, now = new Date()): Promise<RulePatch[]> {
  const parsed = EvalForPostmortem.safeParse(evaluation);
  if (!parsed.success) return [];
  const docsMissing: string[] = [];
  // Seeds are imported, not written by agents: their documents are not the agents' duty.
  const id = parseCandidateDir(candidate);
  const record = id === undefined ? undefined : (await new CandidateStore(ws).load()).index.candidates.find((c) => c.id === id);
  if (record && record.parent !== null)
    for (const d of ['HYPOTHESIS.md', 'CHANGELOG.md'])
      if (!(await hasCandidateDoc(path.join(ws, candidate), d))) docsMissing.push(d);
  const log = new SignatureLog(ws);
  await log.record(signaturesOf(candidate, parsed.data, docsMissing, now));
  const comply = parsed.data.gates.find((g) => g.gate === 'comply');
  if (comply?.compliance) {
    const fired: Record<string, number> = {};
    for (const v of comply.compliance.violations) if (v.severity === 'error') fired[v.rule] = (fired[v.rule] ?? 0) + 1;
    await recordCompliance(ws, { at: now.toISOString(), candidate, fired, stopped: !comply.ok });
  }
  return proposePatches(ws, await log.all(), now);
}
