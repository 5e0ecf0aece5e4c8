// Derived views of the dashboard data that the tabs share: who the baselines are, which colour each
// compared candidate has, the default selection, and which columns the charts need.
import type { CandidateColumns, DashboardData, DashCandidate } from '../../../src/core/dashboard/dashboardSchema';
import { RUN_STATUSES } from '../../../src/core/dashboard/dashboardSchema';
import { BASELINE_DASH, type Palette } from './theme';

export const MAX_SELECTED = 12;
const SOLVED = RUN_STATUSES.indexOf('solved');

export interface View {
  data: DashboardData;
  byId: Map<number, DashCandidate>;
  /** Seed candidates, in id order. */
  baselines: DashCandidate[];
  champion: DashCandidate | undefined;
}

export function view(data: DashboardData): View {
  const byId = new Map(data.candidates.map((c) => [c.id, c]));
  return { data, byId, baselines: data.candidates.filter((c) => c.seed !== null), champion: data.champion === null ? undefined : byId.get(data.champion) };
}

/** The champion and the newest candidate measured on the whole set that is not the champion. */
export function defaultSelection(v: View): number[] {
  const out: number[] = [];
  if (v.champion && v.champion.seed === null) out.push(v.champion.id);
  const newest = [...v.data.candidates].reverse().find((c) => c.perf && !c.partial && c.seed === null && !out.includes(c.id));
  if (newest) out.push(newest.id);
  return out;
}

export interface Style {
  color: string;
  dash?: number[];
}

/** Baselines keep their own dashed style; compared candidates get the series colours in order. */
export function styleOf(v: View, selected: readonly number[], p: Palette, id: number): Style {
  const b = v.baselines.findIndex((c) => c.id === id);
  if (b >= 0) return { color: p.baseline[b % p.baseline.length]!, dash: BASELINE_DASH[b % BASELINE_DASH.length]! };
  const k = selected.filter((s) => !v.baselines.some((c) => c.id === s)).indexOf(id);
  return { color: p.series[Math.max(0, k) % p.series.length]! };
}

/** The candidates whose per-instance columns the charts and the table need. */
export function neededColumns(v: View, selected: readonly number[]): number[] {
  return [...new Set([...v.baselines.map((c) => c.id), ...selected])].filter((id) => v.byId.get(id)?.hasDetail);
}

/** Solved times, ascending (a cactus line). */
export function solvedTimes(col: CandidateColumns): number[] {
  const out: number[] = [];
  for (let i = 0; i < col.status.length; i++) if (col.status[i] === SOLVED) out.push(col.time[i]!);
  return out.sort((a, b) => a - b);
}

export function label(c: DashCandidate): string {
  return c.seed !== null ? `${c.seed} (${c.dir})` : c.dir;
}
