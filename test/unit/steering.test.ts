// The Steering view's host logic without VS Code: the message contract (malformed messages refused),
// the bounded stream both sides reduce, the view state, plan approvals, the notes and approval-mode
// writers, and transcripts as Markdown.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseTranscriptName, transcriptFile } from '../../src/core/llm/transcript';
import { withApprovalMode, writeApprovalMode } from '../../src/core/config/edit';
import { loadConfig } from '../../src/core/config/load';
import { ConfigSchema } from '../../src/core/config/schema';
import type { CycleEvent } from '../../src/core/cycle/events';
import { Step as CoreStep, type CycleState } from '../../src/core/store/cycleState';
import { silentLogger } from '../../src/core/ports';
import { initWorkspace } from '../../src/core/workspace/initWorkspace';
import { MAX_NOTES_CHARS, readNotes, writeNotes } from '../../src/core/workspace/notes';
import { PlanApprovals, type PendingApproval } from '../../src/extension/planApprovals';
import { MAX_RESULT_CHARS, transcriptMarkdown } from '../../src/extension/transcriptMarkdown';
import { progressText, steeringState, SteeringStream, toStreamItem, type SteeringInputs } from '../../src/extension/webviews/steeringModel';
import {
  ApprovalMode,
  LIMITS,
  Step,
  SteeringHostMessage,
  SteeringState,
  SteeringViewMessage,
  type StreamEntry,
  type StreamItem,
} from '../../src/shared/steeringProtocol';
import { appendStream, compactItems } from '../../src/shared/steeringStream';
import { cycleProblem } from '../../src/extension/cycleProblem';
import { outcomeLine } from '../../src/shared/outcomeLine';
import { SessionError } from '../../src/core/cycle/session';
import { ConfigError } from '../../src/core/config/load';
import { ProgressTracker } from '../../src/core/cycle/progress';
import type { ProgressEvent } from '../../src/core/cycle/events';
import { FIXTURES, RULES, tempDir, write } from './helpers';

const idleState: SteeringState = {
  phase: 'idle',
  pausing: false,
  cycle: null,
  step: null,
  candidate: null,
  title: null,
  agent: null,
  approval: 'semi',
  strategy: 'champion-challenger',
  screens: false,
  outcome: null,
  pending: null,
  transcripts: false,
  progress: null,
  retry: null,
  problem: null,
  why: null,
  families: null,
  nextAgent: 'tuner',
};

describe('steering protocol', () => {
  it('accepts the messages of the contract', () => {
    const good: unknown[] = [
      { type: 'ready' },
      { type: 'approve', candidate: 'SATLUTION_3' },
      { type: 'reject', candidate: 'SATLUTION_3' },
      { type: 'reject', candidate: 'SATLUTION_3', reason: 'too risky' },
      { type: 'editPlan', candidate: 'SATLUTION_12' },
      ...['start', 'pause', 'stop', 'resume', 'abandon'].map((action) => ({ type: 'control', action })),
      { type: 'fix', action: 'setApiKey' },
      { type: 'retryNow' },
      { type: 'saveNotes', text: '' },
      { type: 'setApproval', mode: 'auto' },
      { type: 'openTranscript' },
      { type: 'openTranscript', cycle: 2, role: 'coder' },
    ];
    for (const m of good) assert.ok(SteeringViewMessage.safeParse(m).success, JSON.stringify(m));
    assert.ok(SteeringHostMessage.safeParse({ type: 'state', state: idleState }).success);
    assert.ok(
      SteeringHostMessage.safeParse({ type: 'stream', seq: 1, items: [{ kind: 'tool', role: 'coder', name: 'build', ok: false, summary: 'error' }] }).success,
    );
  });

  it('rejects malformed messages from the webview', () => {
    const bad: unknown[] = [
      'ready',
      null,
      { type: 'approve' },
      { type: 'approve', candidate: '../../etc' },
      { type: 'approve', candidate: 'SATLUTION_1', extra: true },
      { type: 'reject', candidate: 'SATLUTION_1', reason: 'x'.repeat(LIMITS.reason + 1) },
      { type: 'control', action: 'rm' },
      { type: 'saveNotes' },
      { type: 'saveNotes', text: 'x'.repeat(LIMITS.notes + 1) },
      { type: 'setApproval', mode: 'yolo' },
      { type: 'openTranscript', cycle: 0 },
      { type: 'openTranscript', role: '../x' },
      { type: 'eval', code: '1' },
    ];
    for (const m of bad) assert.equal(SteeringViewMessage.safeParse(m).success, false, JSON.stringify(m));
  });

  it('rejects malformed messages from the host', () => {
    const bad: unknown[] = [
      { type: 'state', state: { ...idleState, phase: 'exploded' } },
      { type: 'state', state: { ...idleState, candidate: '<img src=x>' } },
      { type: 'state', state: { ...idleState, extra: 1 } },
      {
        type: 'state',
        state: { ...idleState, pending: { cycle: 1, candidate: 'SATLUTION_1', title: 't', hypothesis: 'x'.repeat(LIMITS.hypothesis + 1), where: 'view' } },
      },
      { type: 'stream', seq: 0, items: [{ kind: 'log', role: null, text: 'x' }] },
      { type: 'stream', seq: 1, items: [] },
      { type: 'stream', seq: 1, items: [{ kind: 'tool', role: 'coder', name: '', ok: true, summary: '' }] },
      { type: 'stream', seq: 1, items: [{ kind: 'text', role: 'judge', text: 'x' }] },
      { type: 'snapshot', state: idleState, stream: [], seq: 0 },
      { type: 'notice', level: 'debug', text: 'x' },
    ];
    for (const m of bad) assert.equal(SteeringHostMessage.safeParse(m).success, false, JSON.stringify(m));
  });

  it('mirrors the core enums it cannot import (they use Node APIs)', () => {
    assert.deepEqual(Step.options, CoreStep.options);
    assert.deepEqual(ApprovalMode.options, ConfigSchema.shape.approval.unwrap().options);
    assert.equal(LIMITS.notes, MAX_NOTES_CHARS);
  });
});

describe('steering stream', () => {
  const text = (role: 'planner' | 'coder', t: string): StreamItem => ({ kind: 'text', role, text: t });

  it('merges streamed text per role, keeps tool rows apart, drops the oldest rows past the bound', () => {
    const entries: StreamEntry[] = [];
    appendStream(
      entries,
      [
        text('planner', 'Read'),
        text('planner', 'ing'),
        { kind: 'tool', role: 'planner', name: 'read_file', ok: true, summary: 'x.c' },
        text('planner', 'Plan'),
        text('coder', 'Edit'),
        text('planner', ''),
      ],
      10,
    );
    assert.deepEqual(
      entries.map((e) => (e.kind === 'text' ? `${e.role}:${e.text}` : e.kind)),
      ['planner:Reading', 'tool', 'planner:Plan', 'coder:Edit'],
    );
    for (let i = 0; i < 20; i++) appendStream(entries, [{ kind: 'log', role: null, text: `l${i}` }], 10);
    assert.equal(entries.length, 10);
    assert.deepEqual(entries[0], { kind: 'log', role: null, text: 'l10' });
  });

  it('keeps the tail of a long text, marked as cut', () => {
    const entries: StreamEntry[] = [];
    for (let i = 0; i < 100; i++) appendStream(entries, [text('coder', `${i}`.padStart(200, '.'))]);
    assert.equal(entries.length, 1);
    const t = entries[0]!.kind === 'text' ? entries[0]!.text : '';
    assert.equal(t.length, LIMITS.text);
    assert.ok(t.startsWith('…') && t.endsWith('99'));
  });

  it('compacting a batch changes nothing in what the view ends up with', () => {
    const items: StreamItem[] = [
      text('planner', 'a'),
      text('planner', 'b'),
      text('coder', 'c'),
      { kind: 'step', cycle: 1, step: 'code', candidate: 'SATLUTION_1' },
      text('coder', 'd'),
      text('coder', 'e'),
    ];
    const compact = compactItems(items);
    assert.equal(compact.length, 4);
    assert.deepEqual(appendStream([], compact), appendStream([], items));
  });

  it('the host batches events, keeps a bounded history and numbers the batches for the view', () => {
    const s = new SteeringStream(5);
    assert.equal(s.take(), undefined);
    const ev: CycleEvent[] = [
      { type: 'step', cycle: 2, step: 'plan', candidate: 'SATLUTION_4', title: null },
      { type: 'agent-text', role: 'planner', delta: 'Look' },
      { type: 'agent-text', role: 'planner', delta: 'ing' },
      { type: 'agent-text', role: 'planner', delta: '' },
    ];
    assert.deepEqual(
      ev.map((e) => s.push(e)),
      [true, true, true, false],
    );
    assert.deepEqual(s.take(), {
      seq: 1,
      items: [
        { kind: 'step', cycle: 2, step: 'plan', candidate: 'SATLUTION_4' },
        { kind: 'text', role: 'planner', text: 'Looking' },
      ],
    });
    s.push({ type: 'agent-tool', role: 'coder', name: 'build', ok: false, summary: 'x'.repeat(1000) });
    const snap = s.snapshot();
    assert.equal(snap.seq, 2, 'the queued item went into the snapshot as batch 2');
    assert.equal(snap.stream.length, 3);
    assert.equal((snap.stream[2] as Extract<StreamEntry, { kind: 'tool' }>).summary.length, LIMITS.line);
    for (let i = 0; i < 10; i++) s.push({ type: 'log', message: `m${i}` });
    assert.equal(s.take()!.seq, 3);
    assert.equal(s.snapshot().stream.length, 5);
    assert.ok(SteeringHostMessage.safeParse({ type: 'snapshot', state: idleState, ...s.snapshot(), notes: '' }).success);
  });

  it('maps every cycle event the view shows', () => {
    assert.deepEqual(toStreamItem({ type: 'paused', cycle: 1, step: 'evaluate', candidate: 'SATLUTION_1' }), {
      kind: 'log',
      role: null,
      text: 'Paused before evaluate; Resume continues here.',
    });
    assert.deepEqual(toStreamItem({ type: 'agent-log', role: 'tuner', message: 'building' }), { kind: 'log', role: 'tuner', text: 'building' });
    assert.equal(toStreamItem({ type: 'agent-text', role: 'coder', delta: '' }), undefined);
  });
});

describe('steering view state', () => {
  const saved = (over: Partial<CycleState>): CycleState => ({
    cycle: 3,
    step: 'code',
    parent: 0,
    candidate: 3,
    title: 'try X',
    started_at: '',
    updated_at: '',
    outcome: null,
    champion_changed: false,
    proposals: [],
    hint: null,
    island: null,
    selected: null,
    ...over,
  });
  const input = (over: Partial<SteeringInputs>): SteeringInputs => ({
    workspace: true,
    run: undefined,
    saved: undefined,
    approval: 'semi',
    strategy: 'champion-challenger',
    screens: false,
    pending: undefined,
    transcripts: false,
    problem: undefined,
    why: undefined,
    nextAgent: 'tuner',
    ...over,
  });
  const valid = (s: SteeringState) => {
    assert.ok(SteeringState.safeParse(s).success, JSON.stringify(s));
    return s;
  };

  it('none, idle, the last outcome, and an interrupted cycle as paused', () => {
    assert.equal(valid(steeringState(input({ workspace: false }))).phase, 'none');
    assert.deepEqual(valid(steeringState(input({}))), idleState);
    const done = valid(steeringState(input({ saved: saved({ step: 'done', outcome: 'SATLUTION_0 stays champion' }) })));
    assert.deepEqual([done.phase, done.step, done.outcome], ['idle', 'done', 'SATLUTION_0 stays champion']);
    const p = valid(steeringState(input({ saved: saved({ step: 'approve' }) })));
    assert.deepEqual([p.phase, p.cycle, p.step, p.candidate, p.title], ['paused', 3, 'approve', 'SATLUTION_3', 'try X']);
  });

  it('running, pausing, and a plan awaiting approval (clipped to the protocol)', () => {
    const run = {
      agent: 'llm' as const,
      cycle: 3,
      step: 'code' as const,
      candidate: 'SATLUTION_3',
      title: 'try X',
      pausing: true,
      progress: null,
      retry: null,
    };
    const r = valid(steeringState(input({ run, saved: saved({}) })));
    assert.deepEqual([r.phase, r.pausing, r.step, r.agent, r.pending], ['running', true, 'code', 'llm', null]);
    const pending: PendingApproval = {
      cycle: 3,
      candidate: 'SATLUTION_3',
      title: 't'.repeat(500),
      hypothesis: 'h'.repeat(LIMITS.hypothesis + 10),
      where: 'dialog',
    };
    const a = valid(steeringState(input({ run: { ...run, step: 'approve', pausing: false }, pending })));
    assert.equal(a.phase, 'awaiting-approval');
    assert.equal(a.pending!.where, 'dialog');
    assert.equal(a.pending!.title.length, LIMITS.line);
    assert.match(a.pending!.hypothesis, /the rest is in HYPOTHESIS\.md/);
    // A new cycle has just started: no step of it yet, so the saved (previous) one is not shown as current.
    const fresh = valid(
      steeringState(
        input({
          run: { ...run, cycle: null, step: null, candidate: null, title: null, pausing: false },
          saved: saved({ step: 'done', outcome: 'done before' }),
        }),
      ),
    );
    assert.deepEqual([fresh.phase, fresh.outcome], ['running', 'done before']);
  });
});

describe('steering: progress, retries, problems and the why', () => {
  const input = (over: Partial<SteeringInputs>): SteeringInputs => ({
    workspace: true,
    run: undefined,
    saved: undefined,
    approval: 'semi',
    strategy: 'champion-challenger',
    screens: false,
    pending: undefined,
    transcripts: false,
    problem: undefined,
    why: undefined,
    nextAgent: 'tuner',
    ...over,
  });
  const run = { agent: 'llm' as const, cycle: 2, step: 'evaluate' as const, candidate: 'SATLUTION_2', title: 't', pausing: false, progress: null, retry: null };
  const done: CycleState = {
    cycle: 2,
    step: 'done',
    parent: 0,
    candidate: 2,
    title: 't',
    started_at: '',
    updated_at: '',
    outcome: 'SATLUTION_2 not promoted',
    champion_changed: false,
    proposals: [],
    hint: null,
    island: null,
    selected: null,
  };

  it("a running evaluation shows its progress and a waiting retry; the last run's problem only when idle", () => {
    const progress = { what: 'perf', candidate: 'SATLUTION_2', done: 3, total: 10, last: 'a.cnf (timeout)', elapsedS: 12, etaS: 28 };
    const s = steeringState(
      input({
        run: { ...run, progress, retry: { role: 'planner', message: 'anthropic rate limit (HTTP 429)', seconds: 20 } },
        problem: { text: 'old', actions: ['showLog'] },
      }),
    );
    assert.ok(SteeringState.safeParse(s).success);
    assert.deepEqual(s.progress, progress);
    assert.equal(s.retry?.seconds, 20);
    assert.equal(s.problem, null, 'a running cycle shows no stale problem');
    const idle = steeringState(
      input({
        saved: done,
        problem: { text: 'anthropic rejected the API key (HTTP 401)', actions: ['setApiKey'] },
        why: '12.0% faster (PAR-2 ...), but not significant',
        families: 'f1 +30.0% (slower beyond 5%), f2 -20.1%',
      }),
    );
    assert.ok(SteeringState.safeParse(idle).success);
    assert.deepEqual(idle.problem?.actions, ['setApiKey']);
    assert.match(idle.why ?? '', /not significant/);
    assert.equal(idle.families, 'f1 +30.0% (slower beyond 5%), f2 -20.1%');
    const interrupted = steeringState(input({ saved: { ...done, step: 'code' }, why: 'x', families: 'f1 +1.0%' }));
    assert.deepEqual([interrupted.why, interrupted.families], [null, null], 'an interrupted cycle has no verdict yet');
  });

  it('the last cycle line: the outcome, or with a Why below its head and the veto the Why does not say', () => {
    const raced =
      'SATLUTION_0 stays champion (15.4% faster side by side over the 5.0% margin, but slower on a family: miter 6.2% slower (4 instances, PAR-2 0.13 -> 0.14 s); significantly and more than the 5% a family may lose (each family judged at 0.067: an error of 0.2 over 3))';
    const held =
      'SATLUTION_0 stays champion (SATLUTION_1 won on the perf set, but it is worse on the held-out set heldout (side by side: PAR-2 2.69 -> 0.63 s; on all 22 instances, PAR-2 76.8% lower, but slower on a family: uniform-unsat 9.7% slower (5 instances, PAR-2 0.92 -> 1.00 s); significantly and more than the 5% a family may lose (each family judged at 0.067: an error of 0.2 over 3)))';
    const won = 'SATLUTION_1 is the new champion (side by side on CPU time: PAR-2 1.00 -> 0.80 s, 20.0% faster; over the 5.0% margin)';
    assert.equal(outcomeLine(raced, true), 'SATLUTION_0 stays champion: slower on a family: miter 6.2% slower');
    assert.equal(outcomeLine(held, true), 'SATLUTION_0 stays champion: worse on the held-out set heldout, slower on a family: uniform-unsat 9.7% slower');
    assert.equal(outcomeLine(won, true), 'SATLUTION_1 is the new champion');
    assert.equal(outcomeLine(won, false), won, 'no Why: the whole outcome');
  });

  it('an error names the action that fixes it', () => {
    const llm = (kind: string, message: string) => Object.assign(new Error(message), { name: 'LlmError', kind });
    assert.deepEqual(cycleProblem(llm('auth', 'anthropic rejected the API key (HTTP 401); set it with ...'), true).actions, [
      'setApiKey',
      'configureModels',
      'resume',
    ]);
    assert.deepEqual(cycleProblem(llm('model', 'openai does not know the model "x" (HTTP 404)'), false).actions, ['configureModels', 'openConfig']);
    assert.deepEqual(cycleProblem(llm('server', 'openai server error (HTTP 500)'), true).actions, ['resume', 'showLog']);
    assert.deepEqual(cycleProblem(new SessionError('no models configured: set models.planner'), false).actions, ['configureModels', 'runTuner']);
    assert.deepEqual(cycleProblem(new Error('no API key for anthropic (m): set ANTHROPIC_API_KEY'), false).actions, ['setApiKey', 'configureModels']);
    const cfg = cycleProblem(
      new ConfigError('satlution.yaml', [{ key: 'strategy', message: 'bad', range: { line: 3, column: 1, endLine: 3, endColumn: 2 } } as never]),
      false,
    );
    assert.deepEqual(cfg.actions, ['openConfig']);
    assert.match(cfg.text, /satlution\.yaml is not valid: satlution\.yaml:3:1/);
    assert.deepEqual(cycleProblem('a string', false), { text: 'a string', actions: ['showLog'] });
  });

  it('progress: elapsed and a linear ETA per stage; a measurement restarts when it counts from less', () => {
    let t = 0;
    const got: ProgressEvent[] = [];
    const p = new ProgressTracker(
      (e) => got.push(e),
      'SATLUTION_4',
      () => t,
    );
    p.start('perf', 10);
    t = 4000;
    p.report(2, 10, 'x.cnf');
    assert.deepEqual(
      got.map((e) => [e.what, e.done, e.elapsedS, e.etaS]),
      [
        ['perf', 0, 0, null],
        ['perf', 2, 4, 16],
      ],
    );
    got.length = 0;
    p.reportIn('side by side', 5, 20, null);
    t = 6000;
    p.reportIn('side by side', 10, 20, null);
    p.reportIn('side by side', 2, 20, null);
    assert.deepEqual(
      got.map((e) => [e.what, e.done, e.elapsedS]),
      [
        ['side by side', 0, 0],
        ['side by side', 5, 0],
        ['side by side', 10, 2],
        ['side by side', 0, 0],
        ['side by side', 2, 0],
      ],
    );
    assert.equal(
      progressText({ what: 'perf', candidate: 'SATLUTION_4', done: 2, total: 10, last: 'x.cnf', elapsedS: 64, etaS: 256 }),
      'perf: 2/10 · SATLUTION_4 · 1:04 elapsed, about 4:16 left · last: x.cnf',
    );
    assert.equal(
      progressText({ what: 'building', candidate: 'SATLUTION_4', done: 0, total: 0, last: null, elapsedS: 3, etaS: null }),
      'building · SATLUTION_4',
      'no count for a stage without instances',
    );
  });
});

describe('plan approvals', () => {
  const plan = { cycle: 1, candidate: 'SATLUTION_1', title: 'x', hypothesis: '# x' };

  it('the first answer for the plan wins; a stale one for another candidate is refused', async () => {
    const a = new PlanApprovals();
    const seen: (string | undefined)[] = [];
    a.onDidChange((p) => seen.push(p ? `${p.candidate}:${p.where}` : 'none'));
    const answer = a.ask(plan, 'dialog');
    assert.equal(a.pending?.candidate, 'SATLUTION_1');
    a.moveToView('SATLUTION_1');
    a.revise('SATLUTION_1', { hypothesis: '# edited', title: 'edited' });
    assert.deepEqual([a.pending?.where, a.pending?.hypothesis, a.pending?.title], ['view', '# edited', 'edited']);
    assert.equal(a.answer('SATLUTION_2', { approved: true }), false);
    assert.equal(a.answer('SATLUTION_1', { approved: false, reason: 'no' }), true);
    assert.equal(a.answer('SATLUTION_1', { approved: true }), false, 'answered once');
    assert.deepEqual(await answer, { approved: false, reason: 'no' });
    assert.equal(a.pending, undefined);
    assert.deepEqual(seen, ['SATLUTION_1:dialog', 'SATLUTION_1:view', 'SATLUTION_1:view', 'none']);
  });

  it('is withdrawn when the cycle stops, and by cancel (pause)', async () => {
    const a = new PlanApprovals();
    const stop = new AbortController();
    const p1 = a.ask(plan, 'view', stop.signal);
    stop.abort(new Error('stopped'));
    await assert.rejects(p1, /stopped/);
    assert.equal(a.pending, undefined);
    const p2 = a.ask(plan, 'view');
    a.cancel(new Error('paused'));
    await assert.rejects(p2, /paused/);
    await assert.rejects(a.ask(plan, 'view', AbortSignal.abort(new Error('already stopped'))), /already stopped/);
  });
});

async function workspace(): Promise<string> {
  const ws = tempDir();
  await initWorkspace({
    dir: ws,
    seeds: [{ name: 'tinysat', source: path.join(FIXTURES, 'seeds', 'tinysat') }],
    defaultRulesDir: RULES,
    approver: { confirm: async () => true },
    log: silentLogger,
  });
  return ws;
}

describe('direction notes and the approval mode', () => {
  it('notes are saved where the planner reads them, normalized, and read back', async () => {
    const ws = tempDir();
    assert.equal(await readNotes(ws), '');
    assert.equal(await writeNotes(ws, 'Focus on UNSAT.\r\nAvoid proof changes.\n\n\n'), 'Focus on UNSAT.\nAvoid proof changes.\n');
    assert.equal(fs.readFileSync(path.join(ws, '.satlution', 'notes.md'), 'utf8'), 'Focus on UNSAT.\nAvoid proof changes.\n');
    assert.equal(await readNotes(ws), 'Focus on UNSAT.\nAvoid proof changes.\n');
    assert.equal(await writeNotes(ws, '  \n'), '');
    await assert.rejects(writeNotes(ws, 'x'.repeat(MAX_NOTES_CHARS + 1)), /at most 20000/);
  });

  it('setting the approval mode changes one value and keeps every comment; the round trip is exact', async () => {
    const ws = await workspace();
    const file = path.join(ws, 'satlution.yaml');
    const original = fs.readFileSync(file, 'utf8');
    assert.match(original, /^# manual: approve every step;.*\napproval: semi$/m);
    assert.equal(await writeApprovalMode(ws, 'auto'), true);
    const auto = fs.readFileSync(file, 'utf8');
    const diff = original.split('\n').flatMap((l, i) => (l !== auto.split('\n')[i] ? [`${l} -> ${auto.split('\n')[i]}`] : []));
    assert.deepEqual(diff, ['approval: semi -> approval: auto']);
    assert.equal((await loadConfig(ws)).approval, 'auto');
    assert.equal(await writeApprovalMode(ws, 'auto'), false, 'already so: nothing written');
    await writeApprovalMode(ws, 'semi');
    assert.equal(fs.readFileSync(file, 'utf8'), original);
  });

  it('handles inline comments, quotes and a missing key; refuses to write an invalid config', async () => {
    const ws = await workspace();
    const base = fs.readFileSync(path.join(ws, 'satlution.yaml'), 'utf8');
    const commented = base.replace('approval: semi', 'approval: "semi"   # decided in March');
    assert.match(withApprovalMode(commented, 'manual'), /^approval: manual {3}# decided in March$/m);
    const missing = base.replace(/^approval: semi\n/m, '');
    assert.notEqual(missing, base);
    const added = withApprovalMode(missing, 'auto');
    assert.ok(added.startsWith(missing.trimEnd()) && added.endsWith('\napproval: auto\n'));
    assert.throws(() => withApprovalMode(base.replace('version: 1', 'version: 7'), 'auto'), /would not be valid: satlution\.yaml:\d+:\d+: version/);
    assert.throws(() => withApprovalMode('seeds: [\n', 'auto'), /YAML error/);
  });
});

describe('agent transcripts as Markdown', () => {
  it('renders turns, tool calls and results; shortens long output; survives backticks and bad lines', () => {
    const long = 'y'.repeat(MAX_RESULT_CHARS + 50);
    const md = transcriptMarkdown(
      [
        { at: '2025-01-01T10:00:00.000Z', type: 'system', content: 'You are the coder.' },
        { at: '2025-01-01T10:00:01.000Z', type: 'message', message: { role: 'user', content: 'Implement the plan.' } },
        {
          at: '2025-01-01T10:00:02.000Z',
          type: 'message',
          message: {
            role: 'assistant',
            content: 'Reading.',
            toolCalls: [
              { id: 'a', name: 'read_file', arguments: '{"path":"x.c"}' },
              { id: 'b', name: 'edit_file', arguments: '{broken' },
            ],
          },
          usage: { input: 120, output: 30, cacheRead: 0, cacheWrite: 0 },
        },
        {
          at: '2025-01-01T10:00:03.000Z',
          type: 'message',
          message: { role: 'tool', toolCallId: 'a', name: 'read_file', content: 'has ``` fences ````inside' },
        },
        { at: '2025-01-01T10:00:04.000Z', type: 'message', message: { role: 'tool', toolCallId: 'b', name: 'edit_file', content: long, isError: true } },
        { nonsense: true },
        { at: '2025-01-01T10:00:05.000Z', type: 'end', reason: 'finished' },
      ],
      { cycle: 4, role: 'coder' },
    );
    assert.match(md, /^# Cycle 4 — coder transcript\n\n_6 entries · 120 input \/ 30 output tokens · 1 unreadable line skipped_\n/);
    assert.match(md, /## Task · 10:00:01\n\nImplement the plan\./);
    assert.match(md, /## Model · 10:00:02 · 120 in \/ 30 out tokens\n\nReading\.\n\n\*\*Tool call\*\* `read_file`\n\n```json\n\{\n {2}"path": "x\.c"\n\}\n```/);
    assert.match(md, /\*\*Tool call\*\* `edit_file`\n\n```\n\{broken\n```/);
    assert.match(md, /\*\*✓ read_file\*\* result\n\n`````text\nhas ``` fences ````inside\n`````/, 'the fence is longer than any backtick run inside');
    assert.match(md, /\*\*✗ edit_file\*\* failed/);
    assert.match(md, /\[… 50 more characters in the \.jsonl transcript\]/);
    assert.match(md, /\*\*Ended:\*\* finished · 10:00:05/);
  });

  it('names transcripts by cycle and role, and nothing else', () => {
    assert.deepEqual(parseTranscriptName('cycle-12-coder.jsonl'), { cycle: 12, role: 'coder' });
    for (const bad of ['cycle-0-coder.jsonl', 'cycle-1-../x.jsonl', 'cycle-1-coder.json', 'notes.md']) assert.equal(parseTranscriptName(bad), undefined, bad);
    const ws = tempDir();
    assert.equal(parseTranscriptName(path.basename(transcriptFile(ws, 3, 'planner')))?.cycle, 3);
    write(transcriptFile(ws, 3, 'planner'), '');
    assert.ok(fs.existsSync(path.join(ws, '.satlution', 'transcripts', 'cycle-3-planner.jsonl')));
  });
});
