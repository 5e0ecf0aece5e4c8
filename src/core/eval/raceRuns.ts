// Drives a race (race.ts) over a perf stage's instances: blocks of runs, longest first by the champion's
// times, each run capped, the racing rule checked after every block. A challenger that survives has its
// capped runs repeated with the full timeout, so its recorded measurement is complete and never holds a cap.
import type { InstanceSpec } from '../instances/instances';
import type { InstanceResult } from '../run/result';
import { timeOn } from './metrics';
import { capFor, lowerBound, raceCall, raceOrder, type RaceDoc, type RacePolicy } from './race';
import type { RunSetOutcome } from './runSet';

/** Runs some instances of the stage, with per-instance caps (the stage's own runner, limits and store). */
export type RunSome = (instances: InstanceSpec[], caps: ReadonlyMap<string, number>) => Promise<RunSetOutcome>;

/** The stage's results (in the set's order) and the race's record. */
export interface RaceOutcome extends RunSetOutcome {
  race: RaceDoc;
}

/** Instances per block: the stage's slots, so every block keeps them all busy. */
export async function runRace(o: { instances: InstanceSpec[]; timeoutS: number; jobs: number; policy: RacePolicy; run: RunSome; say?: (m: string) => void }): Promise<RaceOutcome> {
  const { policy, timeoutS } = o;
  const order = raceOrder(o.instances, policy.reference);
  const caps = new Map(order.map((i) => [i.name, capFor(policy.reference.get(i.name), timeoutS, policy.racing)]));
  const championTotal = o.instances.reduce((s, i) => s + (policy.reference.get(i.name) ?? 0), 0);
  const results = new Map<string, InstanceResult>();
  const judged: { lb: number; ref: number }[] = [];
  let solverHash = '';
  let reused = 0;
  let spent = 0;
  const block = Math.max(1, o.jobs);
  let stopped: ReturnType<typeof raceCall> | undefined;
  let last = raceCall({ runs: [], of: order.length, championTotal }, policy);
  for (let at = 0; at < order.length && !stopped; at += block) {
    const chunk = order.slice(at, at + block);
    const out = await o.run(chunk, new Map(chunk.flatMap((i) => (caps.get(i.name)! < timeoutS ? [[i.name, caps.get(i.name)!] as const] : []))));
    solverHash = out.solverHash;
    reused += out.reused;
    for (const r of out.results) {
      results.set(r.instance, r);
      spent += timeOn(r, policy.on);
      const ref = policy.reference.get(r.instance);
      if (ref !== undefined) judged.push({ lb: lowerBound(r, caps.get(r.instance) ?? timeoutS, timeoutS, policy.on), ref });
    }
    // A broken run fails the gate anyway: nothing to race for.
    if (out.results.some((r) => r.status !== 'solved' && r.status !== 'timeout' && r.status !== 'memout' && r.status !== 'unknown')) break;
    last = raceCall({ runs: judged, of: order.length, championTotal }, policy);
    if (last.stop && at + block < order.length) stopped = last;
  }
  const capped = [...results.values()].filter((r) => r.status === 'timeout' && (caps.get(r.instance) ?? timeoutS) < timeoutS);
  if (!stopped && capped.length && results.size === order.length) {
    // A possible winner: its capped runs again, in full, so what is recorded is a complete measurement.
    o.say?.(`racing: survived; ${capped.length} capped run${capped.length > 1 ? 's' : ''} again with the full ${timeoutS} s`);
    const again = await o.run(o.instances.filter((i) => capped.some((r) => r.instance === i.name)), new Map());
    for (const r of again.results) {
      results.set(r.instance, r);
      spent += timeOn(r, policy.on);
    }
  }
  const ratio = last.championS > 0 ? last.challengerS / last.championS : null;
  const race: RaceDoc = {
    outcome: stopped ? 'rejected early' : 'survived',
    on: policy.on,
    ran: results.size,
    of: order.length,
    capped: capped.length,
    challenger_s: round(last.challengerS),
    champion_s: round(last.championS),
    champion_total_s: round(championTotal),
    threshold_s: round(last.thresholdS),
    margin_pct: policy.marginPct,
    band_pct: policy.bandPct,
    estimated_par2: stopped && ratio !== null && order.length ? round((ratio * championTotal) / order.length) : null,
    spent_s: round(spent),
    reason: stopped ? stopped.reason : `ran all ${order.length} instances: it may beat the champion`,
  };
  o.say?.(`racing: ${race.outcome} after ${race.ran} of ${race.of}${stopped ? `: ${stopped.reason}` : ''}`);
  return { solverHash, reused, results: o.instances.flatMap((i) => (results.has(i.name) ? [results.get(i.name)!] : [])), race };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
