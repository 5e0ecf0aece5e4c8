// Submitting, following and cancelling the array jobs of one batch. Results on the shared filesystem
// are the source of truth: a task is done when results/<key>.json exists, and it died when its array
// element has ended (or is gone from the queue) without one; Slurm's state then says why.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InstanceResult } from '../../eval/result';
import type { SlurmExec } from './exec';
import { type ElementState, parseSacct, parseSqueue } from './queue';
import { type ArrayOptions, renderScript, renderTaskFile, sbatchArgs, type SlurmTask } from './script';
import { batchId, type JobState, readState, removeState, writeState } from './state';

export interface ArrayBatch {
  opts: ArrayOptions;
  exec: SlurmExec;
  tasks: readonly SlurmTask[];
  /** The cluster's MaxArraySize: bigger batches become several array jobs. */
  maxArray: number;
}

export interface Attached {
  batch: string;
  state: JobState;
  /** True when every job id came from the state file (nothing was submitted now). */
  attached: boolean;
}

export interface Died {
  key: string;
  jobId: string;
  index: number;
  /** Slurm's state (TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, FAILED, CANCELLED...) or GONE. */
  state: string;
  reason: string;
}

export interface Progress {
  total: number;
  pending: number;
  running: number;
  done: number;
  died: number;
}

export interface FollowHooks {
  onResult(key: string, result: InstanceResult): Promise<void> | void;
  onDied(d: Died): Promise<void> | void;
  onProgress?(p: Progress): void;
}

export const resultFile = (workdir: string, key: string) => path.join(workdir, 'results', `${key}.json`);

/** Re-attach to the batch's jobs from the state file, or submit the chunks that have none yet. */
export async function submitOrAttach(b: ArrayBatch): Promise<Attached> {
  const { workdir } = b.opts;
  for (const d of ['tasks', 'results', 'logs', 'jobs']) fs.mkdirSync(path.join(workdir, d), { recursive: true });
  const script = renderScript(b.opts);
  const batch = batchId(renderTaskFile(b.tasks), script);
  const state: JobState = readState(workdir, batch) ?? { batch, jobs: [] };
  const known = new Set(state.jobs.flatMap((j) => j.keys));
  // Tasks whose result is already on the shared filesystem never run again.
  const todo = b.tasks.filter((t) => !known.has(t.key) && !fs.existsSync(resultFile(workdir, t.key)));
  let submitted = false;
  const scriptFile = path.join(workdir, 'tasks', `${batch}.sh`);
  if (todo.length) fs.writeFileSync(scriptFile, script, { mode: 0o755 });
  for (let at = 0; at < todo.length; at += b.maxArray) {
    const chunk = todo.slice(at, at + b.maxArray);
    const taskFile = path.join(workdir, 'tasks', `${batch}-${state.jobs.length}.jsonl`);
    fs.writeFileSync(taskFile, renderTaskFile(chunk));
    const r = await b.exec(['sbatch', ...sbatchArgs(b.opts, chunk.length, scriptFile, taskFile)]);
    // --parsable prints "id" or "id;cluster".
    const id = /^(\d+)(?:;\S+)?\s*$/.exec(r.stdout.trim())?.[1];
    if (r.code !== 0 || !id) throw new Error(`sbatch failed${r.code === null ? ' (is Slurm installed here?)' : ''}: ${(r.stderr || r.stdout).trim().slice(0, 500)}`);
    state.jobs.push({ id, keys: chunk.map((t) => t.key) });
    writeState(workdir, state); // at once: a crash right after sbatch must not lose the id
    submitted = true;
  }
  return { batch, state, attached: !submitted && state.jobs.length > 0 };
}

/** scancel every job of the batch; the state file goes, so a re-run submits what did not finish. */
export async function cancelBatch(b: Pick<ArrayBatch, 'exec' | 'opts'>, a: Attached): Promise<void> {
  const ids = a.state.jobs.map((j) => j.id);
  if (ids.length) {
    const r = await b.exec(['scancel', ...ids]);
    if (r.code !== 0) throw new Error(`scancel ${ids.join(' ')} failed: ${r.stderr.trim().slice(0, 300)}`);
  }
  removeState(b.opts.workdir, a.batch);
}

/** Per cluster (exec), absent until probed: sacct works only where accounting (slurmdbd) is kept. */
const sacctWorks = new WeakMap<SlurmExec, boolean>();

async function elementStates(exec: SlurmExec, jobId: string): Promise<Map<number, ElementState> | null> {
  const q = await exec(['squeue', '--array', '--job', jobId, '-h', '-t', 'all', '-o', '%i %T %r']);
  const states = new Map<number, ElementState>();
  if (q.code === 0) for (const s of parseSqueue(q.stdout, jobId)) states.set(s.index, s);
  // "Invalid job id": purged from the controller's memory (MinJobAge); anything else is transient.
  else if (!/invalid job id/i.test(q.stderr)) return null;
  if (sacctWorks.get(exec) !== false) {
    const a = await exec(['sacct', '-n', '-P', '-X', '-j', jobId, '-o', 'JobID,State,ExitCode']);
    const works = a.code === 0 && !/accounting storage is disabled/i.test(a.stdout + a.stderr);
    sacctWorks.set(exec, works);
    // squeue is fresher for elements it still lists; sacct fills in the ones it forgot.
    if (works) for (const s of parseSacct(a.stdout, jobId)) if (!states.has(s.index)) states.set(s.index, s);
  }
  return states;
}

function readResult(file: string): InstanceResult | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  let json: unknown;
  try {
    json = JSON.parse(text.trim().split('\n').pop() ?? '');
  } catch {
    return null;
  }
  const p = InstanceResult.safeParse(json);
  return p.success ? p.data : null;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

export interface FollowOptions {
  pollMs?: number;
  signal?: AbortSignal;
  /** Polls a COMPLETED element may lack its result (shared filesystems show files late). */
  completedGrace?: number;
  /** Consecutive failed squeue calls before giving up (a controller restart takes a while). */
  maxQueueErrors?: number;
}

/**
 * Follows the batch until every task has a result or died; on abort, scancels and returns false.
 * Each task is reported exactly once.
 */
export async function follow(b: Pick<ArrayBatch, 'exec' | 'opts'>, a: Attached, hooks: FollowHooks, o: FollowOptions = {}): Promise<boolean> {
  const { workdir } = b.opts;
  const reported = new Set<string>();
  const late = new Map<string, number>();
  const total = a.state.jobs.reduce((n, j) => n + j.keys.length, 0);
  let died = 0;
  let queueErrors = 0;
  for (;;) {
    if (o.signal?.aborted) {
      await cancelBatch(b, a);
      return false;
    }
    const p: Progress = { total, pending: 0, running: 0, done: 0, died };
    for (const job of a.state.jobs) {
      // Queue first, files second: an element seen finished has already written its result.
      const states = await elementStates(b.exec, job.id);
      if (!states) {
        if (++queueErrors >= (o.maxQueueErrors ?? 30)) throw new Error(`squeue keeps failing for job ${job.id}`);
        continue;
      }
      queueErrors = 0;
      for (const [index, key] of job.keys.entries()) {
        if (reported.has(key)) continue;
        const result = readResult(resultFile(workdir, key));
        if (result) {
          reported.add(key);
          await hooks.onResult(key, result);
          continue;
        }
        const s = states.get(index);
        if (s && s.phase !== 'finished') {
          p[s.phase]++;
          continue;
        }
        if (s?.state === 'COMPLETED') {
          const n = (late.get(key) ?? 0) + 1;
          late.set(key, n);
          if (n <= (o.completedGrace ?? 5)) continue;
        }
        reported.add(key);
        died++;
        await hooks.onDied({
          key,
          jobId: job.id,
          index,
          state: s?.state ?? 'GONE',
          reason: !s ? 'left the queue without a result (cancelled while pending, or purged after it ended)'
            : s.state === 'COMPLETED' ? 'completed without writing a result'
            : `${s.state}${s.reason ? `: ${s.reason}` : ''} (task log: ${path.join(workdir, 'logs', `${job.id}_${index}.out`)})`,
        });
      }
    }
    p.done = reported.size - died;
    p.died = died;
    hooks.onProgress?.(p);
    if (reported.size >= total) {
      removeState(workdir, a.batch); // results are on disk; a re-run resubmits only what died
      return true;
    }
    await sleep(o.pollMs ?? 2000, o.signal);
  }
}
