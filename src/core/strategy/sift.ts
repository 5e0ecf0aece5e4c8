// The sift strategy: m proposals per cycle, a judge model scores each diff, the top k are evaluated
// and the best winner is promoted. The judge's scores and the measured gains go to its record.
import * as path from 'node:path';
import type { StrategyConfig } from '../config/schema';
import { candidateDirName } from '../layout';
import { unifiedDiff } from '../workspace/candidateDiff';
import { acceptWithMargin, gainPct } from '../decide/promotionRule';
import { DEFAULT_RUBRIC, type JudgeScore } from './judge';
import { appendJudgeRecord } from './judgeLog';
import type { Proposal, SelectContext, Selection, Strategy } from './seam';

/** The sift strategy for its settings. */
export function sift(cfg: Extract<StrategyConfig, { name: 'sift' }>): Strategy {
  const rubric = cfg.judge_rubric ?? DEFAULT_RUBRIC;
  return {
    name: 'sift',
    proposals: cfg.proposals,
    screens: true,
    needsJudge: true,
    select: (coded, ctx) => judgeTopK(coded, ctx, cfg.evaluate_top, rubric),
    // The gain measured against the parent, beside the judge's score: does the judge predict it?
    measured: ({ ws, cycle, candidate, cmp }) =>
      appendJudgeRecord(ws, {
        type: 'measured',
        cycle,
        candidate,
        par2: cmp.par2B,
        parent_par2: cmp.par2A,
        gain_pct: gainPct(cmp),
      }),
    accept: acceptWithMargin(cfg.min_improvement_pct),
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
      {
        cycle: ctx.cycle,
        candidate: dir,
        hypothesis: await ctx.hypothesis(p.candidate),
        diff: await unifiedDiff(path.join(ctx.ws, candidateDirName(ctx.parent)), path.join(ctx.ws, dir)),
        rules,
        rubric,
      },
      ctx.signal,
    );
    ctx.say(`judge: ${dir} scored ${s.score}/10 — ${s.rationale.split('\n')[0]!.slice(0, 160)}`);
    scored.push({ p, s });
  }
  const ranked = [...scored].sort((a, b) => b.s.score - a.s.score || a.p.candidate - b.p.candidate);
  const top = ranked.slice(0, k);
  for (const { p, s } of scored)
    await appendJudgeRecord(ctx.ws, {
      type: 'score',
      cycle: ctx.cycle,
      candidate: p.candidate,
      score: s.score,
      rationale: s.rationale,
      selected: top.some((t) => t.p === p),
    });
  return {
    evaluate: top.map((t) => t.p.candidate),
    discarded: ranked.slice(k).map(({ p, s }) => ({
      candidate: p.candidate,
      reason: `not evaluated: the judge scored it ${s.score}/10, below the top ${k} (${top.map((t) => t.s.score).join(', ')})`,
    })),
  };
}
