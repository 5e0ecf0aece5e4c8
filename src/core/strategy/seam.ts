// The strategy seam of the cycle engine: what a search strategy decides (how many proposals, which
// parent, which proposals are evaluated, which evaluated candidate is promoted) and the hooks the
// engine calls. Interfaces only; each strategy lives in a file of its own, registry.ts picks one.
import type { IsolationSettings } from '../isolation/settings';
import type { Comparison } from '../decide/comparison';
import type { Decision, Evaluated } from '../decide/promotionRule';
import type { EvalDoc } from '../eval/evalDoc';
import type { StrategyName } from '../config/strategyNames';
import type { Judge } from './judge';

/** A proposal of the cycle (planned, maybe coded). */
export interface Proposal {
  candidate: number;
  title: string | null;
  /** Coded and built: eligible for selection. */
  coded: boolean;
}

/** What `select` may use to screen the cycle's proposals. */
export interface SelectContext {
  ws: string;
  cycle: number;
  parent: number;
  judge?: Judge;
  /** The rules text given to the judge. */
  rules: () => Promise<string>;
  hypothesis: (candidate: number) => Promise<string>;
  signal?: AbortSignal;
  /** For strategies that build a proposal to screen it (duplicate binaries). */
  buildTimeoutS: number;
  /** The builds' sandbox (the workspace's `sandbox`). */
  buildIsolation: IsolationSettings;
  say: (message: string) => void;
}

/** The screen's answer: which proposals are evaluated, and why the others are not. */
export interface Selection {
  /** Candidate ids to evaluate, best first. */
  evaluate: number[];
  /** The others, each with why it is not evaluated. */
  discarded: { candidate: number; reason: string }[];
}

/** Where a cycle starts, and why. */
export interface ParentChoice {
  parent: number;
  /** The strategy's lane for this cycle (the island), or null. */
  island: number | null;
  /** Why this parent, for the log. */
  how: string;
  /** What to ask of the proposal (a kernel), given to the agent's plan. */
  hint?: string;
}

/** How one proposal (or the parent's measurement) ended, for strategies that keep a record. */
export interface ProposalOutcome {
  cycle: number;
  island: number | null;
  candidate: number;
  /** The evaluation, when there was one; else why there was none. */
  json?: EvalDoc;
  penalty?: 'no patch' | 'no change';
  detail?: string;
}

/** A search strategy as the cycle engine drives it; the engine does the rest the same way for all. */
export interface Strategy {
  readonly name: StrategyName;
  /** Proposals (plan + code) per cycle. */
  readonly proposals: number;
  /** false: the single coded proposal goes straight to evaluation; true: proposals are collected and screened by `select`. */
  readonly screens: boolean;
  /** `select` asks a judge model: the host must provide one (models.judge or models.planner). */
  readonly needsJudge: boolean;
  /** Where a cycle starts (default: the champion). */
  parent?(ctx: { ws: string; cycle: number; champion: number; championJson: EvalDoc | undefined }): Promise<ParentChoice>;
  select(coded: Proposal[], ctx: SelectContext & { island: number | null }): Promise<Selection>;
  /** Told how each proposal ended (strategies with a database keep it); may return a line for the log. */
  record?(o: ProposalOutcome & { ws: string }): Promise<string | void>;
  /** Told each passing evaluated candidate's measurement against the champion (in the analyze step). */
  measured?(o: { ws: string; cycle: number; candidate: number; cmp: Comparison }): Promise<void>;
  /** `reference`: the candidate the evaluated ones were compared with (the champion). */
  accept(evaluated: Evaluated[], reference: number): Decision;
}
