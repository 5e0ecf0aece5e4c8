// What the dashboard remembers across hide and reload (vscode.setState): the last data (so it renders
// at once), the selection, the tab, filters and sort. Validated on the way back in, like any input.
import { z } from 'zod';
import { CandidateColumns, DashboardData, MAX_DETAIL } from '../../../src/shared/dashboardProtocol';

export const TABS = ['cycles', 'verdicts', 'cactus', 'satunsat', 'instances', 'failures', 'cost', 'strategy'] as const;
export type Tab = (typeof TABS)[number];

/** What the pairs of a decision can be sorted by: instance, order, the champion's and the challenger's time, their ratio. */
export const PAIR_KEYS = ['instance', 'order', 'a', 'b', 'ratio'] as const;

/** Row filters by status over the compared candidates. */
export const StatusFilter = z.string().max(40);

export const UiState = z.object({
  tab: z.enum(TABS).catch('cycles'),
  /** Compared candidates, in the order they were added (their colours follow it). */
  selected: z.array(z.number().int().nonnegative()).max(12).catch([]),
  /** Whether `selected` was chosen by a person (else it follows the champion). */
  chosen: z.boolean().catch(false),
  /** The PAR-2 axis fits the candidates (baselines far above are named, not drawn). */
  cyclesFit: z.boolean().catch(true),
  cactusLog: z.boolean().catch(false),
  barsAll: z.boolean().catch(false),
  /** The per-instance table shows the baselines' columns too. */
  tableBaselines: z.boolean().catch(true),
  family: z.string().max(512).catch(''),
  status: StatusFilter.catch('all'),
  query: z.string().max(200).catch(''),
  sort: z.object({ key: z.string().max(64), dir: z.enum(['asc', 'desc']) }).catch({ key: 'instance', dir: 'asc' }),
  /** The decision shown in the Verdicts tab, `<cycle>:<candidate id>` ('' = the newest with evidence). */
  decision: z.string().max(40).catch(''),
  /** The pairs' scatter on logarithmic axes. */
  pairsLog: z.boolean().catch(true),
  /** The pairs' table order; by default where the challenger lost most first. */
  pairSort: z.object({ key: z.enum(PAIR_KEYS), dir: z.enum(['asc', 'desc']) }).catch({ key: 'ratio', dir: 'desc' }),
});
export type UiState = z.infer<typeof UiState>;

const Saved = z.object({
  ui: UiState,
  data: DashboardData.optional().catch(undefined),
  detail: z
    .object({ version: z.number().int(), columns: z.array(CandidateColumns).max(MAX_DETAIL) })
    .optional()
    .catch(undefined),
});
export type Saved = z.infer<typeof Saved>;

export const DEFAULT_UI: UiState = UiState.parse({});

export function restore(raw: unknown): Saved {
  const r = Saved.safeParse(raw);
  return r.success ? r.data : { ui: DEFAULT_UI };
}
