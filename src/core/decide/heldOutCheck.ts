// The held-out check before a promotion (ARCHITECTURE.md, "The path of a cycle", decide;
// stages.perf.holdout): the winner side by side with the champion on a set that took no part in
// selection, stopped as soon as it can tell (heldOut.ts), then its much-faster UNSAT answers there
// proof-checked (promotionAudit.ts auditHeldOut).
import * as path from 'node:path';
import { openPerfSession } from '../eval/perfSession';
import { candidateDirName } from '../layout';
import { duelComparison, duelWithChampion, type VerdictContext } from './againstChampion';
import type { DuelDoc } from './duels';
import { heldOutEnd, heldOutStop } from './heldOut';
import { auditHeldOut, type Objection } from './promotionAudit';
import type { RankBy } from './objectiveTest';
import type { FamilyRule } from './familyCheck';

/** Who meets whom in the check, and where the winner's held-out runs keep their proofs (the cycle's race session). */
export interface HeldOutRequest {
  cycle: number;
  winner: number;
  champion: number;
  hold: string | null;
  /** Parallel proof checks instead of the runner's configured `jobs`. */
  jobs?: number;
}

/**
 * The held-out check before a promotion (stages.perf.holdout): the winner must not be slower than the
 * champion, side by side in one session, on a set that took no part in selection. Returns why not, or
 * undefined when it passes.
 */
export async function heldOutCheck(ctx: VerdictContext, req: HeldOutRequest): Promise<Objection | undefined> {
  const set = ctx.config.stages.perf.holdout;
  if (!set) return undefined;
  const verdict = await heldOutVerdict(ctx, req, set);
  if (verdict.objection) return { why: verdict.objection, failed: false };
  // Passed: it must still pass on checked answers, as the race's decision must (largest saving first).
  return auditHeldOut(ctx, {
    cycle: req.cycle,
    champion: req.champion,
    challenger: req.winner,
    passes: (d) => !heldOutVetoes(d, ctx.config.evaluation.rank_by, ctx.config.evaluation.families),
    heldOut: verdict.duel,
    bench: set,
    ...(req.jobs !== undefined ? { jobs: req.jobs } : {}),
  });
}

/** The held-out duel (kept from a resumed run, else measured) and its objection, if any. */
async function heldOutVerdict(ctx: VerdictContext, req: HeldOutRequest, set: string): Promise<{ duel: DuelDoc; objection?: string }> {
  const { config } = ctx;
  const { cycle, winner, champion, hold } = req;
  const perf = await openPerfSession({
    ws: ctx.ws,
    config,
    runnerEnv: ctx.runnerEnv,
    overrides: { bench: set },
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  // The whole set, judged once at its end (heldOut.ts heldOutCall).
  const d = await duelWithChampion(ctx, {
    cycle,
    purpose: 'held-out',
    championDir: path.join(ctx.ws, candidateDirName(champion)),
    challengerDir: path.join(ctx.ws, candidateDirName(winner)),
    bench: set,
    perf,
    ...(hold ? { hold } : {}),
  });
  if (d.fatal?.side === 'B') return { duel: d, objection: `it failed on the held-out set ${set}: ${d.fatal.detail}` };
  const cmp = duelComparison(d, config.strategy.alpha, config.evaluation.rank_by, config.evaluation.families);
  if (d.stopped) {
    // A duel kept from a cycle that ran under the rule before this one, which stopped early.
    const call = heldOutStop(d)!;
    ctx.log(`held-out set ${set}, side by side (stopped early by the rule before): ${d.stopped.reason}`);
    return call.slower === true
      ? { duel: d, objection: `it is worse on the held-out set ${set} (side by side, stopped as soon as it could tell: ${d.stopped.reason})` }
      : { duel: d };
  }
  // Vetoed only if shown worse there, at the check's stated error (heldOut.ts HELD_OUT_VETO).
  const end = heldOutEnd(d, config.evaluation.rank_by, config.evaluation.families);
  ctx.log(
    `held-out set ${set}, side by side: ${candidateDirName(champion)} PAR-2 ${cmp.par2A.toFixed(2)} s, ${candidateDirName(winner)} ${cmp.par2B.toFixed(2)} s; ${end.reason}`,
  );
  return end.slower
    ? { duel: d, objection: `it is worse on the held-out set ${set} (side by side: PAR-2 ${cmp.par2A.toFixed(2)} -> ${cmp.par2B.toFixed(2)} s; ${end.reason})` }
    : { duel: d };
}

/** Whether the held-out check vetoes a duel: at its end (the whole set or a family, `families`), or as the rule before stopped it early. */
export function heldOutVetoes(d: DuelDoc, rankBy: RankBy, families?: FamilyRule): boolean {
  return (d.stopped ? heldOutStop(d) : heldOutEnd(d, rankBy, families))?.slower === true;
}
