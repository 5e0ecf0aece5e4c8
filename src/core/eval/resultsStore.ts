// Results of solver runs, appended as JSONL as each run ends (fsynced), keyed by what determines
// them: the solver (solverIdentity), the instance's content and the limits. A run whose key has a result is
// never repeated, so a killed evaluation resumes where it stopped and identical binaries are not
// benchmarked twice. A line torn by a crash is skipped on reading.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { appendJsonLine, readJsonLines } from '../store/atomic';
import { CANDIDATE_DOCS } from '../layout';
import { readWalkedFile, streamCandidateFile, walkCandidate } from '../workspace/candidateFs';
import { StoredRun, type InstanceResult } from '../run/result';

export interface RunKeyParts {
  solverHash: string;
  instanceHash: string;
  timeoutS: number;
  memMb: number;
  checkProofs: boolean;
  /** UNSAT answers need the proof of their own run (RunSettings.requireProofs): a run that did not must never stand in for one that did. */
  requireProofs?: boolean;
  /** The output cap (evaluation.output_max_mb); absent means the default. */
  maxOutputMb?: number;
  /** The sandbox of the run; absent or `off` means none (every run stored before sandboxes existed). */
  isolation?: 'bwrap' | 'off';
  /** A measurement session's id (measureTogether.ts): its runs get keys of their own, so nothing stored earlier stands in for them. */
  session?: string;
  /** The processes and disk limits of the run (evaluation.processes_max, disk_max_mb): a run stopped at one may pass under another. */
  limits?: { processesMax: number; diskMaxMb: number };
}

/** The output cap every run had before it was configurable: keys without a cap mean this one. */
const DEFAULT_OUTPUT_MB = 256;

/**
 * The key of a stored run: every limit that can change its outcome. The output cap joins the key only
 * when it is not the old fixed 256 MB, so results stored before it was configurable stay valid; the
 * sandbox joins it when there is one; the processes and disk limits always.
 */
export function runKey(p: RunKeyParts): string {
  const cap = p.maxOutputMb !== undefined && p.maxOutputMb !== DEFAULT_OUTPUT_MB ? [p.maxOutputMb] : [];
  // A sandboxed run never reuses an unconfined one: that result may have been read from the answers.
  const boxed = p.isolation === 'bwrap' ? ['bwrap'] : [];
  const session = p.session ? [`session:${p.session}`] : [];
  // Solver identities of v2 (hidden folders, links by target) share no key with earlier ones, so the limits join every key.
  const limits = p.limits ? [`limits:${p.limits.processesMax}:${p.limits.diskMaxMb}`] : [];
  const proofs = p.requireProofs ? ['proofs-required'] : [];
  return createHash('sha256')
    .update(JSON.stringify(['v1', p.solverHash, p.instanceHash, p.timeoutS, p.memMb, p.checkProofs, ...cap, ...boxed, ...session, ...limits, ...proofs]))
    .digest('hex')
    .slice(0, 32);
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
      if (
        r.solver_hash !== exceptSolver &&
        r.result.status === 'solved' &&
        r.result.check.ok === true &&
        (r.result.answer === 'SAT' || r.result.answer === 'UNSAT')
      )
        return r.result.answer;
    return undefined;
  }

  /** The longest time any solver needed on an instance (for longest-first scheduling). */
  async expectedTime(instanceHash: string): Promise<number | undefined> {
    let t: number | undefined;
    for (const r of await this.ofInstance(instanceHash)) t = Math.max(t ?? 0, r.result.time_s);
    return t;
  }

  /** Records what checking a run's kept proof showed: the run's result as its proof judges it, under its key (the latest line of a key wins). */
  async settle(key: string, result: InstanceResult): Promise<void> {
    const prev = (await this.load()).get(key);
    if (!prev) return;
    await this.add({ ...prev, result });
  }

  async resultsOf(solverHash: string): Promise<InstanceResult[]> {
    return [...(await this.load()).values()].filter((r) => r.solver_hash === solverHash).map((r) => r.result);
  }
}

/**
 * A solver's identity for stored results: everything its run can execute, which is the whole
 * directory, hidden folders included (a run script may start code anywhere in it): each regular file
 * by name, mode and content (streamed: a file of any size is hashed without being held), each link by
 * its target as written, each special file by its kind, each directory by name. Left out: the
 * candidate's documents (HYPOTHESIS.md, CHANGELOG.md, RESULTS.md) when they are regular files, which
 * change without changing the solver. Two candidates share results only when all of this is identical.
 */
export async function solverIdentity(solverDir: string): Promise<string> {
  const h = createHash('sha256');
  h.update('identity v2\0');
  const entries = (await walkCandidate(solverDir)).filter((e) => !(e.kind === 'file' && CANDIDATE_DOCS.includes(e.rel as (typeof CANDIDATE_DOCS)[number])));
  for (let i = 0; i < entries.length; i += READ_WINDOW) {
    const slice = entries.slice(i, i + READ_WINDOW);
    // Small files are read a window at a time (the thread pool reads them at once), then hashed in order; large ones are streamed.
    const bodies = await Promise.all(
      slice.map((e) => (e.kind === 'file' && e.size <= SMALL_FILE ? readWalkedFile(solverDir, e.rel, SMALL_FILE).catch(() => undefined) : undefined)),
    );
    for (const [j, e] of slice.entries()) {
      if (e.kind === 'dir') h.update(`D ${e.rel}\0`);
      else if (e.kind === 'link') h.update(`L ${e.rel}\0${e.target}\0`);
      else if (e.kind === 'special') h.update(`S ${e.rel}\0${e.special}\0`);
      else {
        // Whether it may be executed changes what a run can do.
        h.update(`F ${e.rel}\0${e.executable ? 'x' : '-'}\0`);
        const body = bodies[j];
        if (body) h.update(body);
        else await streamCandidateFile(solverDir, e.rel, (chunk) => h.update(chunk));
      }
    }
  }
  return h.digest('hex');
}

/** Files up to this size are read whole for the identity; larger ones are streamed. */
const SMALL_FILE = 1 << 20;
/** How many files the identity reads at once. */
const READ_WINDOW = 16;

/** The hash of a solver's binaries: every regular file under bin/ (names and contents, streamed), for duplicate checks. */
export async function hashSolver(solverDir: string): Promise<string> {
  const h = createHash('sha256');
  for (const e of await walkCandidate(path.join(solverDir, 'bin'))) {
    if (e.kind !== 'file') continue;
    h.update(e.rel + '\0');
    await streamCandidateFile(path.join(solverDir, 'bin'), e.rel, (chunk) => h.update(chunk));
  }
  return h.digest('hex');
}
