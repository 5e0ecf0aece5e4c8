// The owner of `.satlution/evals/`: each workspace candidate's latest evaluation document (evalDoc.ts).
// Every reader goes through here, so a damaged, foreign or newer file gives one clear reason instead of
// a crash, and every write is atomic (a crash leaves the old document or the new one, never half).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { candidateDirName, parseCandidateDir, STATE_DIR } from '../layout';
import { writeJsonAtomic } from '../store/atomic';
import { EvalDoc, parseEvalDoc, vacuousWarnings } from './evalDoc';

/** The folder of the documents, relative to the workspace. */
export const EVALS_DIR = path.join(STATE_DIR, 'evals');

/** A read: the document, no document yet, or why the file on disk cannot be used. */
export type EvalRead = { status: 'ok'; doc: EvalDoc } | { status: 'missing' } | { status: 'invalid'; file: string; reason: string };

/** A workspace's evaluation documents, by candidate (an id or a `SATLUTION_<n>` name). */
export class EvalStore {
  constructor(readonly ws: string) {}

  /** The document's path. */
  file(candidate: number | string): string {
    return path.join(this.ws, EVALS_DIR, `${typeof candidate === 'number' ? candidateDirName(candidate) : candidate}.json`);
  }

  /** The candidate's document, validated. */
  async read(candidate: number | string): Promise<EvalRead> {
    const r = await this.readJson(candidate);
    if (r.status !== 'ok') return r;
    const p = parseEvalDoc(r.json);
    return p.ok ? { status: 'ok', doc: p.doc } : { status: 'invalid', file: this.file(candidate), reason: p.reason };
  }

  /**
   * The file's JSON, not yet validated: for the dashboard, which shows what it can of a partly damaged
   * document (dashboard/read.ts). Everything else uses `read` or `get`.
   */
  async readJson(candidate: number | string): Promise<{ status: 'ok'; json: unknown } | Exclude<EvalRead, { status: 'ok' }>> {
    const file = this.file(candidate);
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing' };
      return { status: 'invalid', file, reason: `unreadable: ${(e as Error).message}` };
    }
    try {
      return { status: 'ok', json: JSON.parse(text) };
    } catch {
      return { status: 'invalid', file, reason: 'not valid JSON (a damaged file)' };
    }
  }

  /** The document, or undefined when there is none or it cannot be used (`onInvalid` hears why). */
  async get(candidate: number | string, onInvalid?: (message: string) => void): Promise<EvalDoc | undefined> {
    const r = await this.read(candidate);
    if (r.status === 'invalid') onInvalid?.(`${path.relative(this.ws, r.file)}: ${r.reason}; it is ignored and the candidate counts as not evaluated`);
    return r.status === 'ok' ? r.doc : undefined;
  }

  /** Replaces the candidate's document atomically; returns its path. */
  async write(candidate: number | string, doc: EvalDoc): Promise<string> {
    const file = this.file(candidate);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await writeJsonAtomic(file, EvalDoc.parse(doc));
    return file;
  }

  /** The warnings of gates that passed with nothing checked (vacuousWarnings), by candidate, for those whose document has warnings. */
  async warnings(candidates: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const c of candidates) {
      const doc = await this.get(c);
      const w = doc ? vacuousWarnings(doc) : [];
      if (w.length) out.set(c, w);
    }
    return out;
  }

  /** The candidates that have a document file (valid or not), by directory name. */
  async candidates(): Promise<string[]> {
    const names = await fs.readdir(path.join(this.ws, EVALS_DIR)).catch(() => [] as string[]);
    return names.filter((n) => n.endsWith('.json') && parseCandidateDir(n.slice(0, -5)) !== undefined).map((n) => n.slice(0, -5));
  }

  /** The candidate directory name of a solver directory, when it is a candidate of this workspace. */
  candidateOf(solverDir: string): string | undefined {
    const rel = path.relative(this.ws, solverDir);
    return !rel.includes(path.sep) && parseCandidateDir(rel) !== undefined ? rel : undefined;
  }
}
