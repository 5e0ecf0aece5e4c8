// Reading Slurm's view of an array job. squeue and sacct output is text from another program: every
// line is checked and lines that do not parse are ignored rather than trusted, so a format change or a
// warning on stdout degrades to "unknown" instead of a wrong state.
import { z } from 'zod';

/** Job states after which an element will not run again (squeue long names, sacct without suffix). */
const FINISHED = new Set([
  'COMPLETED',
  'FAILED',
  'NODE_FAIL',
  'OUT_OF_MEMORY',
  'TIMEOUT',
  'CANCELLED',
  'BOOT_FAIL',
  'DEADLINE',
  'PREEMPTED',
  'SPECIAL_EXIT',
  'REVOKED',
]);
const WAITING = new Set(['PENDING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED', 'RESV_DEL_HOLD', 'SUSPENDED', 'STOPPED', 'RESIZING']);

export type Phase = 'pending' | 'running' | 'finished';

export interface ElementState {
  index: number;
  /** Slurm's state name, e.g. RUNNING, TIMEOUT, OUT_OF_MEMORY. */
  state: string;
  /** squeue's reason or sacct's exit code: whatever explains the state, '' when nothing does. */
  reason: string;
  phase: Phase;
}

const StateName = z.string().regex(/^[A-Z_]+$/);
const JobId = z.string().regex(/^\d+$/);

export function phaseOf(state: string): Phase {
  if (FINISHED.has(state)) return 'finished';
  if (WAITING.has(state)) return 'pending';
  return 'running'; // RUNNING, CONFIGURING, COMPLETING, SIGNALING, STAGE_OUT...
}

/** `12_[3-5,7%2]` or `12_4`: the element indices of one squeue/sacct job id, [] when it is not ours. */
export function elementIndices(id: string, jobId: string): number[] {
  const m = /^(\d+)_(\d+|\[([0-9,-]+)(?:%\d+)?\])$/.exec(id);
  if (!m || m[1] !== jobId) return [];
  if (m[3] === undefined) return [Number(m[2])];
  const out: number[] = [];
  for (const part of m[3].split(',')) {
    const r = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!r) continue;
    const a = Number(r[1]);
    const b = r[2] === undefined ? a : Number(r[2]);
    for (let i = a; i <= b && i - a < 1_000_000; i++) out.push(i);
  }
  return out;
}

/** Lines of `squeue --array --job ID -h -t all -o '%i %T %r'`. */
export function parseSqueue(stdout: string, jobId: string): ElementState[] {
  JobId.parse(jobId);
  const out: ElementState[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^\s*(\S+)\s+(\S+)\s*(.*)$/.exec(line);
    if (!m) continue;
    const state = StateName.safeParse(m[2]);
    if (!state.success) continue;
    const reason = (m[3] ?? '').trim();
    for (const index of elementIndices(m[1]!, jobId))
      out.push({ index, state: state.data, reason: reason === 'None' ? '' : reason, phase: phaseOf(state.data) });
  }
  return out;
}

/** Lines of `sacct -n -P -X -j ID -o JobID,State,ExitCode`; "CANCELLED by 0" keeps its first word. */
export function parseSacct(stdout: string, jobId: string): ElementState[] {
  JobId.parse(jobId);
  const out: ElementState[] = [];
  for (const line of stdout.split('\n')) {
    const f = line.trim().split('|');
    if (f.length < 3) continue;
    const state = StateName.safeParse((f[1] ?? '').split(' ')[0]);
    if (!state.success) continue;
    const exit = f[2] ?? '';
    for (const index of elementIndices(f[0] ?? '', jobId))
      out.push({ index, state: state.data, reason: exit && exit !== '0:0' ? `exit code ${exit}` : '', phase: phaseOf(state.data) });
  }
  return out;
}
