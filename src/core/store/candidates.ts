// The candidate store in .satlution/: who descends from whom, each candidate's status and times, and
// the champion. The JSONL event log is the source of truth (appended and fsynced first); the JSON
// index is a snapshot written atomically after it. If the index is lost or corrupt, it is rebuilt from
// the log and from the SATLUTION_x directories on disk, so no candidate is ever forgotten.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { candidateDirName, parseCandidateDir, STATE_DIR } from '../layout';
import { appendJsonLine, readJsonLines, removeStaleTemps, writeJsonAtomic } from './atomic';
import { withLock } from './lock';
import { CandidateStatus } from './candidateStatus';

export { CandidateStatus } from './candidateStatus';

export const CandidateRecord = z.object({
  id: z.number().int().nonnegative(),
  dir: z.string(),
  parent: z.number().int().nonnegative().nullable(),
  seed: z.string().optional(),
  status: CandidateStatus,
  created_at: z.string(),
  updated_at: z.string(),
  detail: z.string().optional(),
  checkpoint: z.string().optional(),
});
export type CandidateRecord = z.infer<typeof CandidateRecord>;

const StoreIndex = z.object({
  version: z.literal(1),
  champion: z.number().int().nonnegative().nullable(),
  candidates: z.array(CandidateRecord),
});
export type StoreIndex = z.infer<typeof StoreIndex>;

const StoreEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('created'), at: z.string(), candidate: CandidateRecord }),
  z.object({
    type: z.literal('status'),
    at: z.string(),
    id: z.number(),
    status: CandidateStatus,
    detail: z.string().optional(),
  }),
  z.object({ type: z.literal('champion'), at: z.string(), id: z.number().nullable() }),
  z.object({ type: z.literal('checkpoint'), at: z.string(), id: z.number(), commit: z.string() }),
]);
type StoreEvent = z.infer<typeof StoreEvent>;

export interface LoadReport {
  /** Why the index had to be rebuilt, if it was. */
  rebuilt?: string;
  /** Log lines that could not be read (torn by a crash). */
  skippedLogLines: number;
  /** Candidate directories found on disk with no record, now recorded as `unknown`. */
  adopted: number[];
}

export class CandidateStore {
  readonly stateDir: string;
  private readonly indexFile: string;
  private readonly logFile: string;

  constructor(
    readonly workspaceDir: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.stateDir = path.join(workspaceDir, STATE_DIR);
    this.indexFile = path.join(this.stateDir, 'candidates.json');
    this.logFile = path.join(this.stateDir, 'candidates.jsonl');
  }

  /** Reads the store, repairing it from the log and the directories on disk when needed. */
  async load(): Promise<{ index: StoreIndex; report: LoadReport }> {
    const first = await this.read();
    if (first.report.rebuilt === undefined && first.report.adopted.length === 0) return first;
    return withLock(this.stateDir, async () => {
      const again = await this.read(); // another process may have repaired it meanwhile
      await this.persistRepairs(again);
      return again;
    });
  }

  private async read(): Promise<{ index: StoreIndex; report: LoadReport }> {
    const report: LoadReport = { skippedLogLines: 0, adopted: [] };
    let index = await this.readIndex().catch((e: Error) => {
      report.rebuilt = e.message;
      return undefined;
    });
    if (!index) {
      const fromLog = await this.replayLog();
      report.skippedLogLines = fromLog.skipped;
      index = fromLog.index;
    }
    const known = new Set(index.candidates.map((c) => c.id));
    for (const { id, mtime } of await this.scanDirs())
      if (!known.has(id)) {
        const at = mtime.toISOString();
        index.candidates.push({
          id,
          dir: candidateDirName(id),
          parent: null,
          status: 'unknown',
          created_at: at,
          updated_at: at,
          detail: 'found on disk with no record',
        });
        report.adopted.push(id);
      }
    index.candidates.sort((a, b) => a.id - b.id);
    return { index, report };
  }

  /** Writes what `read` repaired: log records for adopted directories, then a fresh index. */
  private async persistRepairs({ index, report }: { index: StoreIndex; report: LoadReport }): Promise<void> {
    if (report.rebuilt === undefined && report.adopted.length === 0) return;
    await fs.mkdir(this.stateDir, { recursive: true });
    for (const id of report.adopted) {
      const c = index.candidates.find((x) => x.id === id)!;
      await this.append({ type: 'created', at: c.created_at, candidate: c });
    }
    await writeJsonAtomic(this.indexFile, index);
  }

  async list(): Promise<StoreIndex> {
    return (await this.load()).index;
  }

  /** Records a new candidate; its id is the next free one (directories on disk count as taken). */
  async create(init: { parent: number | null; seed?: string; status: CandidateStatus; id?: number; detail?: string }): Promise<CandidateRecord> {
    return this.mutate(async (index) => {
      const id = init.id ?? (await this.nextId(index));
      if (index.candidates.some((c) => c.id === id)) throw new Error(`candidate ${candidateDirName(id)} already exists`);
      if (init.parent !== null && !index.candidates.some((c) => c.id === init.parent))
        throw new Error(`parent ${candidateDirName(init.parent)} is not a known candidate`);
      const at = this.now().toISOString();
      const candidate: CandidateRecord = { id, dir: candidateDirName(id), parent: init.parent, status: init.status, created_at: at, updated_at: at };
      if (init.seed) candidate.seed = init.seed;
      if (init.detail) candidate.detail = init.detail;
      return { event: { type: 'created', at, candidate }, result: candidate };
    });
  }

  async setStatus(id: number, status: CandidateStatus, detail?: string): Promise<void> {
    await this.mutate(async (index) => {
      this.mustFind(index, id);
      return { event: { type: 'status', at: this.now().toISOString(), id, status, ...(detail ? { detail } : {}) }, result: undefined };
    });
  }

  async setChampion(id: number | null): Promise<void> {
    await this.mutate(async (index) => {
      if (id !== null) this.mustFind(index, id);
      return { event: { type: 'champion', at: this.now().toISOString(), id }, result: undefined };
    });
  }

  async setCheckpoint(id: number, commit: string): Promise<void> {
    await this.mutate(async (index) => {
      this.mustFind(index, id);
      return { event: { type: 'checkpoint', at: this.now().toISOString(), id, commit }, result: undefined };
    });
  }

  /** The chain from a candidate back to its seed: [id, parent, grandparent, ...]. */
  static lineage(index: StoreIndex, id: number): number[] {
    const byId = new Map(index.candidates.map((c) => [c.id, c]));
    const chain: number[] = [];
    for (let cur: number | null = id; cur !== null && !chain.includes(cur); cur = byId.get(cur)?.parent ?? null) chain.push(cur);
    return chain;
  }

  private async mutate<T>(f: (index: StoreIndex) => Promise<{ event: StoreEvent; result: T }>): Promise<T> {
    await fs.mkdir(this.stateDir, { recursive: true });
    return withLock(this.stateDir, async () => {
      const loaded = await this.read();
      await this.persistRepairs(loaded);
      const { index } = loaded;
      const { event, result } = await f(index);
      await this.append(event); // the log first: once it is on disk, the change survives a crash
      apply(index, event);
      await writeJsonAtomic(this.indexFile, index);
      return result;
    });
  }

  private mustFind(index: StoreIndex, id: number): CandidateRecord {
    const c = index.candidates.find((x) => x.id === id);
    if (!c) throw new Error(`${candidateDirName(id)} is not a known candidate`);
    return c;
  }

  private async nextId(index: StoreIndex): Promise<number> {
    const onDisk = (await this.scanDirs()).map((d) => d.id);
    return Math.max(-1, ...index.candidates.map((c) => c.id), ...onDisk) + 1;
  }

  private async append(e: StoreEvent): Promise<void> {
    await appendJsonLine(this.logFile, e);
  }

  private async readIndex(): Promise<StoreIndex> {
    await removeStaleTemps(this.stateDir);
    let text: string;
    try {
      text = await fs.readFile(this.indexFile, 'utf8');
    } catch (e) {
      throw new Error(`index ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable'}`, { cause: e });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error('index is not valid JSON');
    }
    const r = StoreIndex.safeParse(json);
    if (!r.success) throw new Error(`index does not match the schema (${r.error.issues[0]?.message ?? ''})`);
    return r.data;
  }

  private async replayLog(): Promise<{ index: StoreIndex; skipped: number }> {
    const { records, skipped } = await readJsonLines(this.logFile);
    const index: StoreIndex = { version: 1, champion: null, candidates: [] };
    let bad = skipped;
    for (const r of records) {
      const e = StoreEvent.safeParse(r);
      if (e.success) apply(index, e.data);
      else bad++;
    }
    return { index, skipped: bad };
  }

  private async scanDirs(): Promise<{ id: number; mtime: Date }[]> {
    const entries = await fs.readdir(this.workspaceDir, { withFileTypes: true }).catch(() => []);
    const out: { id: number; mtime: Date }[] = [];
    for (const e of entries) {
      const id = e.isDirectory() ? parseCandidateDir(e.name) : undefined;
      if (id === undefined) continue;
      const st = await fs.stat(path.join(this.workspaceDir, e.name));
      out.push({ id, mtime: st.mtime });
    }
    return out;
  }
}

function apply(index: StoreIndex, e: StoreEvent): void {
  const find = (id: number) => index.candidates.find((c) => c.id === id);
  switch (e.type) {
    case 'created':
      if (!find(e.candidate.id)) index.candidates.push({ ...e.candidate });
      break;
    case 'status': {
      const c = find(e.id);
      if (c) {
        c.status = e.status;
        c.updated_at = e.at;
        if (e.detail) c.detail = e.detail;
        else delete c.detail;
      }
      break;
    }
    case 'champion':
      index.champion = e.id;
      break;
    case 'checkpoint': {
      const c = find(e.id);
      if (c) c.checkpoint = e.commit;
      break;
    }
  }
}
