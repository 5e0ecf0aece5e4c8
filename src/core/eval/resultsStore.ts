// Results of solver runs, appended as JSONL as each run ends (fsynced), keyed by what determines
// them: the solver (solverIdentity), the instance's content and the limits. A run whose key has a result is
// never repeated, so a killed evaluation resumes where it stopped and identical binaries are not
// benchmarked twice. A line torn by a crash is skipped on reading.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { appendJsonLine, readJsonLines } from '../store/atomic';
import { CANDIDATE_DOCS } from '../layout';
import { StoredRun, type InstanceResult } from '../run/result';

export interface RunKeyParts {
  solverHash: string;
  instanceHash: string;
  timeoutS: number;
  memMb: number;
  checkProofs: boolean;
  /** The output cap (evaluation.output_max_mb); absent means the default. */
  maxOutputMb?: number;
  /** The sandbox of the run; absent or `off` means none (every run stored before sandboxes existed). */
  isolation?: 'bwrap' | 'off';
  /** A measurement session's id (duel.ts): its runs get keys of their own, so nothing stored earlier stands in for them. */
  session?: string;
}

/** The output cap every run had before it was configurable: keys without a cap mean this one. */
const DEFAULT_OUTPUT_MB = 256;

/**
 * The key of a stored run: every limit that can change its outcome. The output cap joins the key only
 * when it is not the old fixed 256 MB, so results stored before it was configurable stay valid; the
 * sandbox joins it when there is one.
 */
export function runKey(p: RunKeyParts): string {
  const cap = p.maxOutputMb !== undefined && p.maxOutputMb !== DEFAULT_OUTPUT_MB ? [p.maxOutputMb] : [];
  // A sandboxed run never reuses an unconfined one: that result may have been read from the answers.
  const boxed = p.isolation === 'bwrap' ? ['bwrap'] : [];
  const session = p.session ? [`session:${p.session}`] : [];
  return createHash('sha256').update(JSON.stringify(['v1', p.solverHash, p.instanceHash, p.timeoutS, p.memMb, p.checkProofs, ...cap, ...boxed, ...session])).digest('hex').slice(0, 32);
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

/** Folders that are not part of what a run executes. */
const NOT_RUN = new Set(['.git', 'node_modules', '.satlution']);

/**
 * A solver's identity for stored results: everything its run can execute, which is the whole
 * directory (a run script may start code outside bin/), links included as their target and, when the
 * target is a file, its content. Left out: version control and state folders, and the candidate's
 * documents (HYPOTHESIS.md, CHANGELOG.md, RESULTS.md), which change without changing the solver.
 * Two candidates share results only when all of this is identical.
 */
export async function solverIdentity(solverDir: string): Promise<string> {
  const h = createHash('sha256');
  const entries = (await fs.readdir(solverDir, { withFileTypes: true, recursive: true }))
    .map((e) => ({ e, rel: path.relative(solverDir, path.join(e.parentPath, e.name)) }))
    .filter(({ rel }) => !rel.split(path.sep).some((part) => NOT_RUN.has(part)) && !CANDIDATE_DOCS.includes(rel as (typeof CANDIDATE_DOCS)[number]))
    .sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  for (const { e, rel } of entries) {
    const file = path.join(solverDir, rel);
    if (e.isSymbolicLink()) {
      h.update(`L ${rel}\0${await fs.readlink(file)}\0`);
      const target = await fs.stat(file).catch(() => undefined);
      if (target?.isFile()) h.update(await fs.readFile(file));
    } else if (e.isFile()) {
      // Whether it may be executed changes what a run can do.
      h.update(`F ${rel}\0${(await fs.stat(file)).mode & 0o111 ? 'x' : '-'}\0`);
      h.update(await fs.readFile(file));
    }
  }
  return h.digest('hex');
}

/** The hash of a solver's binaries: every file under bin/ (names and contents), for duplicate checks. */
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
