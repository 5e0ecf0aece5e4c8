// The held-out check before a promotion (ARCHITECTURE.md, "The path of a cycle", decide;
// stages.perf.holdout): the winner side by side with the champion on a set that took no part in
// selection, stopped as soon as it can tell (heldOut.ts), then its much-faster UNSAT answers there
// proof-checked (promotionAudit.ts auditHeldOut).
import * as path from 'node:path';
import { openPerfSession } from '../eval/perfSession';
import { candidateDirName } from '../layout';
import { duelComparison, duelWithChampion, type VerdictContext } from './againstChampion';
import type { DuelDoc } from './duels';
import { HELD_OUT_VETO, heldOutEnd, heldOutLook, heldOutStop, heldOutVetoNeeds } from './heldOut';
import { auditHeldOut, type Objection } from './promotionAudit';
import { firstLook } from './race';
import type { RankBy } from './objectiveTest';

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
    passes: (d) => !heldOutVetoes(d, verdict.minInstances, ctx.config.evaluation.rank_by),
    heldOut: verdict.duel,
    bench: set,
    ...(req.jobs !== undefined ? { jobs: req.jobs } : {}),
  });
}

/** The held-out duel (kept from a resumed run, else measured) and its objection, if any. */
async function heldOutVerdict(ctx: VerdictContext, req: HeldOutRequest, set: string): Promise<{ duel: DuelDoc; minInstances: number; objection?: string }> {
  const { config } = ctx;
  const { cycle, winner, champion, hold } = req;
  const on = config.evaluation.decide_on;
  const perf = await openPerfSession({
    ws: ctx.ws,
    config,
    runnerEnv: ctx.runnerEnv,
    overrides: { bench: set },
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  const { plan, instances } = perf;
  const of = instances.length;
  const minInstances = firstLook(instances, config.evaluation.racing.min_instances);
  const needs = heldOutVetoNeeds(minInstances);
  if (of < needs)
    ctx.log(
      `held-out set ${set}: ${of} instance${of === 1 ? '' : 's'} are too few for the check ever to veto at its ${100 * HELD_OUT_VETO}% error (it needs ${needs}): it can only pass`,
    );
  // Sequential: stopped as soon as the pairs say faster or slower there (heldOut.ts heldOutCall), else the whole set.
  const d = await duelWithChampion(ctx, {
    cycle,
    purpose: 'held-out',
    championDir: path.join(ctx.ws, candidateDirName(champion)),
    challengerDir: path.join(ctx.ws, candidateDirName(winner)),
    bench: set,
    stopWhen: heldOutLook(of, plan.timeoutS, on, minInstances, config.evaluation.rank_by),
    perf,
    ...(hold ? { hold } : {}),
  });
  if (d.fatal?.side === 'B') return { duel: d, minInstances, objection: `it failed on the held-out set ${set}: ${d.fatal.detail}` };
  const cmp = duelComparison(d, config.strategy.alpha, config.evaluation.rank_by);
  if (d.stopped) {
    const call = heldOutStop(d, minInstances, config.evaluation.rank_by)!;
    const way = call.slower ? 'slower' : 'faster';
    ctx.log(`held-out set ${set}, side by side: ${candidateDirName(winner)} is ${way} there, ${d.stopped.reason}`);
    return call.slower === true
      ? { duel: d, minInstances, objection: `it is worse on the held-out set ${set} (side by side, stopped as soon as it could tell: ${d.stopped.reason})` }
      : { duel: d, minInstances };
  }
  // The whole set ran: vetoed only if shown worse there, at the check's stated error (heldOut.ts HELD_OUT_VETO).
  const end = heldOutEnd(d, minInstances, config.evaluation.rank_by);
  ctx.log(
    `held-out set ${set}, side by side: ${candidateDirName(champion)} PAR-2 ${cmp.par2A.toFixed(2)} s, ${candidateDirName(winner)} ${cmp.par2B.toFixed(2)} s; ${end.reason}`,
  );
  return end.slower
    ? {
        duel: d,
        minInstances,
        objection: `it is worse on the held-out set ${set} (side by side: PAR-2 ${cmp.par2A.toFixed(2)} -> ${cmp.par2B.toFixed(2)} s; ${end.reason})`,
      }
    : { duel: d, minInstances };
}

/** Whether the held-out check vetoes a duel: as the stop judged it where the duel stopped early, else at its end. */
export function heldOutVetoes(d: DuelDoc, minInstances: number, rankBy: RankBy): boolean {
  return (d.stopped ? heldOutStop(d, minInstances, rankBy) : heldOutEnd(d, minInstances, rankBy))?.slower === true;
}
