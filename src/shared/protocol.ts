// The message contract between the extension and its webviews, validated with zod on both sides.
// Imports neither `vscode` nor Node APIs: it is bundled into the extension and into browser code.
import { z } from 'zod';
import { CandidateStatus } from '../core/store/candidateStatus';

const CandidateDir = z.string().regex(/^SATLUTION_\d+$/);
const Status = CandidateStatus;

export const Overview = z.discriminatedUnion('state', [
  z.object({ state: z.literal('none') }),
  z.object({
    state: z.literal('workspace'),
    name: z.string(),
    champion: z.object({ dir: CandidateDir, status: Status, seed: z.string().nullable() }).nullable(),
    total: z.number().int().nonnegative(),
    counts: z.partialRecord(Status, z.number().int().nonnegative()),
    latest: z.array(z.object({ dir: CandidateDir, status: Status, parent: CandidateDir.nullable(), updated: z.string(), missing: z.boolean() })),
    /** The champion's and the latest candidates' gates that passed with nothing checked (evaluation.vacuous_gates: warn); absent from states saved before. */
    warnings: z.record(CandidateDir, z.array(z.string())).default({}),
    config: z.object({ ok: z.boolean(), problems: z.number().int().nonnegative(), first: z.string().nullable() }),
    /** The promotion rule in force, short for the sidebar and in full for its tooltip; null while the config is invalid; absent from states saved before. */
    rule: z.object({ short: z.string(), full: z.string(), calibrated: z.boolean() }).nullable().default(null),
    /** Where evolved code runs without the sandbox (`sandbox: off`): the workspace, and runners by name. */
    unisolated: z.object({ workspace: z.boolean(), runners: z.array(z.string()) }),
    seeds: z.array(z.object({ name: z.string(), files: z.number(), source: z.string() })),
    benchmarks: z.array(z.object({ name: z.string(), dir: z.string(), exists: z.boolean(), instances: z.number(), hasMeta: z.boolean() })),
  }),
]);
export type Overview = z.infer<typeof Overview>;

/** Extension -> webview. */
export const HostMessage = z.discriminatedUnion('type', [z.object({ type: z.literal('overview'), overview: Overview })]);
export type HostMessage = z.infer<typeof HostMessage>;

export const OverviewAction = z.enum(['openConfig', 'openRules', 'revealBenchmarks', 'refresh', 'showOutput', 'openDashboard', 'addSamples']);
export type OverviewAction = z.infer<typeof OverviewAction>;

/** Webview -> extension. `ready` is the handshake: nothing is posted to a view before it. */
export const ViewMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('action'), action: OverviewAction }),
  z.object({ type: z.literal('openCandidate'), dir: CandidateDir }),
]);
export type ViewMessage = z.infer<typeof ViewMessage>;
