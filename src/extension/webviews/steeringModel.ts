// What the Steering view shows, from the cycle controller, the cycle's saved state and the config;
// and the agents' stream with its bounded history (no `vscode` import: unit-testable).
import type { CycleEvent } from '../../core/cycle/events';
import type { CycleState } from '../../core/store/cycleState';
import { candidateDirName } from '../../core/layout';
import {
  LIMITS,
  type ApprovalMode,
  type Problem,
  type ProgressView,
  type RetryView,
  type SteeringState,
  type StreamEntry,
  type StreamItem,
} from '../../shared/steeringProtocol';
import { appendStream, compactItems } from '../../shared/steeringStream';
import type { PendingApproval } from '../planApprovals';

/** The cycle the controller runs right now. */
export interface RunView {
  agent: 'llm' | 'tuner';
  cycle: number | null;
  step: CycleState['step'] | null;
  candidate: string | null;
  title: string | null;
  pausing: boolean;
  /** The evaluation or measurement under way. */
  progress: ProgressView | null;
  /** A model call waiting out its retry delay. */
  retry: RetryView | null;
}

export interface SteeringInputs {
  workspace: boolean;
  run: RunView | undefined;
  /** .satlution/cycle.json: a cycle in progress (when nothing runs: an interrupted one), or the last one. */
  saved: CycleState | undefined;
  approval: ApprovalMode | null;
  strategy: SteeringState['strategy'];
  /** The strategy's `screens` (strategy/seam.ts). */
  screens: boolean;
  pending: PendingApproval | undefined;
  transcripts: boolean;
  /** Why the last run stopped with an error (cleared when a cycle starts). */
  problem: Problem | undefined;
  /** The last cycle's verdict in a sentence (its candidate's RESULTS.md "Why:"). */
  why: string | undefined;
  /** Its families at a glance (RESULTS.md "By family:"). */
  families?: string | undefined;
  /** The agent Start would run (session.ts defaultAgent), null while the config is invalid. */
  nextAgent: 'llm' | 'tuner' | null;
}

const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
const clipNull = (s: string | null, max: number) => (s === null ? null : clip(s, max));

export function steeringState(i: SteeringInputs): SteeringState {
  const base = {
    pausing: false,
    agent: null,
    approval: i.approval,
    strategy: i.strategy,
    screens: i.screens,
    outcome: null,
    pending: null,
    transcripts: i.transcripts,
    progress: null,
    retry: null,
    problem: i.problem ? { text: clip(i.problem.text, LIMITS.line * 2), actions: i.problem.actions } : null,
    why: null,
    families: null,
    nextAgent: i.nextAgent,
  } as const;
  if (!i.workspace)
    return {
      ...base,
      phase: 'none',
      cycle: null,
      step: null,
      candidate: null,
      title: null,
      approval: null,
      strategy: null,
      screens: false,
      transcripts: false,
      problem: null,
      nextAgent: null,
    };
  const saved = i.saved;
  const savedCandidate = saved && saved.candidate !== null ? candidateDirName(saved.candidate) : null;
  const outcome = saved?.step === 'done' ? clipNull(saved.outcome, LIMITS.line * 2) : null;
  const why = saved?.step === 'done' && i.why ? clip(i.why, LIMITS.line * 3) : null;
  const families = saved?.step === 'done' && i.families ? clip(i.families, LIMITS.line * 3) : null;
  if (i.run) {
    const p = i.pending;
    return {
      ...base,
      phase: p ? 'awaiting-approval' : 'running',
      pausing: i.run.pausing,
      agent: i.run.agent,
      cycle: i.run.cycle ?? saved?.cycle ?? null,
      step: i.run.step ?? saved?.step ?? null,
      candidate: i.run.candidate ?? savedCandidate,
      title: clipNull(i.run.title ?? saved?.title ?? null, LIMITS.line),
      // Until the new cycle's first step arrives, the saved state is the previous cycle's.
      outcome: i.run.step === null ? outcome : null,
      why: i.run.step === null ? why : null,
      families: i.run.step === null ? families : null,
      progress: i.run.progress,
      retry: i.run.retry,
      problem: null,
      pending: p
        ? {
            cycle: p.cycle,
            candidate: p.candidate,
            title: clip(p.title, LIMITS.line),
            hypothesis:
              p.hypothesis.length <= LIMITS.hypothesis
                ? p.hypothesis
                : `${p.hypothesis.slice(0, LIMITS.hypothesis - 80)}\n\n[… the rest is in HYPOTHESIS.md: use Edit to read all of it]`,
            where: p.where,
          }
        : null,
    };
  }
  if (saved && saved.step !== 'done')
    return { ...base, phase: 'paused', cycle: saved.cycle, step: saved.step, candidate: savedCandidate, title: clipNull(saved.title, LIMITS.line) };
  return {
    ...base,
    phase: 'idle',
    cycle: saved?.cycle ?? null,
    step: saved ? 'done' : null,
    candidate: savedCandidate,
    title: clipNull(saved?.title ?? null, LIMITS.line),
    outcome,
    why,
    families,
  };
}

/** A cycle event as a row of the stream (clipped to the protocol's bounds), or nothing. */
export function toStreamItem(e: CycleEvent): StreamItem | undefined {
  switch (e.type) {
    case 'agent-text':
      return e.delta ? { kind: 'text', role: e.role, text: e.delta.length > LIMITS.text * 4 ? e.delta.slice(-LIMITS.text * 4) : e.delta } : undefined;
    case 'agent-tool':
      return { kind: 'tool', role: e.role, name: clip(e.name, 64) || '?', ok: e.ok, summary: clip(e.summary, LIMITS.line) };
    case 'agent-log':
      return { kind: 'log', role: e.role, text: clip(e.message, LIMITS.line) };
    case 'log':
      return { kind: 'log', role: null, text: clip(e.message, LIMITS.line) };
    case 'step':
      return { kind: 'step', cycle: e.cycle, step: e.step, candidate: e.candidate };
    case 'paused':
      return { kind: 'log', role: null, text: `Paused before ${e.step}; Resume continues here.` };
    case 'progress':
      return undefined; // a bar in the status, not a row of the log
  }
}

/**
 * The stream as the host keeps it: the bounded history a reopened view is given, and the items not
 * yet posted, batched (a model streams many tiny deltas; the view gets a few posts a second).
 */
export class SteeringStream {
  private readonly entries: StreamEntry[] = [];
  private queued: StreamItem[] = [];
  private seq = 0;

  constructor(private readonly maxEntries: number = LIMITS.entries) {}

  push(e: CycleEvent): boolean {
    const item = toStreamItem(e);
    if (!item) return false;
    this.queued.push(item);
    return true;
  }

  /** The next batch to post (also applied to the history), or undefined when nothing is queued. */
  take(): { seq: number; items: StreamItem[] } | undefined {
    if (!this.queued.length) return undefined;
    const items = compactItems(this.queued);
    this.queued = [];
    appendStream(this.entries, items, this.maxEntries);
    return { seq: ++this.seq, items };
  }

  /** The history after every queued item, and the batch number it corresponds to. */
  snapshot(): { stream: StreamEntry[]; seq: number } {
    this.take();
    return { stream: this.entries.map((e) => ({ ...e })), seq: this.seq };
  }
}

/** "perf: 7/22 · SATLUTION_3 · 1:10 elapsed, about 0:40 left · last: x.cnf (timeout)". */
export function progressText(p: ProgressView): string {
  const mmss = (s: number) => `${Math.floor(s / 60)}:${String(Math.round(s % 60)).padStart(2, '0')}`;
  if (!p.total) return [p.what, p.candidate ?? ''].filter(Boolean).join(' · ');
  return [
    `${p.what}: ${p.done}/${p.total}`,
    p.candidate ?? '',
    `${mmss(p.elapsedS)} elapsed${p.etaS !== null ? `, about ${mmss(p.etaS)} left` : ''}`,
    p.last ? `last: ${p.last}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}
