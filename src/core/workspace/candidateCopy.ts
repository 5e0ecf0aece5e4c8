// Copying a candidate (or a seed) into a new directory, the way every candidate is made from its
// parent. A copy must not carry the parent's links out, nor write through them: every name is made
// new in the copy; links that stay inside are copied as links; absolute links into the parent's own
// tree (kissat's configure writes `src/makefile -> <dir>/makefile`) become relative, so the copy uses
// its own files and a moved workspace still builds.
import { constants } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { type CandidateEntry, isWithin, leadsInside, UnsafeCandidateFile, walkCandidate } from './candidateFs';

/** What a copy did. */
export interface CopyReport {
  files: number;
  bytes: number;
  /** Absolute links made relative (they led into the tree by an absolute path). */
  relinked: number;
}

/**
 * The place inside `base` an absolute link target means: by its path, or (for a workspace that was
 * moved or copied elsewhere, /old/place/SATLUTION_0/makefile seen from /new/place/SATLUTION_0) by the
 * last folder of `base`'s name on it, when what follows exists. Undefined for anything else.
 */
async function placeInside(base: string, target: string): Promise<string | undefined> {
  for (const root of new Set([base, await fs.realpath(base)])) if (isWithin(target, root)) return path.relative(root, target);
  const parts = target.split('/');
  const at = parts.lastIndexOf(path.basename(base));
  const rest = at >= 0 ? parts.slice(at + 1).join('/') : undefined;
  return rest !== undefined &&
    (await fs.lstat(path.join(base, rest)).then(
      () => true,
      () => false,
    ))
    ? rest
    : undefined;
}

/**
 * Where a link of `from` points in the copy: a relative link that leads inside, as it was; an absolute
 * one into `from` (placeInside), relative to the same place; anything else is refused.
 */
async function copiedTarget(from: string, e: CandidateEntry): Promise<{ target: string; relinked: boolean }> {
  const target = e.target!;
  const base = path.resolve(from);
  const refuse = () => new UnsafeCandidateFile(`${e.rel} links outside ${path.basename(base)} (-> ${target}); only links inside a candidate are kept`);
  if (!path.isAbsolute(target)) {
    if (await leadsInside(base, e.rel)) return { target, relinked: false };
    throw refuse();
  }
  const within = await placeInside(base, target);
  if (within === undefined) throw refuse();
  const relative = path.relative(path.dirname(path.join(base, e.rel)), path.join(base, within)) || '.';
  if (!(await leadsInsideVia(base, e.rel, relative))) throw refuse();
  return { target: relative, relinked: true };
}

/**
 * Makes the absolute links of `dir` that mean a place inside it (placeInside) relative, in place: a
 * build's links into its own tree then survive a move of the workspace, and the ones an earlier place
 * left (kissat's configure fails on a dangling `src/makefile`) point home again. Each link is replaced
 * by rename, never rewritten through. Returns how many were changed.
 */
export async function relinkInside(dir: string): Promise<number> {
  const base = path.resolve(dir);
  let n = 0;
  for (const e of await walkCandidate(base)) {
    if (e.kind !== 'link' || !path.isAbsolute(e.target!)) continue;
    const within = await placeInside(base, e.target!);
    if (within === undefined) continue;
    const at = path.join(base, e.rel);
    const relative = path.relative(path.dirname(at), path.join(base, within)) || '.';
    if (!(await leadsInsideVia(base, e.rel, relative))) continue;
    const tmp = `${at}.${process.pid}.${n}.relink`;
    await fs.symlink(relative, tmp);
    await fs.rename(tmp, at);
    n++;
  }
  return n;
}

/** Whether a link at `rel` with the text `target` would lead inside `base`. */
async function leadsInsideVia(base: string, rel: string, target: string): Promise<boolean> {
  const probe = path.resolve(path.dirname(path.join(base, rel)), target);
  if (!isWithin(probe, base)) return false;
  return leadsInside(base, path.relative(base, probe));
}

/**
 * Copies `from` into `to`, which must not exist yet. Directories and regular files keep their modes and
 * times (an incremental build stays incremental); links are handled by copiedTarget; a FIFO, socket
 * or device is refused, as is a file that changes under the copy. `skip` leaves paths out (and
 * everything below them).
 */
export async function copyCandidate(from: string, to: string, o: { skip?: (rel: string) => boolean } = {}): Promise<CopyReport> {
  const entries = await walkCandidate(from);
  const skipped: string[] = [];
  const report: CopyReport = { files: 0, bytes: 0, relinked: 0 };
  const st = await fs.stat(from);
  await fs.mkdir(to, { mode: st.mode & 0o7777 });
  for (const e of entries) {
    if (skipped.some((s) => e.rel.startsWith(`${s}/`))) continue;
    if (o.skip?.(e.rel)) {
      skipped.push(e.rel);
      continue;
    }
    const src = path.join(from, e.rel);
    const dest = path.join(to, e.rel);
    if (e.kind === 'special') throw new UnsafeCandidateFile(`${e.rel} is ${e.special}; a candidate holds only files, directories and links inside it`);
    if (e.kind === 'dir') await fs.mkdir(dest, { mode: ((await fs.lstat(src)).mode & 0o7777) | 0o700 });
    else if (e.kind === 'link') {
      const { target, relinked } = await copiedTarget(from, e);
      await fs.symlink(target, dest);
      if (relinked) report.relinked++;
    } else {
      const before = await fs.lstat(src);
      await fs.copyFile(src, dest, constants.COPYFILE_EXCL);
      const after = await fs.lstat(src);
      if (!after.isFile() || after.ino !== before.ino || after.size !== before.size)
        throw new UnsafeCandidateFile(`${e.rel} changed while it was being copied`);
      await fs.utimes(dest, before.atime, before.mtime);
      report.files++;
      report.bytes += before.size;
    }
  }
  return report;
}
