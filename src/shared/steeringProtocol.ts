// The Steering view's message contract, validated with zod on both sides. Imports neither `vscode`
// nor Node APIs: it is bundled into the extension and into the webview.
import { z } from 'zod';
import { STRATEGY_NAMES } from '../core/config/strategyNames';

// Mirrors of core enums (core modules import Node APIs); a unit test keeps them equal.
export const STEPS = ['plan', 'approve', 'code', 'screen', 'evaluate', 'analyze', 'decide', 'done'] as const;
export const Step = z.enum(STEPS);
export type Step = z.infer<typeof Step>;
export const ApprovalMode = z.enum(['manual', 'semi', 'auto']);
export type ApprovalMode = z.infer<typeof ApprovalMode>;
export const AgentRole = z.enum(['planner', 'coder', 'tuner']);
export type AgentRole = z.infer<typeof AgentRole>;

const CandidateDir = z.string().regex(/^SATLUTION_\d{1,9}$/);
const Cycle = z.number().int().positive();

/** Bounds that keep a long stream cheap to hold, post and replay. */
export const LIMITS = {
  /** Entries kept (the oldest are dropped). */
  entries: 400,
  /** Characters kept of one streamed text entry (its tail). */
  text: 8000,
  /** Characters of one tool summary or log line. */
  line: 300,
  /** A plan shown for approval. */
  hypothesis: 100_000,
  notes: 20_000,
  reason: 2000,
} as const;

const ToolRow = z
  .object({ kind: z.literal('tool'), role: AgentRole, name: z.string().min(1).max(64), ok: z.boolean(), summary: z.string().max(LIMITS.line) })
  .strict();
const LogRow = z.object({ kind: z.literal('log'), role: AgentRole.nullable(), text: z.string().max(LIMITS.line) }).strict();
const StepRow = z.object({ kind: z.literal('step'), cycle: Cycle, step: Step, candidate: CandidateDir.nullable() }).strict();

/** One row of the agents' live log. Streamed text is appended to the last row when it is the same role's text. */
export const StreamEntry = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), role: AgentRole, text: z.string().max(LIMITS.text) }).strict(),
  ToolRow,
  LogRow,
  StepRow,
]);
export type StreamEntry = z.infer<typeof StreamEntry>;

/** What the host appends; a `text` item is a delta (a long one too: the reducer keeps the tail). */
export const StreamItem = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), role: AgentRole, text: z.string().max(LIMITS.text * 4) }).strict(),
  ToolRow,
  LogRow,
  StepRow,
]);
export type StreamItem = z.infer<typeof StreamItem>;

export const Phase = z.enum(['none', 'idle', 'running', 'awaiting-approval', 'paused']);
export type Phase = z.infer<typeof Phase>;

export const PendingPlan = z
  .object({
    cycle: Cycle,
    candidate: CandidateDir,
    title: z.string().max(LIMITS.line),
    hypothesis: z.string().max(LIMITS.hypothesis),
    /** `dialog`: a modal dialog asks too (the view was hidden when the plan arrived). */
    where: z.enum(['view', 'dialog']),
  })
  .strict();
export type PendingPlan = z.infer<typeof PendingPlan>;

/** Where the running evaluation or measurement stands (core/cycle/events.ts ProgressEvent). */
export const ProgressView = z
  .object({
    /** The gate (`perf`) or measurement (`side by side`). */
    what: z.string().max(64),
    candidate: CandidateDir.nullable(),
    done: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
    last: z.string().max(LIMITS.line).nullable(),
    elapsedS: z.number().nonnegative(),
    etaS: z.number().nonnegative().nullable(),
  })
  .strict();
export type ProgressView = z.infer<typeof ProgressView>;

/** The actions that fix a problem, each a button next to it. */
export const FIX_ACTIONS = ['setApiKey', 'configureModels', 'openConfig', 'resume', 'showLog', 'runTuner'] as const;
export const FixAction = z.enum(FIX_ACTIONS);
export type FixAction = z.infer<typeof FixAction>;

/** Why the last cycle stopped, and what fixes it. */
export const Problem = z.object({ text: z.string().max(LIMITS.line * 2), actions: z.array(FixAction).max(FIX_ACTIONS.length) }).strict();
export type Problem = z.infer<typeof Problem>;

/** A model call that failed and is retried after a wait (rate limit, server error, network). */
export const RetryView = z.object({ role: z.string().max(32), message: z.string().max(LIMITS.line), seconds: z.number().nonnegative() }).strict();
export type RetryView = z.infer<typeof RetryView>;

export const SteeringState = z
  .object({
    /** none: no workspace; idle: no cycle in progress; paused: a cycle stopped and can resume. */
    phase: Phase,
    /** A pause was asked for: the cycle stops when its current step ends. */
    pausing: z.boolean(),
    cycle: Cycle.nullable(),
    step: Step.nullable(),
    candidate: CandidateDir.nullable(),
    title: z.string().max(LIMITS.line).nullable(),
    agent: z.enum(['llm', 'tuner']).nullable(),
    /** From satlution.yaml; null while it is invalid. */
    approval: ApprovalMode.nullable(),
    /** The search strategy from satlution.yaml (strategies that screen proposals add the Screen step); null while it is invalid. */
    strategy: z.enum(STRATEGY_NAMES).nullable(),
    /** Whether the strategy screens proposals before evaluation (its cycles have a Screen step). */
    screens: z.boolean(),
    /** How the last cycle ended, when one did. */
    outcome: z
      .string()
      .max(LIMITS.line * 2)
      .nullable(),
    pending: PendingPlan.nullable(),
    /** Whether any agent transcript exists to open. */
    transcripts: z.boolean(),
    /** The evaluation under way, while one is. */
    progress: ProgressView.nullable(),
    /** A model call waiting to be retried. */
    retry: RetryView.nullable(),
    /** Why the last cycle stopped with an error, until the next one starts. */
    problem: Problem.nullable(),
    /** The agent Start runs (the LLM agents once models are configured, else the offline tuner); null while the config is invalid. */
    nextAgent: z.enum(['llm', 'tuner']).nullable(),
    /** Why the last cycle's challenger was or was not promoted, in a sentence (core/explain.ts). */
    why: z
      .string()
      .max(LIMITS.line * 3)
      .nullable(),
    /** Each family's PAR-2 change under the last cycle's challenger, slowest first (core/familyReport.ts familyGlance); null where its set has one family. */
    families: z
      .string()
      .max(LIMITS.line * 3)
      .nullable(),
  })
  .strict();
export type SteeringState = z.infer<typeof SteeringState>;

const Notes = z.string().max(LIMITS.notes);

/** Extension -> webview. */
export const SteeringHostMessage = z.discriminatedUnion('type', [
  /** Everything, after `ready`: the view replaces what it shows. `seq` numbers the stream batches. */
  z
    .object({
      type: z.literal('snapshot'),
      state: SteeringState,
      stream: z.array(StreamEntry).max(LIMITS.entries),
      seq: z.number().int().nonnegative(),
      notes: Notes,
    })
    .strict(),
  z.object({ type: z.literal('state'), state: SteeringState }).strict(),
  /** Appended to the stream; a gap in `seq` makes the view ask for a snapshot again. */
  z.object({ type: z.literal('stream'), seq: z.number().int().positive(), items: z.array(StreamItem).min(1).max(1000) }).strict(),
  z.object({ type: z.literal('notes'), text: Notes }).strict(),
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'error']), text: z.string().max(LIMITS.line * 2) }).strict(),
]);
export type SteeringHostMessage = z.infer<typeof SteeringHostMessage>;

/** `abandon`: give up an interrupted cycle, so the next Start begins a new one. */
export const ControlAction = z.enum(['start', 'pause', 'stop', 'resume', 'abandon']);
export type ControlAction = z.infer<typeof ControlAction>;

/** Webview -> extension. Answers name the candidate, so a stale button cannot answer another plan. */
export const SteeringViewMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }).strict(),
  z.object({ type: z.literal('approve'), candidate: CandidateDir }).strict(),
  z.object({ type: z.literal('reject'), candidate: CandidateDir, reason: z.string().max(LIMITS.reason).optional() }).strict(),
  z.object({ type: z.literal('editPlan'), candidate: CandidateDir }).strict(),
  z.object({ type: z.literal('control'), action: ControlAction }).strict(),
  z.object({ type: z.literal('saveNotes'), text: Notes }).strict(),
  z.object({ type: z.literal('setApproval'), mode: ApprovalMode }).strict(),
  z.object({ type: z.literal('openTranscript'), cycle: Cycle.optional(), role: AgentRole.optional() }).strict(),
  z.object({ type: z.literal('fix'), action: FixAction }).strict(),
  /** Cut the wait of a retried model call short. */
  z.object({ type: z.literal('retryNow') }).strict(),
]);
export type SteeringViewMessage = z.infer<typeof SteeringViewMessage>;
