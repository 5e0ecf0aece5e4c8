// Results of solver runs, appended as JSONL as each run ends (fsynced), keyed by what determines
// them: the solver's binaries, the instance's content and the limits. A run whose key has a result is
// never repeated, so a killed evaluation resumes where it stopped and identical binaries are not
// benchmarked twice. A line torn by a crash is skipped on reading.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { appendJsonLine, readJsonLines } from '../store/atomic';
import { StoredRun, type InstanceResult } from '../run/result';

export interface RunKeyParts {
  solverHash: string;
  instanceHash: string;
  timeoutS: number;
  memMb: number;
  checkProofs: boolean;
  /** The output cap (evaluation.output_max_mb); absent means the default. */
  maxOutputMb?: number;
}

/** The output cap every run had before it was configurable: keys without a cap mean this one. */
const DEFAULT_OUTPUT_MB = 256;

/**
 * The key of a stored run: every limit that can change its outcome. The output cap joins the key only
 * when it is not the old fixed 256 MB, so results stored before it was configurable stay valid.
 */
export function runKey(p: RunKeyParts): string {
  const cap = p.maxOutputMb !== undefined && p.maxOutputMb !== DEFAULT_OUTPUT_MB ? [p.maxOutputMb] : [];
  return createHash('sha256').update(JSON.stringify(['v1', p.solverHash, p.instanceHash, p.timeoutS, p.memMb, p.checkProofs, ...cap])).digest('hex').slice(0, 32);
}

export class ResultsStore {
  private runs: Map<string, StoredRun> | undefined;
  /** The same runs by instance hash: the per-instance lookups run once per instance scheduled. */
  private byInstance: Map<string, StoredRun[]> | undefined;
  skipped = 0;

  constructor(readonly file: string) {}

  async load(): Promise<Map<string, StoredRun>> {
    if (this.runs) return this.runs;
    const { records, skipped } = await readJsonLines(this.file);
    this.skipped = skipped;
    this.runs = new Map();
    for (const r of records) {
      const p = StoredRun.safeParse(r);
      if (p.success) this.runs.set(p.data.key, p.data);
      else this.skipped++;
    }
    return this.runs;
  }

  async add(run: StoredRun): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    await appendJsonLine(this.file, run);
    (await this.load()).set(run.key, run);
    if (this.byInstance) {
      const list = this.byInstance.get(run.instance_hash);
      if (list) list.push(run);
      else this.byInstance.set(run.instance_hash, [run]);
    }
  }

  private async ofInstance(hash: string): Promise<StoredRun[]> {
    if (!this.byInstance) {
      this.byInstance = new Map();
      for (const r of (await this.load()).values()) {
        const list = this.byInstance.get(r.instance_hash);
        if (list) list.push(r);
        else this.byInstance.set(r.instance_hash, [r]);
      }
    }
    return this.byInstance.get(hash) ?? [];
  }

  /** Answers proved by any solver (checked model or proof) for an instance. */
  async verifiedAnswer(instanceHash: string, exceptSolver?: string): Promise<'SAT' | 'UNSAT' | undefined> {
    for (const r of await this.ofInstance(instanceHash))
      if (r.solver_hash !== exceptSolver && r.result.status === 'solved' && r.result.check.ok === true && (r.result.answer === 'SAT' || r.result.answer === 'UNSAT'))
        return r.result.answer;
    return undefined;
  }

  /** The longest time any solver needed on an instance (for longest-first scheduling). */
  async expectedTime(instanceHash: string): Promise<number | undefined> {
    let t: number | undefined;
    for (const r of await this.ofInstance(instanceHash)) t = Math.max(t ?? 0, r.result.time_s);
    return t;
  }

  async resultsOf(solverHash: string): Promise<InstanceResult[]> {
    return [...(await this.load()).values()].filter((r) => r.solver_hash === solverHash).map((r) => r.result);
  }
}

/** The hash of a solver's runnable part: every file under bin/ (names and contents). */
export async function hashSolver(solverDir: string): Promise<string> {
  const bin = path.join(solverDir, 'bin');
  const h = createHash('sha256');
  const entries = (await fs.readdir(bin, { withFileTypes: true, recursive: true })).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name)).sort();
  for (const f of entries) {
    h.update(path.relative(bin, f) + '\0');
    h.update(await fs.readFile(f));
  }
  return h.digest('hex');
}
