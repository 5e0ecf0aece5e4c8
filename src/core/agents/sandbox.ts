// Every path an agent names is confined: the coder to its candidate directory, the planner to the
// workspace's candidate directories (read-only). No absolute paths elsewhere, no `..` escapes, no link
// that leads out, no file of expected answers; writes never go through a link, and protected paths
// stay read-only by their name and by where they really lead.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import picomatch from 'picomatch';
import { parseCandidateDir, STATE_DIR } from '../layout';
import { isWithin, realTarget, specialKind } from '../workspace/candidateFs';

/** A path an agent may not use, with the reason in words it can act on. */
export class SandboxError extends Error {
  override name = 'SandboxError';
}

/** Names of the files that hold expected answers: a set's meta.csv, how its answers were proved, the samples' evidence. */
const ANSWER_FILES = new Set(['meta.csv', 'provenance.json', 'samples.json']);

/** Whether a '/'-separated path names a file of expected answers, or lies in a store of results. */
export function answerPath(rel: string): boolean {
  const parts = rel.split('/');
  return ANSWER_FILES.has((parts.at(-1) ?? '').toLowerCase()) || parts.includes(STATE_DIR);
}

/** Where an agent's path leads: the candidate directory its access is confined to, and the path inside it. */
export interface Place {
  /** The candidate directory (the root given to candidateFs). */
  root: string;
  /** '/'-separated, relative to `root`; '' for `root` itself. */
  rel: string;
  /** The path as the agent names it ('.' for its top). */
  shown: string;
  /** `root` joined with `rel`: absolute, links on the way not resolved. */
  abs: string;
  /** Set when the path is the top of a workspace view: the candidate directories it shows. */
  parts?: Place[];
}

/** What the agent reads: one candidate directory, or the candidate directories of a workspace. */
type Scope = 'candidate' | 'workspace';

/** The candidate directories at the top of a workspace (real directories, not links), in number order. */
async function candidateDirs(ws: string): Promise<string[]> {
  const names = (await fs.readdir(ws)).filter((n) => parseCandidateDir(n) !== undefined);
  const real = await Promise.all(
    names.map((n) =>
      fs.lstat(path.join(ws, n)).then(
        (s) => s.isDirectory(),
        () => false,
      ),
    ),
  );
  return names.filter((_, i) => real[i]).sort((a, b) => parseCandidateDir(a)! - parseCandidateDir(b)!);
}

const posix = (p: string) => p.split(path.sep).join('/');

export class Sandbox {
  private readonly isProtected: (rel: string) => boolean;

  constructor(
    readonly root: string,
    /** Globs (relative to the root) the agent may read but not write. */
    readonly protectedGlobs: string[] = [],
    private readonly scope: Scope = 'candidate',
  ) {
    this.isProtected = protectedGlobs.length ? picomatch(protectedGlobs, { dot: true }) : () => false;
  }

  /**
   * The planner's view of a workspace: its candidate directories (`SATLUTION_<n>/`), read-only, and
   * nothing else of it (not the benchmark sets, not `.satlution/`, not the seeds' imports).
   */
  static workspaceView(ws: string): Sandbox {
    return new Sandbox(ws, ['**'], 'workspace');
  }

  /** Where a path the agent gave leads, or a SandboxError saying why it may not be used. */
  async resolve(p: string, o: { write?: boolean } = {}): Promise<Place> {
    const top = path.resolve(this.root);
    const abs = path.resolve(top, p);
    const what =
      this.scope === 'workspace'
        ? "the workspace's candidate directories; use paths like SATLUTION_0/src/main.c"
        : 'the candidate directory; use paths relative to it';
    if (!isWithin(abs, top)) throw new SandboxError(`${p} is outside ${what}`);
    let rel = posix(path.relative(top, abs));
    let root = top;
    let prefix = '';
    if (this.scope === 'workspace') {
      const parts = await candidateDirs(top);
      if (rel === '')
        return { root: top, rel: '', shown: '.', abs: top, parts: parts.map((n) => ({ root: path.join(top, n), rel: '', shown: n, abs: path.join(top, n) })) };
      const [first = '', ...rest] = rel.split('/');
      if (!parts.includes(first))
        throw new SandboxError(
          `${rel} is not readable here: the planner reads the candidate directories (${parts.slice(0, 3).join('/, ')}${parts.length > 3 ? '/, ...' : '/'}); the benchmark sets, their expected answers and the stored evaluations are not shown to agents`,
        );
      root = path.join(top, first);
      rel = rest.join('/');
      prefix = first;
    }
    const shown = [prefix, rel].filter(Boolean).join('/') || '.';
    const answers = `${shown} holds expected answers (or stored results); agents never read those: the metrics and failures in your task say what they need to`;
    if (answerPath(rel)) throw new SandboxError(answers);
    const rootReal = await fs.realpath(root);
    const real = await realTarget(path.join(root, rel));
    if (real === undefined) throw new SandboxError(`${shown} is a loop of symbolic links`);
    if (!isWithin(real, rootReal)) throw new SandboxError(`${shown} leads outside the candidate directory through a symbolic link`);
    const realRel = posix(path.relative(rootReal, real));
    if (answerPath(realRel)) throw new SandboxError(answers);
    if (o.write) await this.writable(path.join(root, rel), rel, realRel, shown);
    return { root, rel, shown, abs: path.join(root, rel) };
  }

  /** Refuses a write to a protected path (by its name or by where it leads), through a link, or over a non-regular file. */
  private async writable(abs: string, rel: string, realRel: string, shown: string): Promise<void> {
    if (this.scope === 'workspace') throw new SandboxError(`${shown} is read-only here`);
    if (this.isProtected(rel)) throw new SandboxError(`${rel} is protected by the rules; it must stay as the parent had it`);
    if (realRel !== rel && this.isProtected(realRel))
      throw new SandboxError(`${rel} leads to ${realRel}, which is protected by the rules; it must stay as the parent had it`);
    const st = await fs.lstat(abs).catch(() => undefined);
    if (st?.isSymbolicLink())
      throw new SandboxError(
        `${shown} is a symbolic link (to ${await fs.readlink(abs)}); the tools never write through a link: write ${realRel} by its own name, or change what made the link (starexec_build)`,
      );
    if (st && !st.isFile()) throw new SandboxError(`${shown} is ${specialKind(st)}, not a regular file; the tools write regular files only`);
  }
}
