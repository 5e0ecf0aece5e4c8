// The dashboard's data, as the extension sends it to its webview. Pure zod, no Node APIs: the shared
// protocol and the webview bundle import this module. Per-instance data is columnar (arrays aligned
// with `instances.name`) and sent only for the candidates a person selects, so 1,000 instances x 100
// candidates never travel as one object graph.
import { z } from 'zod';
import { STRATEGY_NAMES } from '../config/strategyNames';
import { RunStatus } from '../run/result';
import { CandidateStatus } from '../store/candidateStatus';

export const GATE_ORDER = ['comply', 'build', 'smoke', 'verify', 'perf'] as const;
export const DashGate = z.enum(GATE_ORDER);
export type DashGate = z.infer<typeof DashGate>;

/** Run statuses by code (the position in this list), as the columns carry them; -1 = not run. */
export const RUN_STATUSES = RunStatus.options;
/** Answers by code: 0 = none. */
export const ANSWERS = [null, 'SAT', 'UNSAT', 'UNKNOWN'] as const;
/**
 * What the proof of an UNSAT answer showed, by code: 0 = no UNSAT answer; proved (drat-trim verified it),
 * unchecked (its proof kept, not checked), unproved (checked and not verified: counted as unsolved),
 * rejected (a lie).
 */
export const PROOF_STATES = [null, 'proved', 'unchecked', 'unproved', 'rejected'] as const;
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

/** Why a perf measurement covers part of the set only: racing stopped it, or it stopped at a cheaper perf tier. */
export const PerfPartial = z.enum(['rejected early', 'stopped at a tier']);

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
  /** Gates of its latest evaluation that passed with nothing checked (evaluation.vacuous_gates: warn). */
  warnings: z.array(z.string()),
  evaluatedAt: z.string().nullable(),
  /** The perf stage's timeout (PAR-2 counts an unsolved instance as twice this). */
  timeoutS: Seconds.nullable(),
  /** Measured on the perf set; null when the perf stage did not run (or its file was unreadable). */
  perf: PerfSummary.nullable(),
  /** Per-instance perf results exist (the columns can be asked for). */
  hasDetail: z.boolean(),
  /** Why `perf` covers part of the set only (racing stopped it, or it stopped at a cheaper perf tier): then it is no PAR-2 of the set. */
  partial: PerfPartial.nullable(),
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
  /** Null unless the candidate passed and was measured on the whole set. */
  candidatePar2: Seconds.nullable(),
  /** The candidate stopped before the whole set (then `candidatePar2` is null). */
  candidatePartial: PerfPartial.nullable(),
  /** Rejected early by racing: the race's extrapolated lower estimate of its PAR-2 (not a measurement). */
  candidateEstimate: Seconds.nullable(),
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
  points: z.array(
    z.object({
      cycle: z.number().int().positive(),
      candidate: Id,
      score: z.number().int().min(1).max(10),
      selected: z.boolean(),
      gainPct: z.number().nullable(),
    }),
  ),
  /** Evaluated proposals (score and gain both known). */
  n: Count,
  pearson: z.number().min(-1).max(1).nullable(),
  spearman: z.number().min(-1).max(1).nullable(),
});
export type JudgeData = z.infer<typeof JudgeData>;

/** The islands strategy's database: per island its members, occupied cells and best; failures by penalty. */
export const IslandsData = z.object({
  bins: z.number().int().positive(),
  islands: z.array(
    z.object({
      index: Count,
      members: Count,
      cells: z.array(z.object({ x: Count, y: Count, candidate: Id, par2: Seconds })),
      best: z.object({ candidate: Id, par2: Seconds }).nullable(),
    }),
  ),
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
  objectives: z.array(
    z.object({
      name: z.string(),
      author: z.enum(['person', 'model']),
      rationale: z.string(),
      weight: z.number().min(0).max(1),
      tau: z.number().nullable(),
      createdRound: Count,
      multiplier: z.number().nonnegative(),
      error: z.string().nullable(),
    }),
  ),
  candidates: z.array(z.object({ candidate: Id, score: z.number().min(0).max(1) })),
});
export type ConsensusData = z.infer<typeof ConsensusData>;

/** Time basis of a decision: wall clock, or CPU time of the solver's process tree. */
export const TimeBasis = z.enum(['wall', 'cpu']);

/** The noise of one basis, from the calibration's A/A duel (decide/calibration.ts NoiseDoc). */
export const NoiseRow = z.object({
  basis: TimeBasis,
  bandPct: z.number().nonnegative(),
  /** The A/A PAR-2 difference (percent) and its paired test's p. */
  diffPct: z.number(),
  p: z.number().min(0).max(1),
  spreadMedianPct: z.number().nonnegative().nullable(),
  spreadP90Pct: z.number().nonnegative().nullable(),
  /** The A/A duel alone would have been called significant (it should not be). */
  aaSignificant: z.boolean(),
});
export type NoiseRow = z.infer<typeof NoiseRow>;

/** The promotion rule in force now (decide/calibration.ts noiseRule), with a short form for narrow views. */
export const DashRule = z.object({
  /** What the config asks for, and what decisions use (CPU falls back to wall where it was not measured). */
  on: TimeBasis,
  basis: TimeBasis,
  /** 0 when not calibrated. */
  bandPct: z.number().nonnegative(),
  marginPct: z.number().nonnegative(),
  falsePromotionPct: z.number().nonnegative(),
  calibrated: z.object({ at: z.string(), n: Count, machine: z.string() }).nullable(),
  line: z.string(),
  short: z.string(),
});
export type DashRule = z.infer<typeof DashRule>;

/** A duel's session name (its file in `.satlution/duels/`), the key its pairs are asked for by. */
export const SessionId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/);

/** One same-session measurement of a decision (decide/measureTogether.ts), without its pairs (asked for lazily). */
export const DashDuel = z.object({
  session: SessionId,
  purpose: z.enum(['decision', 'held-out']),
  on: TimeBasis,
  /** Pairs (instances both sides ran). */
  n: Count,
  timeoutS: Seconds,
  /** Both sides ran each block at the same moment; else one after the other. */
  together: z.boolean(),
  /** PAR-2 of the champion (A) and the challenger (B) on `on`, and on wall time as competitions report it. */
  par2A: Seconds,
  par2B: Seconds,
  wallPar2A: Seconds,
  wallPar2B: Seconds,
  /** Percent of A's PAR-2 by which B is faster (negative: slower), as the margin judged it (with `again`, on the mean of the runs). */
  gainPct: z.number(),
  /** Where the decision was in doubt and both ran instances again: how many, the most runs of one by a side (absent: two), and each side's PAR-2 with those at the mean of their runs. */
  again: z.object({ instances: Count, runs: Count.optional(), par2A: Seconds, par2B: Seconds }).optional(),
  /** 95% interval of the per-instance mean difference B - A, seconds. */
  ci95: z.tuple([z.number(), z.number()]),
  p: z.number().min(0).max(1),
  /** The one-sided level `p` (the promotion test's, or an older duel's ratio test's) was held to; absent: an older duel, whose `p` is the Wilcoxon test's. */
  level: z.number().min(0).max(1).optional(),
  bandPct: z.number().nonnegative(),
  verdict: z.enum(['B faster', 'A faster', 'no significant difference']),
  /** A side that crashed or answered wrongly in the duel. */
  fatal: z.string().nullable(),
  at: z.string(),
  /** Each family's PAR-2 change under the challenger (positive: slower), slowest first, and whether the family rule found it slower beyond its tolerance; absent where the duel has one family. */
  families: z
    .array(z.object({ family: z.string().max(200), instances: Count, changePct: z.number(), judged: z.boolean(), slower: z.boolean() }))
    .max(64)
    .optional(),
});
export type DashDuel = z.infer<typeof DashDuel>;

/** Why racing stopped a challenger (eval/evalDoc.ts RaceDoc): the evidence, in seconds summed on `on`. */
export const DashRace = z.object({
  on: TimeBasis,
  ran: Count,
  of: Count,
  capped: Count,
  challengerS: Seconds,
  championS: Seconds,
  championTotalS: Seconds,
  thresholdS: Seconds,
  marginPct: z.number().nonnegative(),
  bandPct: z.number().nonnegative(),
  estimatedPar2: Seconds.nullable(),
  spentS: Seconds,
  reason: z.string(),
  /** A one-session race (the champion beside it): the gain it was raced for, its geometric-mean speed-up and (older races) the most it could be, percent. Absent: an older race, judged against a threshold. */
  detectGainPct: z.number().optional(),
  speedupPct: z.number().optional(),
  upperPct: z.number().nullable().optional(),
  /** Races before the promotion test's futility look: the old rule's likelihood ratio ("no faster" against "the gain raced for") and the ratio it dropped at. */
  odds: z.number().nullable().optional(),
  dropOdds: z.number().optional(),
  /** The futility look's chance that it would pass the promotion test at the set's end, and the chance the race drops under (decide/race.ts DROP_BELOW). */
  passChance: z.number().nullable().optional(),
  dropBelow: z.number().optional(),
});
export type DashRace = z.infer<typeof DashRace>;

/** How a challenger's decision ended. `vetoed`: faster beyond the margin, yet not promoted (the family rule, the held-out set, a person, or another proposal of the cycle won). */
export const DECISION_OUTCOMES = [
  'promoted',
  'not significant',
  'slower',
  'under the margin',
  'vetoed',
  'rejected early',
  'stopped at a tier',
  'failed',
  'not compared',
  'pending',
] as const;
export const DecisionOutcome = z.enum(DECISION_OUTCOMES);
export type DecisionOutcome = z.infer<typeof DecisionOutcome>;

/** One challenger of one cycle, and how it was judged against the champion. */
export const DashDecision = z.object({
  cycle: z.number().int().positive(),
  candidate: Id,
  /** The champion it met (the duel's A), when known. */
  champion: Id.nullable(),
  outcome: DecisionOutcome,
  /** The same-session duel the decision was made on, and the held-out check's, when they ran. */
  duel: DashDuel.nullable(),
  heldOut: DashDuel.nullable(),
  race: DashRace.nullable(),
  tier: z.object({ reached: z.number().int().positive(), of: z.number().int().positive() }).nullable(),
  /**
   * Where its parent is not the champion it met (islands, SMC): each family's PAR-2 change against the
   * parent (positive: slower), chained through same-session duels from the parent (`via`, parent first);
   * absent where no such chain was measured.
   */
  parent: z
    .object({
      id: Id,
      via: z.array(Id).max(4),
      families: z.array(z.object({ family: z.string().max(200), instances: Count, changePct: z.number() })).max(64),
    })
    .optional(),
  /** The outcome in plain sentences (core/explain.ts): the change with its CI, n and p, the margin, and the reason. */
  why: z.string().max(1200),
});
export type DashDecision = z.infer<typeof DashDecision>;

/** The verdicts: the rule in force, the calibrated noise, and every cycle's decisions. */
export const VerdictsData = z.object({
  /** Null when satlution.yaml could not be read. */
  rule: DashRule.nullable(),
  /** The calibration's wall and CPU noise (empty: not calibrated). */
  noise: z.array(NoiseRow),
  /** Where and when the noise was measured: the solver measured against itself, on what, with which timeout. */
  calibration: z.object({ at: z.string(), n: Count, machine: z.string(), solver: z.string(), runner: z.string(), timeoutS: Seconds }).nullable(),
  decisions: z.array(DashDecision),
});
export type VerdictsData = z.infer<typeof VerdictsData>;

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
    expected: z.array(
      z
        .number()
        .int()
        .min(0)
        .max(EXPECTED.length - 1),
    ),
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
  verdicts: VerdictsData,
  /** Files skipped or partly read, for the person to see (never an error). */
  notes: z.array(z.string()),
});
export type DashboardData = z.infer<typeof DashboardData>;

/** One candidate's perf results, aligned with `DashboardData.instances.name`. */
export const CandidateColumns = z.object({
  id: Id,
  /** Code into RUN_STATUSES, -1 = not run on this instance. */
  status: z.array(
    z
      .number()
      .int()
      .min(-1)
      .max(RUN_STATUSES.length - 1),
  ),
  /** Seconds (ms precision); 0 where not run. */
  time: z.array(Seconds),
  /** CPU seconds of the run's process tree (ms precision); null where not run or not measured (documents from before CPU accounting, or no cgroup). */
  cpu: z.array(Seconds.nullable()).default([]),
  /** Code into ANSWERS. */
  answer: z.array(
    z
      .number()
      .int()
      .min(0)
      .max(ANSWERS.length - 1),
  ),
  /** Code into PROOF_STATES (empty from hosts before it). */
  proof: z
    .array(
      z
        .number()
        .int()
        .min(0)
        .max(PROOF_STATES.length - 1),
    )
    .default([]),
});
export type CandidateColumns = z.infer<typeof CandidateColumns>;

/** One side's column of a duel's pairs. */
const PairSide = z.object({
  /** Code into RUN_STATUSES, -1 = a status this version does not know. */
  status: z.array(
    z
      .number()
      .int()
      .min(-1)
      .max(RUN_STATUSES.length - 1),
  ),
  wall: z.array(Seconds),
  /** null where the run had no CPU accounting. */
  cpu: z.array(Seconds.nullable()),
  /** The PAR-2 contribution on the duel's basis (2 x timeout when unsolved). */
  par2: z.array(Seconds),
});

/** A duel's pairs, columnar (A: the champion, B: the challenger), sent when a decision is selected. */
export const DuelPairs = z.object({
  session: SessionId,
  on: TimeBasis,
  timeoutS: Seconds,
  instance: z.array(z.string()),
  /** Which side ran first in the pair's block. */
  order: z.array(z.enum(['AB', 'BA'])),
  a: PairSide,
  b: PairSide,
});
export type DuelPairs = z.infer<typeof DuelPairs>;
