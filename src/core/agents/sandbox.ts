// Every path an agent names is confined to its candidate directory: no absolute paths elsewhere, no
// `..` escapes, no symlinks that lead out, and protected paths are read-only.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import picomatch from 'picomatch';

export class SandboxError extends Error {
  override name = 'SandboxError';
}

export class Sandbox {
  private readonly isProtected: (rel: string) => boolean;

  constructor(
    readonly root: string,
    /** Globs (relative to the root) the agent may read but not write. */
    readonly protectedGlobs: string[] = [],
  ) {
    this.isProtected = protectedGlobs.length ? picomatch(protectedGlobs, { dot: true }) : () => false;
  }

  /** The absolute path for a path the agent gave, or a SandboxError saying why not. */
  async resolve(p: string, opts: { write?: boolean } = {}): Promise<{ abs: string; rel: string }> {
    const rootReal = await fs.realpath(this.root);
    const abs = path.resolve(rootReal, p);
    const rel = path.relative(rootReal, abs);
    if (rel.startsWith('..') || path.isAbsolute(rel)) throw new SandboxError(`${p} is outside the candidate directory; use paths relative to it`);
    // Follow symlinks of the longest existing prefix: a link must not lead out either.
    let probe = abs;
    while (!(await fs.lstat(probe).then(() => true, () => false)) && probe !== rootReal) probe = path.dirname(probe);
    const real = await fs.realpath(probe);
    const realRel = path.relative(rootReal, real);
    if (realRel.startsWith('..') || path.isAbsolute(realRel)) throw new SandboxError(`${p} leads outside the candidate directory through a symbolic link`);
    const relPosix = rel.split(path.sep).join('/');
    if (opts.write && this.isProtected(relPosix)) throw new SandboxError(`${relPosix} is protected by the rules; it must stay as the parent had it`);
    return { abs, rel: relPosix || '.' };
  }
}
