// The Steering webview: the cycle's phase and step, the plan awaiting approval, the agents' live
// stream, cycle controls, direction notes and the approval mode. Every inbound message is validated
// against the shared protocol; data is rendered with DOM APIs only (never innerHTML). The last state,
// the stream and an unsaved notes draft survive hide/reload (setState); `ready` asks for the current.
import './shared/jitless'; // first: before zod parses anything
import { h, linkButton, type Child } from './shared/dom';
import { vscodeApi } from './shared/vscodeApi';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import type { VscodeButton } from '@vscode-elements/elements/dist/vscode-button/vscode-button.js';
import { z } from 'zod';
import {
  ApprovalMode,
  LIMITS,
  SteeringHostMessage,
  SteeringState,
  StreamEntry,
  type AgentRole,
  type FixAction,
  type PendingPlan,
  type Problem,
  type ProgressView,
  type RetryView,
  type SteeringViewMessage,
  type StreamItem,
} from '../../src/shared/steeringProtocol';
import { appendStream } from '../../src/shared/steeringStream';
import { outcomeLine } from '../../src/shared/outcomeLine';

const vscode = vscodeApi<SteeringViewMessage>();
const root = document.getElementById('root')!;

/** A vscode-button (the toolkit's look); clicks on a disabled one are ignored. */
function button(label: string, onClick: () => void, o: { secondary?: boolean; aria?: string; title?: string } = {}): VscodeButton {
  const b = h('vscode-button', { ...(o.aria ? { 'aria-label': o.aria } : {}), ...(o.title ? { title: o.title } : {}) }, label);
  b.secondary = o.secondary ?? false;
  b.addEventListener('click', () => {
    if (!b.disabled) onClick();
  });
  return b;
}

// ---- persisted view state ----------------------------------------------------------------------

const Saved = z.object({
  state: SteeringState.optional(),
  stream: z.array(StreamEntry).max(LIMITS.entries).optional(),
  notes: z.string().max(LIMITS.notes).optional(),
  /** The notes as last saved on disk; differs from `notes` while there are unsaved edits. */
  notesSaved: z.string().max(LIMITS.notes).optional(),
});
type Saved = z.infer<typeof Saved>;

const restored: Saved = Saved.safeParse(vscode.getState()).data ?? {};
let state: SteeringState | undefined = restored.state;
let entries: StreamEntry[] = restored.stream ?? [];
let notesSaved = restored.notesSaved ?? '';
let seq = 0;
/** Until the host's first snapshot, what is shown is from before (a reload): it cannot be acted on. */
let live = false;
let persistTimer: number | undefined;

function persistNow(): void {
  clearTimeout(persistTimer);
  persistTimer = undefined;
  vscode.setState({ state, stream: entries, notes: notesArea.value, notesSaved } satisfies Saved);
}

function persist(): void {
  // The stream changes many times a second: write the state at most twice a second.
  persistTimer ??= window.setTimeout(persistNow, 500);
}
// A view that is being hidden may not live for the next tick: keep what was typed.
document.addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && persistNow());

const post = (m: SteeringViewMessage) => vscode.postMessage(m);

// ---- skeleton ----------------------------------------------------------------------------------

const STEPS = ['plan', 'approve', 'code', 'screen', 'evaluate', 'analyze', 'decide'] as const;
const STEP_LABEL: Record<(typeof STEPS)[number] | 'done', string> = {
  plan: 'Plan',
  approve: 'Approve',
  code: 'Code',
  screen: 'Screen',
  evaluate: 'Evaluate',
  analyze: 'Analyze',
  decide: 'Decide',
  done: 'Done',
};
const ROLE_LABEL: Record<AgentRole, string> = { planner: 'Planner', coder: 'Coder', tuner: 'Tuner' };

function section(id: string, title: string, ...body: Child[]): HTMLElement {
  return h('section', { 'aria-labelledby': `h-${id}`, id: `s-${id}` }, h('h2', { id: `h-${id}` }, title), ...body);
}

const phaseBadge = h('span', { class: 'phase' });
const cycleLine = h('span', { class: 'cycle-line' });
const titleLine = h('p', { class: 'title' });
const stepLive = h('p', { class: 'visually-hidden', 'aria-live': 'polite', 'aria-atomic': 'true' });
const stepItems = STEPS.map((s) =>
  h(
    'li',
    { class: 'step' },
    h('span', { class: 'bar', 'aria-hidden': 'true' }),
    h('span', { class: 'label' }, STEP_LABEL[s]),
    h('span', { class: 'visually-hidden state' }),
  ),
);
const stepper = h('ol', { class: 'stepper', 'aria-label': 'Cycle steps' }, ...stepItems);
const note = h('p', { class: 'note', role: 'status' });
// Start and Resume share a button: a paused cycle can only be resumed (starting would resume it too).
const go = button('Start', () => post({ type: 'control', action: state?.phase === 'paused' ? 'resume' : 'start' }));
const pauseBtn = button('Pause', () => post({ type: 'control', action: 'pause' }), {
  secondary: true,
  title: 'Stop when the current step ends; Resume continues from there',
});
const stopBtn = button('Stop', () => post({ type: 'control', action: 'stop' }), {
  secondary: true,
  title: 'Interrupt the current step now; Resume runs it again',
});
const abandonBtn = button('Abandon', () => post({ type: 'control', action: 'abandon' }), {
  secondary: true,
  title: 'Give up the interrupted cycle (its candidate is discarded); Start then begins a new one',
});
const controlBar = h('div', { class: 'controls', role: 'toolbar', 'aria-label': 'Cycle controls' }, go, pauseBtn, stopBtn, abandonBtn);

// What the cycle is doing right now: a bar for the evaluation under way, a model call being retried,
// and why the last run stopped, with the actions that fix it.
const whyLine = h('p', { class: 'why' });
const familiesLine = h('p', { class: 'families' });
// Start with no models configured runs the offline tuner: said before it happens, with the fix.
const agentHint = h(
  'p',
  { class: 'muted small agent-hint' },
  'Start runs the offline tuner: no LLM models are configured. ',
  linkButton('Configure Models…', () => post({ type: 'fix', action: 'configureModels' })),
);
const progressLabel = h('span', { class: 'progress-label' });
const progressBar = h('progress', { max: '1', value: '0', 'aria-label': 'Evaluation progress' });
const progressDetail = h('span', { class: 'muted small progress-detail' });
const progressBox = h('div', { class: 'progress-box', role: 'group', 'aria-label': 'Evaluation under way' }, progressLabel, progressBar, progressDetail);
const retryText = h('span', {});
const retryBox = h(
  'div',
  { class: 'card warn', role: 'alert' },
  retryText,
  h(
    'div',
    { class: 'row' },
    button('Retry Now', () => post({ type: 'retryNow' })),
  ),
);
const problemText = h('p', { class: 'problem-text' });
const problemActions = h('div', { class: 'row', role: 'group', 'aria-label': 'Fixes' });
const problemBox = h('div', { class: 'card error', role: 'alert' }, h('strong', {}, 'The last run stopped: '), problemText, problemActions);
const FIX_LABEL: Record<FixAction, string> = {
  setApiKey: 'Set API Key…',
  configureModels: 'Configure Models…',
  openConfig: 'Open satlution.yaml',
  resume: 'Resume',
  showLog: 'Show Log',
  runTuner: 'Run the Tuner Instead',
};

const planSection = section('plan', 'Plan awaiting approval');
planSection.classList.add('plan');
planSection.hidden = true;

const logEl = h('div', { class: 'log', role: 'log', 'aria-label': 'Agent activity', 'aria-live': 'off', tabindex: '0' });
const jump = linkButton('↓ Latest activity', () => {
  logEl.scrollTop = logEl.scrollHeight;
  jump.hidden = true;
});
jump.classList.add('jump');
jump.hidden = true;
const transcriptLink = linkButton('Open transcript…', () => post({ type: 'openTranscript' }), { aria: 'Open an agent transcript as a document' });
const emptyLog = h('p', { class: 'muted empty' }, 'The planner, coder and tuner show their work here while a cycle runs.');

// resize: none: vscode-textarea draws its resize grip from a data: image, which the view's CSP blocks.
const notesArea = h('vscode-textarea', {
  id: 'notes',
  rows: '4',
  resize: 'none',
  label: 'Direction notes for the next cycle',
  placeholder: 'e.g. Focus on UNSAT instances; avoid touching the proof output.',
});
const notesStatus = h('span', { class: 'muted small', role: 'status' });
const notesSave = button('Save Notes', () => post({ type: 'saveNotes', text: notesArea.value }), { secondary: true });

const approvalSelect = h('vscode-single-select', { id: 'approval', 'aria-label': 'Plan approval mode' });
const APPROVAL_LABEL: Record<ApprovalMode, string> = { manual: 'manual — every step', semi: 'semi — each plan', auto: 'auto — unattended' };
const APPROVAL_HELP: Record<ApprovalMode, string> = {
  manual: 'Asks before every step that needs a person.',
  semi: 'Each plan waits here for approval before the coder starts.',
  auto: 'Plans go straight to the coder; Pause or Stop any time.',
};
for (const m of ApprovalMode.options) approvalSelect.append(h('vscode-option', { value: m, description: APPROVAL_HELP[m] }, APPROVAL_LABEL[m]));
const approvalHelp = h('p', { class: 'muted small', id: 'approval-help' });
approvalSelect.setAttribute('aria-describedby', 'approval-help');

const noticeEl = h('p', { class: 'notice', role: 'status', 'aria-live': 'polite' });
noticeEl.hidden = true;

const noWorkspace = h('p', { class: 'muted' }, 'No SATLUTION workspace in this window.');

const main = h(
  'div',
  { class: 'main' },
  h(
    'header',
    { class: 'status' },
    h('div', { class: 'status-row' }, phaseBadge, cycleLine),
    titleLine,
    stepper,
    stepLive,
    note,
    whyLine,
    familiesLine,
    agentHint,
    progressBox,
    retryBox,
    problemBox,
    controlBar,
  ),
  noticeEl,
  planSection,
  section('stream', 'Agents', h('div', { class: 'log-wrap' }, logEl, jump), h('p', { class: 'log-links' }, transcriptLink)),
  section(
    'notes',
    'Direction',
    h('label', { for: 'notes', class: 'field-label' }, 'Notes for the next cycles (the planner reads them)'),
    notesArea,
    h('div', { class: 'row' }, notesSave, notesStatus),
  ),
  section('approval-mode', 'Approval', h('label', { for: 'approval', class: 'field-label' }, 'When a plan needs a person'), approvalSelect, approvalHelp),
);
root.append(noWorkspace, main);

// ---- behaviour ---------------------------------------------------------------------------------

notesArea.addEventListener('input', () => {
  updateNotesStatus();
  persist();
});
notesArea.addEventListener('keydown', (e: KeyboardEvent) => {
  // Ctrl/Cmd+Enter saves, as in VS Code's own input boxes.
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    post({ type: 'saveNotes', text: notesArea.value });
  }
});
approvalSelect.addEventListener('change', () => {
  const m = ApprovalMode.safeParse(approvalSelect.value);
  if (m.success && m.data !== state?.approval) post({ type: 'setApproval', mode: m.data });
  approvalHelp.textContent = m.success ? APPROVAL_HELP[m.data] : '';
});
logEl.addEventListener('scroll', () => {
  if (atBottom()) jump.hidden = true;
});

/** Notes as the host saves them (line endings, trailing space): an edit that only differs so is no edit. */
const sameNotes = (a: string, b: string) => a.replace(/\r\n?/g, '\n').trimEnd() === b.replace(/\r\n?/g, '\n').trimEnd();

function updateNotesStatus(): void {
  const dirty = !sameNotes(notesArea.value, notesSaved);
  notesStatus.textContent = dirty ? 'Unsaved changes' : notesSaved ? 'Saved' : '';
  notesSave.disabled = !live || !dirty;
}

let noticeTimer: number | undefined;
function showNotice(level: 'info' | 'error', text: string): void {
  noticeEl.textContent = text;
  noticeEl.className = `notice ${level}`;
  noticeEl.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = window.setTimeout(() => (noticeEl.hidden = true), level === 'error' ? 12000 : 5000);
}

// ---- rendering the state -----------------------------------------------------------------------

const PHASE_LABEL: Record<SteeringState['phase'], string> = {
  none: '',
  idle: 'Idle',
  running: 'Running',
  'awaiting-approval': 'Awaiting approval',
  paused: 'Paused',
};

function renderState(s: SteeringState | undefined): void {
  const none = !s || s.phase === 'none';
  noWorkspace.hidden = !none;
  main.hidden = none;
  if (none || !s) return;
  const phase = s.pausing ? 'pausing' : s.phase;
  phaseBadge.className = `phase p-${phase}`;
  phaseBadge.textContent = s.pausing ? 'Pausing' : PHASE_LABEL[s.phase];
  cycleLine.textContent = [s.cycle ? `Cycle ${s.cycle}` : '', s.candidate ?? '', s.agent ? `(${s.agent === 'llm' ? 'LLM agents' : 'tuner'})` : '']
    .filter(Boolean)
    .join(' · ');
  titleLine.textContent = s.title ?? '';
  titleLine.hidden = !s.title;
  renderSteps(s);
  note.textContent = s.pausing
    ? 'Pausing when the current step ends…'
    : s.phase === 'paused'
      ? `Stopped before ${s.step ? STEP_LABEL[s.step].toLowerCase() : 'the next step'}. Resume continues${s.step === 'approve' ? ' and asks for approval again' : ' there'}.`
      : // With a Why below, the outcome's own figures stay in the tooltip; a veto the Why does not say is shown (outcomeLine).
        s.phase === 'idle' && s.outcome
        ? `Last cycle: ${outcomeLine(s.outcome, !!s.why)}`
        : s.phase === 'idle'
          ? 'No cycle in progress.'
          : '';
  note.hidden = !note.textContent;
  note.title = s.phase === 'idle' && s.outcome ? s.outcome : '';
  whyLine.textContent = s.why ? `Why: ${s.why}` : '';
  whyLine.hidden = !s.why;
  familiesLine.textContent = s.families ? `By family: ${s.families}` : '';
  familiesLine.hidden = !s.families;
  // A family that got slower beyond the tolerance stands out (core/familyReport.ts familyGlance).
  familiesLine.classList.toggle('slower', !!s.families && s.families.includes('slower beyond'));
  agentHint.hidden = !(s.nextAgent === 'tuner' && (s.phase === 'idle' || s.phase === 'paused'));
  renderProgress(s.progress);
  renderRetry(s.retry);
  renderProblem(s.problem);
  const active = s.phase === 'running' || s.phase === 'awaiting-approval';
  const resume = s.phase === 'paused';
  go.textContent = resume ? 'Resume' : 'Start';
  go.title = resume ? `Continue cycle ${s.cycle} from ${s.step ?? 'where it stopped'}` : 'Start an evolution cycle';
  go.disabled = !live || active;
  go.secondary = active; // the action of the moment is the primary button
  pauseBtn.disabled = !live || !active || s.pausing;
  stopBtn.disabled = !live || !active;
  // Abandon is for an interrupted cycle only: a running one is stopped first.
  abandonBtn.hidden = !resume;
  abandonBtn.disabled = !live;
  renderPlan(s.pending);
  if (s.approval && approvalSelect.value !== s.approval) approvalSelect.value = s.approval;
  approvalSelect.disabled = !live || s.approval === null;
  approvalHelp.textContent = s.approval ? APPROVAL_HELP[s.approval] : 'satlution.yaml has problems: fix them to change this here.';
  transcriptLink.hidden = !s.transcripts;
  updateNotesStatus();
}

const clock = (sec: number) => `${Math.floor(sec / 60)}:${String(Math.round(sec % 60)).padStart(2, '0')}`;

function renderProgress(p: ProgressView | null): void {
  progressBox.hidden = !p;
  if (!p) return;
  // A stage without instances (the rules check, the build) has no count and no bar.
  progressLabel.textContent = `${p.what}${p.candidate ? ` · ${p.candidate}` : ''}${p.total ? `: ${p.done} of ${p.total}` : ''}`;
  progressBar.hidden = !p.total;
  progressBar.value = p.total ? p.done / p.total : 0;
  progressBar.setAttribute('aria-valuetext', `${p.done} of ${p.total}`);
  progressDetail.textContent = [`${clock(p.elapsedS)} elapsed`, p.etaS !== null ? `about ${clock(p.etaS)} left` : '', p.last ? `last: ${p.last}` : '']
    .filter(Boolean)
    .join(' · ');
}

function renderRetry(r: RetryView | null): void {
  retryBox.hidden = !r;
  if (r) retryText.textContent = `${r.role}: ${r.message}. Retrying in ${r.seconds} s.`;
}

let shownProblem = '';
function renderProblem(p: Problem | null): void {
  problemBox.hidden = !p;
  const key = p ? `${p.text}\n${p.actions.join()}\n${live}` : '';
  if (!p || key === shownProblem) return;
  shownProblem = key;
  problemText.textContent = p.text;
  problemActions.replaceChildren(
    ...p.actions.map((a, i) => {
      const b = button(FIX_LABEL[a], () => post({ type: 'fix', action: a }), { secondary: i > 0 });
      b.disabled = !live;
      return b;
    }),
  );
}

let lastAnnounced = '';
function renderSteps(s: SteeringState): void {
  // Only strategies that screen proposals (a judge, duplicate checks) have that step.
  const steps = STEPS.filter((x) => x !== 'screen' || s.screens || s.step === 'screen');
  const current = s.step && s.step !== 'done' ? steps.indexOf(s.step) : -1;
  const finished = s.step === 'done';
  stepItems.forEach((li, j) => {
    const i = steps.indexOf(STEPS[j]!);
    li.hidden = i < 0;
    const st = finished || (current >= 0 && i < current) ? 'done' : i === current ? 'current' : 'todo';
    li.className = `step ${st}${i === current && s.phase === 'paused' ? ' halted' : ''}`;
    if (i === current) li.setAttribute('aria-current', 'step');
    else li.removeAttribute('aria-current');
    li.querySelector('.state')!.textContent = st === 'done' ? ', done' : st === 'current' ? (s.phase === 'paused' ? ', paused here' : ', in progress') : '';
  });
  stepper.hidden = s.step === null;
  const text =
    s.step === null
      ? ''
      : finished
        ? `Cycle ${s.cycle} finished.`
        : `Cycle ${s.cycle}: step ${current + 1} of ${steps.length}, ${STEP_LABEL[s.step]}${s.phase === 'paused' ? ' (paused)' : s.phase === 'awaiting-approval' ? ': the plan awaits your approval' : ''}.`;
  if (text !== lastAnnounced) stepLive.textContent = lastAnnounced = text;
}

let shownPlan = '';
function renderPlan(p: PendingPlan | null): void {
  const key = p ? `${p.candidate}\n${p.where}\n${p.hypothesis}\n${live}` : '';
  if (key === shownPlan) return;
  shownPlan = key;
  planSection.hidden = !p;
  planSection.replaceChildren(planSection.firstElementChild!);
  if (!p) return;
  const candidate = p.candidate;
  // The heading repeats the title the status line shows: the body starts at the first section.
  const body = p.hypothesis.replace(/^\s*#\s[^\n]*\n/, '');
  const doc = h('div', { class: 'hypothesis', tabindex: '0', role: 'document', 'aria-label': `HYPOTHESIS.md of ${candidate}` }, ...markdown(body));
  const reason = h('vscode-textarea', {
    rows: '2',
    resize: 'none',
    label: 'Why is this plan rejected? (optional)',
    placeholder: 'Why not? (optional, recorded with the candidate)',
  });
  const rejectBox = h(
    'div',
    { class: 'reject-box' },
    reason,
    h(
      'div',
      { class: 'row' },
      button('Reject Plan', () => post({ type: 'reject', candidate, ...(reason.value.trim() ? { reason: reason.value.trim().slice(0, LIMITS.reason) } : {}) })),
      button(
        'Cancel',
        () => {
          rejectBox.hidden = true;
          rejectBtn.setAttribute('aria-expanded', 'false');
          rejectBtn.focus();
        },
        { secondary: true },
      ),
    ),
  );
  rejectBox.hidden = true;
  const approve = button('Approve', () => post({ type: 'approve', candidate }), { aria: `Approve the plan for ${candidate}` });
  const edit = button('Edit', () => post({ type: 'editPlan', candidate }), {
    secondary: true,
    aria: `Edit HYPOTHESIS.md of ${candidate}`,
    title: 'Open HYPOTHESIS.md; save your changes, then Approve: the coder works from the file',
  });
  const rejectBtn = button(
    'Reject…',
    () => {
      rejectBox.hidden = false;
      rejectBtn.setAttribute('aria-expanded', 'true');
      reason.focus();
    },
    { secondary: true, aria: `Reject the plan for ${candidate}` },
  );
  rejectBtn.setAttribute('aria-expanded', 'false');
  for (const b of [approve, edit, rejectBtn]) b.disabled = !live;
  planSection.append(
    h(
      'p',
      { class: 'muted small' },
      p.where === 'dialog' ? `${candidate}: a dialog asks too; answer in either place.` : `${candidate}: approve to start coding, or edit HYPOTHESIS.md first.`,
    ),
  );
  planSection.append(doc, h('div', { class: 'row', role: 'group', 'aria-label': 'Plan decision' }, approve, edit, rejectBtn), rejectBox);
}

/** A small, safe Markdown subset (headings, lists, paragraphs, code, bold) rendered with DOM nodes. */
function markdown(text: string): Node[] {
  const out: Node[] = [];
  let list: HTMLElement | undefined;
  let para: string[] = [];
  const inline = (s: string): Node[] =>
    s
      .split(/(`[^`]+`|\*\*[^*]+\*\*)/)
      .filter(Boolean)
      .map((part) =>
        /^`.+`$/.test(part) ? h('code', {}, part.slice(1, -1)) : /^\*\*.+\*\*$/.test(part) ? h('strong', {}, part.slice(2, -2)) : document.createTextNode(part),
      );
  const flush = () => {
    if (para.length) out.push(h('p', {}, ...inline(para.join(' '))));
    para = [];
  };
  let fence: string[] | undefined;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      flush();
      list = undefined;
      if (fence) out.push(h('pre', {}, fence.join('\n')));
      fence = fence ? undefined : [];
      continue;
    }
    if (fence) {
      fence.push(line);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^\s*(?:[-*]|\d+\.)\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      list = undefined;
      out.push(h(heading[1]!.length === 1 ? 'h3' : 'h4', {}, ...inline(heading[2]!)));
    } else if (item) {
      flush();
      if (!list) out.push((list = h(/^\s*\d+\./.test(line) ? 'ol' : 'ul')));
      list.append(h('li', {}, ...inline(item[1]!)));
    } else if (!line.trim()) {
      flush();
      list = undefined;
    } else if (list && /^\s+/.test(line)) list.lastElementChild?.append(` ${line.trim()}`);
    else {
      list = undefined;
      para.push(line.trim());
    }
  }
  flush();
  if (fence) out.push(h('pre', {}, fence.join('\n')));
  return out;
}

// ---- the stream --------------------------------------------------------------------------------

function atBottom(): boolean {
  return logEl.scrollHeight - logEl.scrollTop - logEl.clientHeight < 24;
}

function row(e: StreamEntry): HTMLElement {
  switch (e.kind) {
    case 'text':
      return h('div', { class: `entry text r-${e.role}` }, h('span', { class: 'role' }, ROLE_LABEL[e.role]), h('span', { class: 'body' }, e.text));
    case 'tool':
      return h(
        'div',
        { class: `entry tool ${e.ok ? 'ok' : 'failed'}`, title: e.summary },
        h('span', { class: 'icon', 'aria-hidden': 'true' }, e.ok ? '✓' : '✗'),
        h('span', { class: 'visually-hidden' }, `${ROLE_LABEL[e.role]} tool call ${e.ok ? 'succeeded' : 'failed'}: `),
        h('span', { class: 'name' }, e.name),
        h('span', { class: 'summary' }, e.summary),
      );
    case 'log':
      return h('div', { class: 'entry log-line' }, e.role ? h('span', { class: 'role' }, ROLE_LABEL[e.role]) : null, h('span', { class: 'body' }, e.text));
    case 'step':
      return h('div', { class: 'entry step-mark', role: 'separator' }, h('span', {}, `${STEP_LABEL[e.step]}${e.candidate ? ` · ${e.candidate}` : ''}`));
  }
}

function renderStream(): void {
  logEl.replaceChildren(...entries.map(row));
  logEl.append(emptyLog);
  emptyLog.hidden = entries.length > 0;
  logEl.classList.toggle('is-empty', entries.length === 0);
  logEl.scrollTop = logEl.scrollHeight;
  jump.hidden = true;
}

function applyItems(items: readonly StreamItem[]): void {
  const stick = atBottom();
  for (const it of items) {
    const last = entries[entries.length - 1];
    const merges = it.kind === 'text' && !!it.text && last?.kind === 'text' && last.role === it.role;
    appendStream(entries, [it]);
    const rows = logEl.querySelectorAll(':scope > .entry');
    if (merges) rows[rows.length - 1]?.querySelector('.body')?.replaceChildren((entries[entries.length - 1] as Extract<StreamEntry, { kind: 'text' }>).text);
    else if (it.kind !== 'text' || it.text) logEl.insertBefore(row(entries[entries.length - 1]!), emptyLog);
    // Bounded: the oldest rows leave with their entries.
    for (let extra = logEl.querySelectorAll(':scope > .entry').length - entries.length; extra > 0; extra--) logEl.querySelector(':scope > .entry')?.remove();
  }
  emptyLog.hidden = entries.length > 0;
  logEl.classList.toggle('is-empty', entries.length === 0);
  if (stick) logEl.scrollTop = logEl.scrollHeight;
  else jump.hidden = false;
}

// ---- messages ----------------------------------------------------------------------------------

function resync(): void {
  live = false;
  post({ type: 'ready' });
}

window.addEventListener('message', (ev: MessageEvent<unknown>) => {
  const parsed = SteeringHostMessage.safeParse(ev.data);
  if (!parsed.success) return; // not ours, or malformed: never render it
  const m = parsed.data;
  switch (m.type) {
    case 'snapshot':
      // A host that has just started (window reload) has no history yet: keep what this view showed.
      if (!live && m.seq === 0 && !m.stream.length && entries.length)
        appendStream(entries, [{ kind: 'log', role: null, text: 'The window reloaded: the activity above is from before.' }]);
      else entries = m.stream.map((e) => ({ ...e }));
      live = true;
      state = m.state;
      seq = m.seq;
      setNotes(m.notes);
      shownPlan = '';
      renderStream();
      renderState(state);
      break;
    case 'state':
      if (!live) return;
      state = m.state;
      renderState(state);
      break;
    case 'stream':
      if (!live || m.seq <= seq) return; // before the snapshot, or replayed
      if (m.seq !== seq + 1) return resync(); // a batch was lost: start again from a snapshot
      seq = m.seq;
      applyItems(m.items);
      break;
    case 'notes':
      setNotes(m.text);
      break;
    case 'notice':
      showNotice(m.level, m.text);
      break;
  }
  persist();
});

/** The saved notes from disk; an unsaved draft (typed before a reload) is kept over them. */
function setNotes(text: string): void {
  const draft = notesArea.value;
  const dirty = !sameNotes(draft, notesSaved);
  notesSaved = text;
  if (!dirty || sameNotes(draft, text)) notesArea.value = text;
  updateNotesStatus();
}

// Show the last state at once after a reload or re-show (inert until the host answers), then ask.
notesArea.value = restored.notes ?? notesSaved;
renderStream();
renderState(state);
if (!state) {
  noWorkspace.hidden = true;
  main.hidden = true;
}
post({ type: 'ready' });
