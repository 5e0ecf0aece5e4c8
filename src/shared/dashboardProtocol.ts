// The message contract between the extension and the Dashboard panel, validated with zod on both
// sides. Imports neither `vscode` nor Node APIs: it is bundled into the extension and the webview.
import { z } from 'zod';
import { CandidateColumns, CandidateDir, DashboardData, DuelPairs, SessionId } from '../core/dashboard/dashboardSchema';

export { CandidateColumns, DashboardData, DuelPairs } from '../core/dashboard/dashboardSchema';

/** At most this many candidates' per-instance columns are asked for at once. */
export const MAX_DETAIL = 40;

/** Extension -> webview. `detail` answers `select` for the data of the same `version`. */
export const DashboardHostMessage = z.discriminatedUnion('type', [
  /** No SATLUTION workspace is open. */
  z.object({ type: z.literal('none') }),
  z.object({ type: z.literal('data'), data: DashboardData }),
  z.object({ type: z.literal('detail'), version: z.number().int().nonnegative(), columns: z.array(CandidateColumns).max(MAX_DETAIL) }),
  /** Answers `pairs`: the duel's pairs, or null when this build has no such duel. */
  z.object({ type: z.literal('pairs'), session: SessionId, pairs: DuelPairs.nullable() }),
]);
export type DashboardHostMessage = z.infer<typeof DashboardHostMessage>;

const Id = z.number().int().nonnegative();
/** An instance name as results carry it: a relative path with `/`, never leaving its set. */
const InstanceName = z
  .string()
  .min(1)
  .max(1024)
  .refine((s) => s.split('/').every((p) => p !== '' && p !== '.' && p !== '..' && !p.includes('\\') && !p.includes('\0')), 'not an instance name');

/** Webview -> extension. `ready` is the handshake: nothing is posted to the panel before it. */
export const DashboardViewMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** The candidates whose per-instance columns the webview needs (the selection and the baselines). */
  z.object({ type: z.literal('select'), ids: z.array(Id).max(MAX_DETAIL) }),
  /** The pairs of the duel a selected decision was made on. */
  z.object({ type: z.literal('pairs'), session: SessionId }),
  z.object({ type: z.literal('openLog'), candidate: CandidateDir, instance: InstanceName }),
  z.object({ type: z.literal('openResults'), candidate: CandidateDir }),
  z.object({ type: z.literal('compare'), candidate: CandidateDir }),
  z.object({ type: z.literal('refresh') }),
]);
export type DashboardViewMessage = z.infer<typeof DashboardViewMessage>;
