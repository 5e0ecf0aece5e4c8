// The dashboard's data, as the extension sends it to its webview. Pure zod, no Node APIs: the shared
// protocol and the webview bundle import this module. Per-instance data is columnar (arrays aligned
// with `instances.name`) and sent only for the candidates a person selects, so 1,000 instances x 100
// candidates never travel as one object graph.
import { z } from 'zod';
import { STRATEGY_NAMES } from '../config/strategyNames';
import { RunStatus } from '../run/result';
import { CandidateStatus } from '../store/status';

export const GATE_ORDER = ['comply', 'build', 'smoke', 'verify', 'perf'] as const;
export const DashGate = z.enum(GATE_ORDER);
export type DashGate = z.infer<typeof DashGate>;

/** Run statuses by code (the position in this list), as the columns carry them; -1 = not run. */
export const RUN_STATUSES = RunStatus.options;
/** Answers by code: 0 = none. */
export const ANSWERS = [null, 'SAT', 'UNSAT', 'UNKNOWN'] as const;
/** Expected answers by code: 0 = unknown. */
export const EXPECTED = [null, 'SAT', 'UNSAT'] as const;

export const CandidateDir = z.string().regex(/^SATLUTION_\d{1,9}$/);
const Id = z.number().int().nonnegative();
const Seconds = z.number().nonnegative();
const Count = z.number().int().nonnegative();

export const PerfSummary = z.object({
  n: Count,
  solved: Count,
  solvedSat: Count,
  solvedUnsat: Count,
  par2: Seconds,
  par2Sat: Seconds.nullable(),
  par2Unsat: Seconds.nullable(),
});
export type PerfSummary = z.infer<typeof PerfSummary>;

export const DashCandidate = z.object({
  id: Id,
  dir: CandidateDir,
  parent: Id.nullable(),
  /** Set for baselines (imported seeds). */
  seed: z.string().nullable(),
  status: CandidateStatus,
  champion: z.boolean(),
  /** The cycle that made it, if a cycle did. */
  cycle: z.number().int().positive().nullable(),
  verdict: z.enum(['pass', 'fail']).nullable(),
  failedGate: DashGate.nullable(),
  failure: z.string().nullable(),
  evaluatedAt: z.string().nullable(),
  /** The perf stage's timeout (PAR-2 counts an unsolved instance as twice this). */
  timeoutS: Seconds.nullable(),
  /** Measured on the perf set; null when the perf stage did not run (or its file was unreadable). */
  perf: PerfSummary.nullable(),
  /** Per-instance perf results exist (the columns can be asked for). */
  hasDetail: z.boolean(),
  hasResults: z.boolean(),
});
export type DashCandidate = z.infer<typeof DashCandidate>;

export const DashCycle = z.object({
  cycle: z.number().int().positive(),
  /** The champion the cycle started from. */
  parent: Id,
  candidate: Id.nullable(),
  title: z.string().nullable(),
  /** The last step recorded; `done` when the cycle finished. */
  step: z.string(),
  championChanged: z.boolean(),
  outcome: z.string().nullable(),
  /** The champion when the cycle ended (or now, for a cycle still running). */
  champion: Id.nullable(),
  championPar2: Seconds.nullable(),
  candidatePar2: Seconds.nullable(),
  endedAt: z.string(),
});
export type DashCycle = z.infer<typeof DashCycle>;

export const CostRow = z.object({
  /** null: spending outside any cycle (e.g. a single agent call). */
  cycle: z.number().int().nonnegative().nullable(),
  calls: Count,
  input: Count,
  output: Count,
  cacheRead: Count,
  cacheWrite: Count,
  usd: z.number().nonnegative(),
});
export type CostRow = z.infer<typeof CostRow>;

/** SIFT's judge: each score, with the measured gain where the proposal was evaluated. */
export const JudgeData = z.object({
  points: z.array(z.object({ cycle: z.number().int().positive(), candidate: Id, score: z.number().int().min(1).max(10), selected: z.boolean(), gainPct: z.number().nullable() })),
  /** Evaluated proposals (score and gain both known). */
  n: Count,
  pearson: z.number().min(-1).max(1).nullable(),
  spearman: z.number().min(-1).max(1).nullable(),
});
export type JudgeData = z.infer<typeof JudgeData>;

/** The islands strategy's database: per island its members, occupied cells and best; failures by penalty. */
export const IslandsData = z.object({
  bins: z.number().int().positive(),
  islands: z.array(z.object({ index: Count, members: Count, cells: z.array(z.object({ x: Count, y: Count, candidate: Id, par2: Seconds })), best: z.object({ candidate: Id, par2: Seconds }).nullable() })),
  archive: z.array(z.object({ candidate: Id, par2: Seconds })),
  penalties: z.array(z.object({ kind: z.string(), count: Count })),
  migrations: Count,
});
export type IslandsData = z.infer<typeof IslandsData>;

/** The smc strategy: the current run's temperature, particles, kernels and forecast. */
export const SmcData = z.object({
  run: Count,
  iteration: Count,
  lambda: z.number().min(0).max(1),
  betaT: z.number().nonnegative(),
  particles: z.array(z.object({ candidate: Id, reward: z.number().min(0).max(1).nullable() })),
  kernels: z.array(z.object({ name: z.string(), mean: z.number().min(0).max(1), a: z.number(), b: z.number() })),
  /** Evaluations the run is expected to need still. */
  forecast: Count,
  accepted: Count,
  moves: Count,
  history: z.array(z.object({ run: Count, iteration: Count, lambda: z.number(), ess: z.number(), best: z.number().nullable() })),
  ended: z.array(z.object({ run: Count, reason: z.string() })),
});
export type SmcData = z.infer<typeof SmcData>;

/** Multi-fidelity perf tiers: how many candidates each tier measured and passed on, and the latest results. */
export const TiersData = z.object({
  tiers: z.array(z.object({ tier: Count, fraction: z.number(), timeoutS: Seconds, promoteTop: z.number().nullable(), measured: Count, promoted: Count })),
  recent: z.array(z.object({ candidate: Id, tier: Count, par2: Seconds.nullable(), rank: Count.nullable(), of: Count, promoted: z.boolean() })),
});
export type TiersData = z.infer<typeof TiersData>;

/** The objective portfolio and the candidates' consensus scores. */
export const ConsensusData = z.object({
  round: Count,
  objectives: z.array(z.object({ name: z.string(), author: z.enum(['person', 'model']), rationale: z.string(), weight: z.number().min(0).max(1), tau: z.number().nullable(), createdRound: Count, multiplier: z.number().nonnegative(), error: z.string().nullable() })),
  candidates: z.array(z.object({ candidate: Id, score: z.number().min(0).max(1) })),
});
export type ConsensusData = z.infer<typeof ConsensusData>;

export const DashboardData = z.object({
  /** Bumped on every rebuild; detail columns name the version they belong to. */
  version: z.number().int().nonnegative(),
  workspace: z.string(),
  builtAt: z.string(),
  champion: Id.nullable(),
  candidates: z.array(DashCandidate),
  cycles: z.array(DashCycle),
  /** Every instance any candidate ran on the perf set, columnar. */
  instances: z.object({
    name: z.array(z.string()),
    /** Index into `families`, -1 = none. */
    family: z.array(z.number().int().min(-1)),
    /** Code into EXPECTED. */
    expected: z.array(z.number().int().min(0).max(EXPECTED.length - 1)),
  }),
  families: z.array(z.string()),
  failures: z.array(z.object({ gate: DashGate, count: Count })),
  cost: z.array(CostRow),
  /** The search strategy of satlution.yaml, when known. */
  strategy: z.enum(STRATEGY_NAMES).nullable(),
  judge: JudgeData.nullable(),
  islands: IslandsData.nullable(),
  smc: SmcData.nullable(),
  tiers: TiersData.nullable(),
  consensus: ConsensusData.nullable(),
  /** Files skipped or partly read, for the person to see (never an error). */
  notes: z.array(z.string()),
});
export type DashboardData = z.infer<typeof DashboardData>;

/** One candidate's perf results, aligned with `DashboardData.instances.name`. */
export const CandidateColumns = z.object({
  id: Id,
  /** Code into RUN_STATUSES, -1 = not run on this instance. */
  status: z.array(z.number().int().min(-1).max(RUN_STATUSES.length - 1)),
  /** Seconds (ms precision); 0 where not run. */
  time: z.array(Seconds),
  /** Code into ANSWERS. */
  answer: z.array(z.number().int().min(0).max(ANSWERS.length - 1)),
});
export type CandidateColumns = z.infer<typeof CandidateColumns>;
