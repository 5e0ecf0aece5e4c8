// Provenance of the imported seeds (.satlution/seeds.json): where each came from and when.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { writeJsonAtomic } from '../store/atomic';
import { STATE_DIR } from '../layout';
import type { ImportedSeed } from './seeds';

export const SeedRecord = z.object({
  name: z.string(),
  source: z.string(),
  commit: z.string().optional(),
  files: z.number(),
  bytes: z.number(),
  imported_at: z.string(),
});
export type SeedRecord = z.infer<typeof SeedRecord>;

const file = (dir: string) => path.join(dir, STATE_DIR, 'seeds.json');

export async function recordSeeds(dir: string, seeds: ImportedSeed[], now = new Date()): Promise<void> {
  const records: SeedRecord[] = [...(await readSeedRecords(dir))];
  for (const s of seeds)
    records.push({ name: s.name, source: s.source, files: s.files, bytes: s.bytes, imported_at: now.toISOString(), ...(s.commit ? { commit: s.commit } : {}) });
  await writeJsonAtomic(file(dir), records);
}

/** The recorded seeds; an unreadable file yields none (the seeds/ directories remain the truth). */
export async function readSeedRecords(dir: string): Promise<SeedRecord[]> {
  const text = await fs.readFile(file(dir), 'utf8').catch(() => '[]');
  try {
    const r = z.array(SeedRecord).safeParse(JSON.parse(text));
    return r.success ? r.data : [];
  } catch {
    return [];
  }
}
