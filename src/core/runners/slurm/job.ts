// Submitting, following and cancelling the array jobs of one batch. Results in the shared workdir
// are the source of truth: a task is done when results/<key>.json holds a result, and it died when
// its array element has ended (or is gone from the queue) without one; Slurm's state then says why.
import { createHash } from 'node:crypto';
import { InstanceResult } from '../../run/result';
import type { SlurmExec } from './exec';
import { type ElementState, parseSacct, parseSqueue } from './queue';
import { type ArrayOptions, renderScript, renderTaskFile, sbatchArgs, type SlurmTask } from './script';
import type { SharedDir } from './shared';
import { JOBS_DIR, type JobRecord, liveRecords, readRecords, removeRecord, writeRecord } from './jobState';

export interface ArrayBatch {
  /** opts.workdir is dir.root. */
  opts: ArrayOptions;
  exec: SlurmExec;
  dir: SharedDir;
  tasks: readonly SlurmTask[];
  /** The cluster's MaxArraySize: bigger batches become several array jobs. */
  maxArray: number;
}

export interface Attached {
  /** The array jobs holding this batch's tasks; per array index our task key, or null (not ours). */
  jobs: JobRecord[];
  /** Results already in the workdir when we looked (a run that ended while nobody followed it). */
  ready: Map<string, InstanceResult>;
  /** Ids of the jobs submitted now; the others were found in job records. */
  submitted: string[];
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

export const resultFile = (key: string) => `results/${key}.json`;
const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

/** A result file's text as a result, or null when it is not one (torn, foreign, or garbage). */
export function parseResultFile(text: string | undefined): InstanceResult | null {
  if (!text) return null;
  try {
    const p = InstanceResult.safeParse(JSON.parse(text.trim().split('\n').pop() ?? ''));
    return p.success ? p.data : null;
  } catch {
    return null;
  }
}

/** Takes results already there, re-attaches to jobs that hold the other tasks, submits the rest. */
export async function submitOrAttach(b: ArrayBatch): Promise<Attached> {
  const { dir } = b;
  await dir.mkdirs(['tasks', 'results', 'logs', JOBS_DIR]);
  const present = new Set(await dir.list('results'));
  const texts = await dir.readMany(b.tasks.filter((t) => present.has(`${t.key}.json`)).map((t) => resultFile(t.key)));
  const ready = new Map<string, InstanceResult>();
  const holder = new Map<string, { record: JobRecord; index: number }>();
  for (const record of await liveRecords(dir)) for (const [index, key] of record.keys.entries()) if (key) holder.set(key, { record, index });
  const mine = new Map<string, JobRecord>();
  const todo: SlurmTask[] = [];
  for (const t of b.tasks) {
    const r = parseResultFile(texts.get(resultFile(t.key)));
    if (r) {
      ready.set(t.key, r);
      continue;
    }
    const h = holder.get(t.key);
    if (!h) {
      todo.push(t);
      continue;
    }
    const j = mine.get(h.record.id) ?? { id: h.record.id, keys: h.record.keys.map(() => null) };
    j.keys[h.index] = t.key;
    mine.set(j.id, j);
  }
  const jobs = [...mine.values()];
  const submitted: string[] = [];
  if (todo.length) {
    const script = renderScript(b.opts);
    const scriptFile = `tasks/${hash(script)}.sh`;
    await dir.write(scriptFile, script);
    for (let at = 0; at < todo.length; at += b.maxArray) {
      const chunk = todo.slice(at, at + b.maxArray);
      const lines = renderTaskFile(chunk);
      const taskFile = `tasks/${hash(lines)}.jsonl`;
      await dir.write(taskFile, lines);
      const r = await b.exec(['sbatch', ...sbatchArgs(b.opts, chunk.length, `${dir.root}/${scriptFile}`, `${dir.root}/${taskFile}`)]);
      // --parsable prints "id" or "id;cluster".
      const id = /^(\d+)(?:;\S+)?\s*$/.exec(r.stdout.trim())?.[1];
      if (r.code !== 0 || !id)
        throw new Error(`sbatch failed${r.code === null ? ' (is Slurm installed where it runs?)' : ''}: ${(r.stderr || r.stdout).trim().slice(0, 500)}`);
      const record = { id, keys: chunk.map((t) => t.key) };
      await writeRecord(dir, record); // at once: a crash right after sbatch must not lose the id
      jobs.push(record);
      submitted.push(id);
    }
  }
  return { jobs, ready, submitted };
}

/** scancel the batch's jobs and forget them, so a re-run submits what did not finish. */
export async function cancelBatch(b: Pick<ArrayBatch, 'exec' | 'dir'>, a: Attached): Promise<void> {
  const ids = a.jobs.map((j) => j.id);
  if (!ids.length) return;
  const r = await b.exec(['scancel', ...ids]);
  if (r.code !== 0) throw new Error(`scancel ${ids.join(' ')} failed: ${r.stderr.trim().slice(0, 300)}`);
  for (const id of ids) await removeRecord(b.dir, id);
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

/** A died element's key leaves its record, so a re-run submits it again instead of finding it dead. */
async function forgetElement(dir: SharedDir, id: string, index: number): Promise<void> {
  const rec = (await readRecords(dir)).find((r) => r.id === id);
  if (!rec) return;
  rec.keys[index] = null;
  await (rec.keys.some(Boolean) ? writeRecord(dir, rec) : removeRecord(dir, id));
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
  /** Ask the queue every this many polls (results are read every poll): clusters frown on busy squeue loops. */
  queueEvery?: number;
  /** Seconds the queue may keep failing before giving up (a controller restart takes a while). */
  queueDownS?: number;
}

/**
 * Follows the batch until every task has a result or died; on abort, scancels and returns false.
 * Each task is reported exactly once.
 */
export async function follow(b: Pick<ArrayBatch, 'exec' | 'dir'>, a: Attached, hooks: FollowHooks, o: FollowOptions = {}): Promise<boolean> {
  const { dir } = b;
  const reported = new Set<string>();
  const late = new Map<string, number>();
  const total = a.ready.size + a.jobs.reduce((n, j) => n + j.keys.filter(Boolean).length, 0);
  for (const [key, r] of a.ready) {
    reported.add(key);
    await hooks.onResult(key, r);
  }
  let died = 0;
  let queueDownSince: number | undefined;
  let poll = 0;
  const ended = new Set<string>(); // jobs with no element left pending or running
  // Per job, Slurm's latest answer (null: the queue did not answer); kept between queue polls.
  const states = new Map<string, Map<number, ElementState> | null>();
  for (;;) {
    if (o.signal?.aborted) {
      await cancelBatch(b, a);
      return false;
    }
    const p: Progress = { total, pending: 0, running: 0, done: 0, died };
    // Queue first, files second: an element seen finished has already written its result.
    if (poll++ % (o.queueEvery ?? 5) === 0) {
      for (const job of a.jobs) {
        const s = await elementStates(b.exec, job.id);
        states.set(job.id, s);
        if (s && ![...s.values()].some((e) => e.phase !== 'finished')) ended.add(job.id);
      }
      if (a.jobs.length && a.jobs.every((j) => states.get(j.id) === null)) {
        queueDownSince ??= Date.now();
        if (Date.now() - queueDownSince > (o.queueDownS ?? 300) * 1000)
          throw new Error(
            `squeue has been failing for ${o.queueDownS ?? 300} s (job ${a.jobs.map((j) => j.id).join(', ')}); the jobs may still run: evaluate again later to re-attach`,
          );
      } else queueDownSince = undefined;
    }
    const present = new Set(await dir.list('results'));
    const open = a.jobs.flatMap((j) => j.keys).filter((k): k is string => !!k && !reported.has(k) && present.has(`${k}.json`));
    const texts = await dir.readMany(open.map(resultFile));
    for (const job of a.jobs) {
      const st = states.get(job.id);
      for (const [index, key] of job.keys.entries()) {
        if (!key || reported.has(key)) continue;
        const result = parseResultFile(texts.get(resultFile(key)));
        if (result) {
          reported.add(key);
          await hooks.onResult(key, result);
          continue;
        }
        if (!st) continue; // the queue did not answer: decide nothing this round
        const s = st.get(index);
        if (s && s.phase !== 'finished') {
          p[s.phase]++;
          continue;
        }
        if (s?.state === 'COMPLETED' || (!s && present.has(`${key}.json`))) {
          const n = (late.get(key) ?? 0) + 1;
          late.set(key, n);
          if (n <= (o.completedGrace ?? 10)) continue;
        }
        reported.add(key);
        died++;
        await forgetElement(dir, job.id, index);
        await hooks.onDied({
          key,
          jobId: job.id,
          index,
          state: s?.state ?? 'GONE',
          reason: !s
            ? 'left the queue without a result (cancelled while pending, or purged after it ended)'
            : s.state === 'COMPLETED'
              ? 'completed without writing a result'
              : `${s.state}${s.reason ? `: ${s.reason}` : ''} (task log: ${dir.root}/logs/${job.id}_${index}.out)`,
        });
      }
    }
    p.done = reported.size - died;
    p.died = died;
    hooks.onProgress?.(p);
    if (reported.size >= total) {
      // Results are in the workdir: a record is only needed while its job still runs elements.
      for (const j of a.jobs) {
        if (!ended.has(j.id)) {
          const s = await elementStates(b.exec, j.id); // one last look: the last poll may predate the end
          if (!s || [...s.values()].some((e) => e.phase !== 'finished')) continue;
        }
        await removeRecord(dir, j.id);
      }
      return true;
    }
    await sleep(o.pollMs ?? 2000, o.signal);
  }
}
