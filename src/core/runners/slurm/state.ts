// The job-state file: which Slurm job ids hold a batch's tasks. It lives in the shared workdir next
// to the results, so a restarted process (or another machine on the same filesystem) re-attaches to
// the jobs already queued instead of submitting the same work twice.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';

export const JobState = z.object({
  batch: z.string(),
  /** One array job per chunk of at most max_array tasks; keys in array-index order. */
  jobs: z.array(z.object({ id: z.string().regex(/^\d+$/), keys: z.array(z.string()) })),
});
export type JobState = z.infer<typeof JobState>;

/** A batch is its task lines and script: the same work gets the same id after a restart. */
export function batchId(taskFile: string, script: string): string {
  return createHash('sha256').update(taskFile).update('\0').update(script).digest('hex').slice(0, 16);
}

export function stateFile(workdir: string, batch: string): string {
  return path.join(workdir, 'jobs', `${batch}.json`);
}

export function readState(workdir: string, batch: string): JobState | null {
  let text: string;
  try {
    text = fs.readFileSync(stateFile(workdir, batch), 'utf8');
  } catch {
    return null;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null; // a torn or foreign file: treat as absent, results on disk still count
  }
  const p = JobState.safeParse(json);
  return p.success && p.data.batch === batch ? p.data : null;
}

export function writeState(workdir: string, s: JobState): void {
  const f = stateFile(workdir, s.batch);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(`${f}.${process.pid}.tmp`, JSON.stringify(s, null, 1) + '\n');
  fs.renameSync(`${f}.${process.pid}.tmp`, f);
}

export function removeState(workdir: string, batch: string): void {
  fs.rmSync(stateFile(workdir, batch), { force: true });
}
