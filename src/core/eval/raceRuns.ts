// Drives a race (race.ts) over a perf stage's instances: blocks of runs in race order (the decision
// window's cross-section, then longest first), each run capped, the racing rule checked after every
// block. A challenger that survives has its capped runs repeated with the full timeout, so its recorded
// measurement is complete and never holds a cap.
import type { InstanceSpec } from '../instances/instances';
import type { InstanceResult } from '../run/result';
import { par2Of, timeOn } from './metrics';
import { capFor, lowerBound, raceCall, raceOrder, type RaceDoc, type RacePolicy } from './race';
import type { RunSetOutcome } from './runSet';

/** Runs some instances of the stage, with per-instance caps (the stage's own runner, limits and store). */
export type RunSome = (instances: InstanceSpec[], caps: ReadonlyMap<string, number>) => Promise<RunSetOutcome>;

/** The stage's results (in the set's order) and the race's record. */
export interface RaceOutcome extends RunSetOutcome {
  race: RaceDoc;
}

/**
 * Races a challenger's perf runs in blocks of the stage's slots. While the instances run carry less than
 * min_share of the champion's time (the decision window), each block is run by the champion too, in the
 * same session and in alternating order, so "no faster where it counts" is judged on same-session pairs:
 * the machine's speed drifts (on this project's 2-core machine by 25% between two runs of one binary a
 * minute apart), and a challenger judged against stored champion times would be rejected for the drift.
 * After the window only the hopeless rule applies, against the champion's stored times scaled by the speed
 * ratio the window measured. Without `runChampion` every judgement uses the stored times.
 */
export async function runRace(o: { instances: InstanceSpec[]; timeoutS: number; jobs: number; policy: RacePolicy; run: RunSome; runChampion?: RunSome; say?: (m: string) => void }): Promise<RaceOutcome> {
  const { policy, timeoutS } = o;
  const order = raceOrder(o.instances, policy.reference, o.runChampion ? policy.racing.min_share : 1);
  const storedTotal = o.instances.reduce((s, i) => s + (policy.reference.get(i.name) ?? 0), 0);
  const results = new Map<string, InstanceResult>();
  const caps = new Map<string, number>();
  const judged: { lb: number; ref: number }[] = [];
  let solverHash = '';
  let reused = 0;
  let spent = 0;
  let reruns = 0;
  // The champion's speed now over its stored speed, from the window's same-session runs.
  let storedInWindow = 0;
  let nowInWindow = 0;
  const ratio = () => (storedInWindow > 0 && nowInWindow > 0 ? nowInWindow / storedInWindow : 1);
  let window = o.runChampion !== undefined;
  const block = Math.max(1, o.jobs);
  let stopped: ReturnType<typeof raceCall> | undefined;
  let last = raceCall({ runs: [], of: order.length, championTotal: storedTotal }, policy);
  for (let k = 0, at = 0; at < order.length && !stopped; k++, at += block) {
    const chunk = order.slice(at, at + block);
    for (const i of chunk) caps.set(i.name, capFor(scaled(policy.reference.get(i.name), ratio()), timeoutS, policy.racing));
    const challenger = () => o.run(chunk, new Map(chunk.flatMap((i) => (caps.get(i.name)! < timeoutS ? [[i.name, caps.get(i.name)!] as const] : []))));
    let now: Map<string, number> | undefined;
    const champion = async () => {
      const c = await o.runChampion!(chunk, new Map());
      now = new Map(c.results.map((r) => [r.instance, par2Of(r, timeoutS, policy.on)]));
      reruns += c.results.length;
      for (const r of c.results) spent += timeOn(r, policy.on);
    };
    let out: RunSetOutcome;
    if (window && k % 2 === 1) {
      await champion();
      out = await challenger();
    } else {
      out = await challenger();
      if (window) await champion();
    }
    solverHash = out.solverHash;
    reused += out.reused;
    for (const r of out.results) {
      results.set(r.instance, r);
      spent += timeOn(r, policy.on);
      const stored = policy.reference.get(r.instance);
      const ref = now?.get(r.instance) ?? scaled(stored, ratio());
      if (now && stored !== undefined && now.has(r.instance)) {
        storedInWindow += stored;
        nowInWindow += now.get(r.instance)!;
      }
      if (ref !== undefined) judged.push({ lb: lowerBound(r, caps.get(r.instance) ?? timeoutS, timeoutS, policy.on), ref });
    }
    // A broken run fails the gate anyway: nothing to race for.
    if (out.results.some((r) => r.status !== 'solved' && r.status !== 'timeout' && r.status !== 'memout' && r.status !== 'unknown')) break;
    const inWindow = window;
    if (window && judged.length >= policy.racing.min_instances && storedInWindow >= policy.racing.min_share * storedTotal) window = false;
    // Judged on same-session pairs at the window's end; afterwards only "hopeless" (the pairs' verdict stands).
    last = raceCall({ runs: judged, of: order.length, championTotal: storedTotal * ratio() }, policy, { noFaster: inWindow || o.runChampion === undefined });
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
  const r = last.championS > 0 ? last.challengerS / last.championS : null;
  const total = storedTotal * ratio();
  const race: RaceDoc = {
    outcome: stopped ? 'rejected early' : 'survived',
    on: policy.on,
    ran: results.size,
    of: order.length,
    capped: capped.length,
    champion_reruns: reruns,
    challenger_s: round(last.challengerS),
    champion_s: round(last.championS),
    champion_total_s: round(total),
    threshold_s: round(last.thresholdS),
    margin_pct: policy.marginPct,
    band_pct: policy.bandPct,
    estimated_par2: stopped && r !== null && order.length ? round((r * total) / order.length) : null,
    spent_s: round(spent),
    reason: stopped ? stopped.reason : `ran all ${order.length} instances: it may beat the champion`,
  };
  o.say?.(`racing: ${race.outcome} after ${race.ran} of ${race.of}${stopped ? `: ${stopped.reason}` : ''}`);
  return { solverHash, reused, results: o.instances.flatMap((i) => (results.has(i.name) ? [results.get(i.name)!] : [])), race };
}

/** A stored champion time at today's speed. */
const scaled = (stored: number | undefined, ratio: number): number | undefined => (stored === undefined ? undefined : stored * ratio);

const round = (x: number) => Math.round(x * 1000) / 1000;
