// One read of a workspace's state — config, candidates, champion, seeds — shared by `satlution status`
// and the extension's views, so both always agree.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { summarizeSet, type BenchSetSummary } from '../instances/sets';
import { parseConfig, type ConfigResult } from '../config/load';
import { hasLastGoodConfig, rememberConfig } from '../config/lastGood';
import { CandidateStore, type CandidateRecord, type LoadReport } from '../store/candidates';
import { CANDIDATE_DOCS, CONFIG_FILE, type CandidateDoc } from '../layout';
import { readSeedRecords, type SeedRecord } from './seedRecords';
import { hasCandidateDoc } from './candidateFs';

export interface CandidateView extends CandidateRecord {
  champion: boolean;
  /** [this, parent, grandparent, ...] */
  lineage: number[];
  docs: CandidateDoc[];
  /** The directory is gone although the store remembers it. */
  missing: boolean;
}

export interface WorkspaceSnapshot {
  dir: string;
  config: ConfigResult;
  champion: number | null;
  candidates: CandidateView[];
  seeds: SeedRecord[];
  /** The configured benchmark sets (empty while the config is invalid). */
  benchmarks: BenchSetSummary[];
  store: LoadReport;
  /** satlution.yaml is gone but the store remains; `restorable`: a last good copy can put it back. */
  configMissing?: { restorable: boolean };
}

export async function isWorkspace(dir: string): Promise<boolean> {
  return fs.stat(path.join(dir, CONFIG_FILE)).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** The nearest directory at or above `start` that holds a satlution.yaml. */
export async function findWorkspace(start: string): Promise<string | undefined> {
  for (let d = path.resolve(start); ; d = path.dirname(d)) {
    if (await isWorkspace(d)) return d;
    if (path.dirname(d) === d) return undefined;
  }
}

export async function readSnapshot(dir: string): Promise<WorkspaceSnapshot> {
  const text = await fs.readFile(path.join(dir, CONFIG_FILE), 'utf8').catch(() => undefined);
  const config: ConfigResult =
    text === undefined
      ? { ok: false, issues: [{ key: '(file)', message: `no ${CONFIG_FILE}`, range: { line: 1, column: 1, endLine: 1, endColumn: 1 } }] }
      : parseConfig(text);
  if (text !== undefined && config.ok) await rememberConfig(dir, text);
  const { index, report } = await new CandidateStore(dir).load();
  const candidates: CandidateView[] = [];
  for (const c of index.candidates) {
    const cdir = path.join(dir, c.dir);
    const missing = !(await fs.stat(cdir).then(
      (s) => s.isDirectory(),
      () => false,
    ));
    const docs: CandidateDoc[] = [];
    if (!missing) for (const d of CANDIDATE_DOCS) if (await hasCandidateDoc(cdir, d)) docs.push(d);
    candidates.push({ ...c, champion: index.champion === c.id, lineage: CandidateStore.lineage(index, c.id), docs, missing });
  }
  const benchmarks = config.ok ? await Promise.all(Object.entries(config.config.benchmarks).map(([name, d]) => summarizeSet(dir, name, d))) : [];
  const configMissing = text === undefined ? { configMissing: { restorable: await hasLastGoodConfig(dir) } } : {};
  return { dir, config, champion: index.champion, candidates, seeds: await readSeedRecords(dir), benchmarks, store: report, ...configMissing };
}
