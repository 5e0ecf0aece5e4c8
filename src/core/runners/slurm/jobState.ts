// Job records: which Slurm array job holds which tasks. One file per array job, jobs/<id>.json in
// the shared workdir, written the moment sbatch answers, so a restarted process (or another machine
// on the same filesystem) re-attaches to the work already queued instead of submitting it twice.
// Records are keyed by task, not by batch: after a restart the evaluator asks only for the runs it
// has not stored yet, and those still find the jobs that hold them.
import { z } from 'zod';
import type { SharedDir } from './shared';

export const JobRecord = z.object({
  id: z.string().regex(/^\d+$/),
  /** Task keys in array-index order; null once that element died (a re-run submits it again). */
  keys: z.array(z.string().nullable()),
});
export type JobRecord = z.infer<typeof JobRecord>;

export const JOBS_DIR = 'jobs';
export const recordFile = (id: string) => `${JOBS_DIR}/${id}.json`;

/** Every readable record; torn or foreign files are skipped (results on disk still count). */
export async function readRecords(dir: SharedDir): Promise<JobRecord[]> {
  const names = (await dir.list(JOBS_DIR)).filter((n) => /^\d+\.json$/.test(n));
  const texts = await dir.readMany(names.map((n) => `${JOBS_DIR}/${n}`));
  const out: JobRecord[] = [];
  for (const text of texts.values()) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      continue;
    }
    const p = JobRecord.safeParse(json);
    if (p.success) out.push(p.data);
  }
  return out;
}

export const writeRecord = (dir: SharedDir, r: JobRecord) => dir.write(recordFile(r.id), JSON.stringify(r) + '\n');
export const removeRecord = (dir: SharedDir, id: string) => dir.remove(recordFile(id));

/** The records that still hold runs without a result; the others are removed (their job is over). */
export async function liveRecords(dir: SharedDir): Promise<JobRecord[]> {
  const present = new Set(await dir.list('results'));
  const live: JobRecord[] = [];
  for (const r of await readRecords(dir)) {
    if (r.keys.some((k) => k && !present.has(`${k}.json`))) live.push(r);
    else await removeRecord(dir, r.id);
  }
  return live;
}
