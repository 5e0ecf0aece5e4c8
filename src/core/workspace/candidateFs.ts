// The one layer through which the harness reads, writes, lists and hashes a candidate's files
// (ARCHITECTURE.md, "A candidate's files"). A candidate directory is untrusted data, also after its
// code stopped running: a build or a model may have left links that lead anywhere, FIFOs that block
// a reader forever, devices, and files of any size. So: reads take regular files only, inside the
// candidate, under a size cap; documents the harness writes replace their name (temporary file and
// rename) and never write through what stands there; listings never follow links.
import { createHash, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** A candidate's file the harness refuses to read or write, with the plain reason. */
export class UnsafeCandidateFile extends Error {
  override name = 'UnsafeCandidateFile';
}

/** The size cap of a document the harness reads back (HYPOTHESIS.md, CHANGELOG.md, RESULTS.md). */
export const DOC_MAX_BYTES = 1 << 20;

/** One entry of a candidate's tree, as lstat sees it: links are never followed. */
export interface CandidateEntry {
  /** '/'-separated, relative to the candidate directory. */
  rel: string;
  kind: 'file' | 'dir' | 'link' | 'special';
  /** Bytes of a regular file (its apparent size: a sparse file counts whole); 0 otherwise. */
  size: number;
  /** A regular file that may be executed. */
  executable: boolean;
  /** A link's target, as written. */
  target?: string;
  /** What a special file is: FIFO, socket, block or character device. */
  special?: string;
}

/** Whether `p` is `dir` or lies below it (both absolute). */
export const isWithin = (p: string, dir: string): boolean => {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** A special file's kind, in words. */
export function specialKind(st: Pick<Stats, 'isFIFO' | 'isSocket' | 'isBlockDevice' | 'isCharacterDevice' | 'isDirectory'>): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/** `rel` as a path inside `root`, or an error when it would leave it by name (`..`, absolute). */
function inside(root: string, rel: string): string {
  const base = path.resolve(root);
  const abs = path.resolve(base, rel);
  if (!isWithin(abs, base)) throw new UnsafeCandidateFile(`${rel} is outside ${path.basename(base)}`);
  return abs;
}

/**
 * Where `abs` (a path inside `root`, existing or not) really leads: every link on the way followed as
 * the kernel would; a part that does not exist yet is taken by name. Undefined for a loop of links.
 */
export async function realTarget(abs: string): Promise<string | undefined> {
  let probe = abs;
  const rest: string[] = [];
  // As the kernel (its MAXSYMLINKS): more links than this on one path is a loop.
  for (let hops = 0; hops <= 40;) {
    try {
      const real = await fs.realpath(probe);
      return rest.length ? path.resolve(real, ...rest.reverse()) : real;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') return undefined;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
      // A dangling link: its target, from the real directory the link stands in, and not normalized by
      // name (`..` after a link means the link's parent, as the kernel takes it).
      const st = await fs.lstat(probe).catch(() => undefined);
      if (st?.isSymbolicLink()) {
        const target = await fs.readlink(probe);
        probe = path.isAbsolute(target) ? target : `${await fs.realpath(path.dirname(probe))}/${target}`;
        hops++;
        continue;
      }
      if (path.dirname(probe) === probe) return path.resolve(probe, ...rest.reverse());
      rest.push(path.basename(probe));
      probe = path.dirname(probe);
    }
  }
  return undefined;
}

/** Whether the link at `rel` (or any path) leads to a place inside `root`, following every link on the way. */
export async function leadsInside(root: string, rel: string): Promise<boolean> {
  const real = await realTarget(inside(root, rel));
  return real !== undefined && isWithin(real, await fs.realpath(root));
}

/**
 * Opens a regular file of the candidate for reading: a link is followed only when `follow` and only
 * to a place inside; a FIFO, socket or device is refused before it is opened (opening one can block
 * or act); the file opened is checked to be the one that was vetted.
 */
async function openRegular(root: string, rel: string, follow: boolean): Promise<{ fh: fs.FileHandle; st: Stats }> {
  const abs = inside(root, rel);
  const lst = await fs.lstat(abs);
  if (lst.isSymbolicLink() && !follow)
    throw new UnsafeCandidateFile(`${rel} is a symbolic link (to ${await fs.readlink(abs)}); the harness reads only the files it wrote there`);
  const real = await realTarget(abs);
  if (real === undefined || !isWithin(real, await fs.realpath(root)))
    throw new UnsafeCandidateFile(`${rel} leads outside the candidate (to ${real ?? 'a loop of links'})`);
  const st = await fs.stat(real);
  if (!st.isFile()) throw new UnsafeCandidateFile(`${rel} is ${specialKind(st)}, not a regular file`);
  const fh = await fs.open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const now = await fh.stat();
    if (now.ino !== st.ino || now.dev !== st.dev) throw new UnsafeCandidateFile(`${rel} changed while it was being read`);
    return { fh, st: now };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** Reads an opened regular file whole, refused when it is larger than `maxBytes`; closes it either way. */
async function readCapped(fh: fs.FileHandle, size: number, rel: string, maxBytes: number): Promise<Buffer> {
  try {
    if (size > maxBytes) throw new UnsafeCandidateFile(`${rel} has ${size} bytes, more than the ${maxBytes} read here`);
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/** The bytes of a regular file inside the candidate (links followed only inside), refused above `maxBytes`. */
export async function readCandidateFile(root: string, rel: string, o: { maxBytes: number; follow?: boolean }): Promise<Buffer> {
  const { fh, st } = await openRegular(root, rel, o.follow ?? true);
  return readCapped(fh, st.size, rel, o.maxBytes);
}

/** A regular file inside the candidate as UTF-8 text (see readCandidateFile). */
export async function readCandidateText(root: string, rel: string, o: { maxBytes: number; follow?: boolean }): Promise<string> {
  return (await readCandidateFile(root, rel, o)).toString('utf8');
}

/** A document the harness wrote (top level, never a link), or undefined when it is not there. */
export async function readCandidateDoc(root: string, name: string): Promise<string | undefined> {
  try {
    return await readCandidateText(root, name, { maxBytes: DOC_MAX_BYTES, follow: false });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * Opens a regular file a walk found (walkCandidate saw its directories as real ones): the name itself
 * is never followed (O_NOFOLLOW) and what opens must be a regular file, so neither a link nor a FIFO
 * swapped in since is read.
 */
async function openWalked(root: string, rel: string): Promise<{ fh: fs.FileHandle; size: number }> {
  const fh = await fs.open(inside(root, rel), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ELOOP') throw new UnsafeCandidateFile(`${rel} is a symbolic link`);
    throw e;
  });
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new UnsafeCandidateFile(`${rel} is ${specialKind(st)}, not a regular file`);
    return { fh, size: st.size };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** Streams a regular file a walk found (see openWalked) into `sink`, chunk by chunk; its size in bytes. */
export async function streamCandidateFile(root: string, rel: string, sink: (chunk: Buffer) => void): Promise<number> {
  const { fh, size } = await openWalked(root, rel);
  try {
    // One buffer per file, no larger than the file (most sources are a few KB).
    const buf = Buffer.allocUnsafe(Math.max(1, Math.min(size + 1, 1 << 20)));
    let total = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) return total;
      sink(buf.subarray(0, bytesRead));
      total += bytesRead;
    }
  } finally {
    await fh.close();
  }
}

/** The SHA-256 (hex) of a regular file a walk found (see openWalked), streamed: never held whole. */
export async function hashWalkedFile(root: string, rel: string): Promise<string> {
  const h = createHash('sha256');
  await streamCandidateFile(root, rel, (chunk) => h.update(chunk));
  return h.digest('hex');
}

/** The bytes of a regular file a walk found (see openWalked), refused above `maxBytes`. */
export async function readWalkedFile(root: string, rel: string, maxBytes: number): Promise<Buffer> {
  const { fh, size } = await openWalked(root, rel);
  return readCapped(fh, size, rel, maxBytes);
}

/** `root` must be a real directory (not a link standing in its place) before anything is written into it. */
async function realDirectory(root: string): Promise<void> {
  const st = await fs.lstat(root);
  if (!st.isDirectory()) throw new UnsafeCandidateFile(`${root} is ${st.isSymbolicLink() ? 'a symbolic link' : specialKind(st)}, not a directory`);
}

/**
 * `data` into a new temporary file in `dir` (created exclusively: never an existing name, never through
 * a link), with `mode`, then renamed over `name`: whatever stood there is replaced, not written through.
 * `clear` runs just before the rename (to remove a directory standing under the name).
 */
async function renameInto(dir: string, name: string, data: string | Uint8Array, mode: number, clear?: () => Promise<void>): Promise<void> {
  const tmp = path.join(dir, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fh = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await fh.writeFile(data);
    await fh.chmod(mode);
    await fh.close();
    await clear?.();
    await fs.rename(tmp, path.join(dir, name));
  } catch (e) {
    await fh.close().catch(() => undefined);
    await fs.rm(tmp, { force: true });
    throw e;
  }
}

/**
 * Writes a document of the harness's (RESULTS.md, HYPOTHESIS.md, CHANGELOG.md, a log) at the top of
 * the candidate: into a new temporary file, then renamed over the name, so whatever stood there (a
 * link to anywhere, a FIFO, a directory) is replaced, never written through.
 */
export async function writeCandidateDoc(root: string, name: string, data: string | Uint8Array): Promise<void> {
  if (name !== path.basename(name) || name === '.' || name === '..') throw new Error(`a document's name has no directory: ${name}`);
  await realDirectory(root);
  const target = path.join(root, name);
  await renameInto(root, name, data, 0o644, async () => {
    if ((await fs.lstat(target).catch(() => undefined))?.isDirectory()) await fs.rm(target, { recursive: true, force: true });
  });
}

/**
 * Writes a file anywhere in the candidate for an agent (its write and edit tools): the directories on
 * the way made where needed, only where they really lead inside; the data into a new temporary file
 * renamed over the name, so nothing standing there (a hard link, a FIFO) is written through. A name
 * that is a link, a directory or a special file is refused; a file replaced keeps its mode.
 */
export async function writeCandidateFile(root: string, rel: string, data: string | Uint8Array): Promise<void> {
  const abs = inside(root, rel);
  await realDirectory(root);
  const dir = await realTarget(path.dirname(abs));
  if (dir === undefined || !isWithin(dir, await fs.realpath(root)))
    throw new UnsafeCandidateFile(`${rel} leads outside the candidate (to ${dir ?? 'a loop of links'})`);
  await fs.mkdir(dir, { recursive: true });
  const target = path.join(dir, path.basename(abs));
  const there = await fs.lstat(target).catch(() => undefined);
  if (there?.isSymbolicLink()) throw new UnsafeCandidateFile(`${rel} is a symbolic link (to ${await fs.readlink(target)}); nothing is written through a link`);
  if (there && !there.isFile()) throw new UnsafeCandidateFile(`${rel} is ${specialKind(there)}, not a regular file`);
  await renameInto(dir, path.basename(abs), data, there ? there.mode & 0o7777 : 0o644);
}

/**
 * Appends to a document of the harness's: the text it had, when that is a regular file it can read
 * (else `initial`), plus `text`, written as writeCandidateDoc writes.
 */
export async function appendCandidateDoc(root: string, name: string, text: string, initial: string): Promise<void> {
  const before = await readCandidateDoc(root, name).catch(() => undefined);
  await writeCandidateDoc(root, name, `${(before ?? initial).trimEnd()}\n${text}`);
}

/** Ordinal order of '/'-separated paths, the same on every machine. */
const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Every entry below `root`, hidden folders included, sorted, links not followed. Refuses more than
 * `maxEntries` (a tree of millions of files is itself an attack on whoever walks it). `maxDepth` 1
 * lists `root`'s own entries only; `signal` (a cancel, a deadline) is checked at every entry.
 */
export async function walkCandidate(root: string, o: { maxEntries?: number; maxDepth?: number; signal?: AbortSignal } = {}): Promise<CandidateEntry[]> {
  await realDirectory(root);
  const max = o.maxEntries ?? 200_000;
  const maxDepth = o.maxDepth ?? Infinity;
  const out: CandidateEntry[] = [];
  const walk = async (dir: string, prefix: string, depth: number): Promise<void> => {
    o.signal?.throwIfAborted();
    const names = (await fs.readdir(dir)).sort(byPath);
    if (out.length + names.length > max) throw new UnsafeCandidateFile(`${path.basename(root)} holds more than ${max} files and directories`);
    // A directory's entries are looked at together (the thread pool runs them at once), then taken in order.
    const stats = await Promise.all(names.map((name) => fs.lstat(path.join(dir, name)).catch(() => undefined)));
    for (const [i, name] of names.entries()) {
      o.signal?.throwIfAborted();
      const st = stats[i];
      if (!st) continue; // vanished while listed
      const rel = prefix ? `${prefix}/${name}` : name;
      const full = path.join(dir, name);
      if (st.isSymbolicLink()) out.push({ rel, kind: 'link', size: 0, executable: false, target: await fs.readlink(full) });
      else if (st.isDirectory()) {
        out.push({ rel, kind: 'dir', size: 0, executable: false });
        if (depth < maxDepth) await walk(full, rel, depth + 1);
      } else if (st.isFile()) out.push({ rel, kind: 'file', size: st.size, executable: (st.mode & 0o111) !== 0 });
      else out.push({ rel, kind: 'special', size: 0, executable: false, special: specialKind(st) });
    }
  };
  await walk(root, '', 1);
  return out;
}

/** The regular files below `root` (hidden folders included; links and special files left out), sorted. */
export async function listFiles(root: string): Promise<string[]> {
  const entries = await walkCandidate(root).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [];
    throw e;
  });
  return entries.filter((e) => e.kind === 'file').map((e) => e.rel);
}

/** Whether a document of the harness's is there to show: a non-empty regular file, not a link (which could show anything). */
export async function hasCandidateDoc(root: string, name: string): Promise<boolean> {
  return fs.lstat(path.join(root, name)).then(
    (s) => s.isFile() && s.size > 0,
    () => false,
  );
}

/** Why a document of the harness's is not shown (it is a link, a FIFO, a directory...); undefined when it is a regular file or absent. */
export async function candidateDocProblem(root: string, name: string): Promise<string | undefined> {
  const st = await fs.lstat(path.join(root, name)).catch(() => undefined);
  if (!st || st.isFile()) return undefined;
  const what = st.isSymbolicLink() ? `a symbolic link (to ${await fs.readlink(path.join(root, name))})` : specialKind(st);
  return `${name} of ${path.basename(root)} is ${what}, not the document SATLUTION wrote; it is not opened`;
}
