// Metrics of one evaluation (paper Table 3; PAR-2 as in ARCHITECTURE.md's glossary), computed from per-instance results only.
import { FATAL, type InstanceResult } from '../run/result';

export interface Metrics {
  n: number;
  solved: number;
  solved_sat: number;
  solved_unsat: number;
  par2: number;
  par2_sat: number | null;
  par2_unsat: number | null;
  solved_within: Record<string, number>;
  mem_avg_mb: number | null;
  mem_max_mb: number | null;
  /** Runs whose answer or its evidence was false (wrong, invalid model or proof, missing proof). */
  wrong: number;
  /** No answer contradicts the known or the baselines' answers. */
  vbs_match: boolean;
  /** Solved here, solved by no baseline (null when no baseline results were given). */
  unique_solved: number | null;
}

/** Fractions of the timeout at which solved counts are reported (300..4500 s at T = 5000 s). */
export const THRESHOLDS = [0.06, 0.12, 0.2, 0.4, 0.6, 0.9];

/** Which time a comparison is made on: wall clock (PAR-2 as competitions define it) or the process tree's CPU time. */
export type TimeBasis = 'wall' | 'cpu';

/**
 * The basis a figure over `runs` may be on: CPU only when every one of them has a measured CPU time,
 * else wall time for all of them, so a figure never mixes the two nor calls wall time CPU time.
 */
export const basisOf = (on: TimeBasis, runs: Iterable<{ cpu_s?: number | null }>): TimeBasis => {
  if (on === 'wall') return 'wall';
  for (const r of runs) if (r.cpu_s === undefined || r.cpu_s === null) return 'wall';
  return 'cpu';
};

/** A run's time on a basis; CPU time falls back to wall time where it was not measured (no cgroup). */
export const timeOn = (r: Pick<InstanceResult, 'time_s'> & { cpu_s?: number | null }, on: TimeBasis): number =>
  on === 'cpu' && r.cpu_s !== undefined && r.cpu_s !== null ? r.cpu_s : r.time_s;

/** The PAR-2 contribution of one run: its time if solved correctly, else twice the timeout (on wall time unless `on` says cpu). */
export const par2Of = (r: Pick<InstanceResult, 'status' | 'time_s'> & { cpu_s?: number | null }, timeoutS: number, on: TimeBasis = 'wall'): number =>
  r.status === 'solved' ? timeOn(r, on) : 2 * timeoutS;

export function computeMetrics(results: InstanceResult[], timeoutS: number, baselines?: InstanceResult[][]): Metrics {
  const solved = results.filter((r) => r.status === 'solved');
  // An instance's truth: its known answer, else the answer this solver proved.
  const truth = (r: InstanceResult) => r.expected ?? (r.status === 'solved' ? r.answer : null);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  const par2 = (rs: InstanceResult[]) => mean(rs.map((r) => par2Of(r, timeoutS)));
  const mems = results.map((r) => r.mem_mb).filter((m): m is number => m !== null);
  const within: Record<string, number> = {};
  for (const f of THRESHOLDS) {
    const t = Math.round(f * timeoutS * 1000) / 1000;
    within[String(t)] = solved.filter((r) => r.time_s <= t).length;
  }
  const wrong = results.filter((r) => FATAL.has(r.status) && r.status !== 'crash').length;
  let unique: number | null = null;
  if (baselines && baselines.length) {
    const solvedBy = new Set(
      baselines
        .flat()
        .filter((r) => r.status === 'solved')
        .map((r) => r.instance),
    );
    unique = solved.filter((r) => !solvedBy.has(r.instance)).length;
  }
  return {
    n: results.length,
    solved: solved.length,
    solved_sat: solved.filter((r) => r.answer === 'SAT').length,
    solved_unsat: solved.filter((r) => r.answer === 'UNSAT').length,
    par2: par2(results) ?? 0,
    par2_sat: par2(results.filter((r) => truth(r) === 'SAT')),
    par2_unsat: par2(results.filter((r) => truth(r) === 'UNSAT')),
    solved_within: within,
    mem_avg_mb: mems.length ? Math.round(mean(mems)! * 10) / 10 : null,
    mem_max_mb: mems.length ? Math.max(...mems) : null,
    wrong,
    vbs_match: wrong === 0,
    unique_solved: unique,
  };
}

/** Virtual best solver over several result lists: per instance, the best correct run. */
export function virtualBest(lists: InstanceResult[][], timeoutS: number): InstanceResult[] {
  const best = new Map<string, InstanceResult>();
  for (const list of lists)
    for (const r of list) {
      const cur = best.get(r.instance);
      if (!cur || par2Of(r, timeoutS) < par2Of(cur, timeoutS)) best.set(r.instance, r);
    }
  return [...best.values()].sort((a, b) => a.instance.localeCompare(b.instance));
}
