// A search strategy on the cycle engine: how many proposals a cycle makes, which of them are
// evaluated, and which evaluated candidate (if any) becomes the champion. The engine does the rest —
// plans, approvals, coding, gates, records — the same way for every strategy.
//   champion-challenger: one proposal, evaluated, promoted if significantly faster (the paper's loop)
//   sift: m proposals, a judge scores each diff, the top k are evaluated, the best winner is promoted
import * as path from 'node:path';
import type { Config } from '../config/schema';
import type { Comparison } from '../eval/compare';
import type { EvalJson } from '../eval/plan';
import { candidateDirName } from '../layout';
import { unifiedDiff } from '../workspace/candidateDiff';
import { DEFAULT_RUBRIC, type Judge, type JudgeScore } from './judge';
import { appendJudgeRecord } from './judgeLog';
import { smcConfig, smcParent, smcRecord } from './smc';
import { chooseParent, duplicateOf, islandsConfig, type IslandsConfig, readIslandDb, recordMember } from './islands';

export interface Proposal {
  candidate: number;
  title: string | null;
  /** Coded and built: eligible for selection. */
  coded: boolean;
}

export interface SelectContext {
  ws: string;
  cycle: number;
  parent: number;
  judge?: Judge;
  /** The rules text given to the judge. */
  rules: () => Promise<string>;
  hypothesis: (candidate: number) => Promise<string>;
  signal?: AbortSignal;
  /** For strategies that build a proposal to screen it (duplicate binaries). */
  buildTimeoutS: number;
  say: (message: string) => void;
}

export interface Selection {
  /** Candidate ids to evaluate, best first. */
  evaluate: number[];
  /** The others, each with why it is not evaluated. */
  discarded: { candidate: number; reason: string }[];
}

export interface Evaluated {
  candidate: number;
  json: EvalJson | undefined;
  cmp: Comparison | undefined;
}

export interface Decision {
  /** The candidate to promote, or null: the parent stays champion. */
  winner: number | null;
  outcome: string;
}

export interface ParentChoice {
  parent: number;
  /** The strategy's lane for this cycle (the island), or null. */
  island: number | null;
  /** Why this parent, for the log. */
  how: string;
  /** What to ask of the proposal (a kernel), given to the agent's plan. */
  hint?: string;
}

export interface ProposalOutcome {
  cycle: number;
  island: number | null;
  candidate: number;
  /** The evaluation, when there was one; else why there was none. */
  json?: EvalJson;
  penalty?: 'no patch' | 'no change';
  detail?: string;
}

export interface Strategy {
  readonly name: Config['strategy']['name'];
  /** Proposals (plan + code) per cycle. */
  readonly proposals: number;
  /** Where a cycle starts (default: the champion). */
  parent?(ctx: { ws: string; cycle: number; champion: number; championJson: EvalJson | undefined }): Promise<ParentChoice>;
  select(coded: Proposal[], ctx: SelectContext & { island: number | null }): Promise<Selection>;
  /** Told how each proposal ended (strategies with a database keep it); may return a line for the log. */
  record?(o: ProposalOutcome & { ws: string }): Promise<string | void>;
  /** `reference`: the candidate the evaluated ones were compared with (the champion). */
  accept(evaluated: Evaluated[], reference: number): Decision;
}

export function strategyFor(config: Config): Strategy {
  const marginPct = config.strategy.min_improvement_pct;
  const accept = (evaluated: Evaluated[], parent: number) => greedyAccept(evaluated, parent, marginPct);
  if (config.strategy.name === 'islands') return islandsStrategy(islandsConfig(config), accept);
  if (config.strategy.name === 'smc') {
    const cfg = smcConfig(config);
    return {
      name: 'smc',
      proposals: 1,
      parent: ({ ws, cycle, champion, championJson }) => smcParent(ws, cfg, cycle, champion, championJson),
      select: async (coded) => ({ evaluate: coded.filter((p) => p.coded).map((p) => p.candidate), discarded: [] }),
      record: async (o) => (await smcRecord(o.ws, cfg, o)) ?? undefined,
      accept,
    };
  }
  if (config.strategy.name === 'sift') {
    const k = config.strategy.evaluate_top ?? 1;
    const rubric = config.strategy.judge_rubric ?? DEFAULT_RUBRIC;
    return { name: 'sift', proposals: config.strategy.proposals ?? 4, select: (coded, ctx) => judgeTopK(coded, ctx, k, rubric), accept };
  }
  return {
    name: 'champion-challenger',
    proposals: 1,
    select: async (coded) => ({ evaluate: coded.filter((p) => p.coded).map((p) => p.candidate), discarded: [] }),
    accept,
  };
}

function islandsStrategy(cfg: IslandsConfig, accept: Strategy['accept']): Strategy {
  return {
    name: 'islands',
    proposals: 1,
    parent: ({ ws, cycle, champion, championJson }) => chooseParent(ws, cfg, cycle, champion, championJson),
    async select(coded, ctx) {
      const db = await readIslandDb(ctx.ws, cfg);
      const out: Selection = { evaluate: [], discarded: [] };
      for (const p of coded.filter((x) => x.coded)) {
        const dup = await duplicateOf(ctx.ws, db, p.candidate, { timeoutS: ctx.buildTimeoutS, ...(ctx.signal ? { signal: ctx.signal } : {}) });
        if (!dup) {
          out.evaluate.push(p.candidate);
          continue;
        }
        const reason = `not evaluated: a duplicate of ${candidateDirName(dup.of)} (${dup.how})`;
        ctx.say(`${candidateDirName(p.candidate)}: ${reason}`);
        await recordMember(ctx.ws, { cycle: ctx.cycle, island: ctx.island ?? 0, candidate: p.candidate, penalty: 'no change', detail: reason });
        out.discarded.push({ candidate: p.candidate, reason });
      }
      return out;
    },
    async record(o) {
      // Once per candidate: a resumed step must not count it twice.
      const db = await readIslandDb(o.ws, cfg);
      if (db.byCandidate.has(o.candidate) || (!o.json && !o.penalty)) return;
      await recordMember(o.ws, { cycle: o.cycle, island: o.island ?? 0, candidate: o.candidate, ...(o.json ? { json: o.json } : {}), ...(o.penalty ? { penalty: o.penalty } : {}), ...(o.detail ? { detail: o.detail } : {}) });
    },
    accept,
  };
}

/** SIFT's screen: every coded proposal scored by the judge; the k best go on (ties: the earlier one). */
async function judgeTopK(coded: Proposal[], ctx: SelectContext, k: number, rubric: string): Promise<Selection> {
  if (!ctx.judge) throw new Error('strategy sift needs a judge model: set models.judge (or models.planner) in satlution.yaml');
  const rules = await ctx.rules();
  const scored: { p: Proposal; s: JudgeScore }[] = [];
  for (const p of coded.filter((x) => x.coded)) {
    ctx.signal?.throwIfAborted();
    const dir = candidateDirName(p.candidate);
    const s = await ctx.judge.score(
      { cycle: ctx.cycle, candidate: dir, hypothesis: await ctx.hypothesis(p.candidate), diff: await unifiedDiff(path.join(ctx.ws, candidateDirName(ctx.parent)), path.join(ctx.ws, dir)), rules, rubric },
      ctx.signal,
    );
    ctx.say(`judge: ${dir} scored ${s.score}/10 — ${s.rationale.split('\n')[0]!.slice(0, 160)}`);
    scored.push({ p, s });
  }
  const ranked = [...scored].sort((a, b) => b.s.score - a.s.score || a.p.candidate - b.p.candidate);
  const top = ranked.slice(0, k);
  for (const { p, s } of scored) await appendJudgeRecord(ctx.ws, { type: 'score', cycle: ctx.cycle, candidate: p.candidate, score: s.score, rationale: s.rationale, selected: top.some((t) => t.p === p) });
  return {
    evaluate: top.map((t) => t.p.candidate),
    discarded: ranked.slice(k).map(({ p, s }) => ({ candidate: p.candidate, reason: `not evaluated: the judge scored it ${s.score}/10, below the top ${k} (${top.map((t) => t.s.score).join(', ')})` })),
  };
}

/**
 * The promotion rule of the paper, over any number of evaluated candidates: correct, significantly
 * faster than the parent (paired test) and at least marginPct lower in PAR-2; of several, the largest gain.
 */
export function greedyAccept(evaluated: Evaluated[], parent: number, marginPct: number): Decision {
  const gain = (c: Comparison | undefined) => (c && c.par2A > 0 ? (100 * (c.par2A - c.par2B)) / c.par2A : 0);
  // A candidate that stopped at a cheaper perf tier was never measured on the full set: not promotable.
  const passing = evaluated.filter((e) => e.json?.verdict === 'pass' && (!e.json.tier || e.json.tier.reached === e.json.tier.of));
  const stopped = evaluated.filter((e) => e.json?.tier && e.json.tier.reached < e.json.tier.of);
  const winners = passing.filter((e) => e.cmp?.verdict === 'B faster' && gain(e.cmp) >= marginPct).sort((a, b) => gain(b.cmp) - gain(a.cmp));
  const stays = candidateDirName(parent);
  const best = winners[0];
  if (best) return { winner: best.candidate, outcome: `${candidateDirName(best.candidate)} is the new champion (PAR-2 ${best.cmp!.par2A.toFixed(2)} -> ${best.cmp!.par2B.toFixed(2)} s)` };
  const of = evaluated.length > 1 ? `best of ${evaluated.length} evaluated: ` : '';
  const close = passing.filter((e) => e.cmp?.verdict === 'B faster').sort((a, b) => gain(b.cmp) - gain(a.cmp))[0];
  if (close) return { winner: null, outcome: `${stays} stays champion (${of}${evaluated.length > 1 ? `${candidateDirName(close.candidate)} ` : ''}${gain(close.cmp).toFixed(1)}% faster: significant, but under the ${marginPct}% margin)` };
  if (!passing.length && stopped.length) {
    const t = stopped[0]!.json!.tier!;
    return { winner: null, outcome: `${stays} stays champion (${of}${stopped.map((e) => candidateDirName(e.candidate)).join(', ')} stopped at perf tier ${t.reached} of ${t.of}: not among the best there)` };
  }
  const cmp = passing[0]?.cmp ?? evaluated[0]?.cmp;
  return { winner: null, outcome: `${stays} stays champion (${of}${cmp ? cmp.verdict : 'no comparable measurement'})` };
}
