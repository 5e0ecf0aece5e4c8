// What changed between two candidate trees (a candidate and its parent, or any two): source files
// added, deleted or modified, without build products and binaries, with line counts for a summary.
// Hidden folders count like any other; a link is shown as its target and a special file as its kind,
// never read through (candidateFs.ts).
import { createTwoFilesPatch, diffLines } from 'diff';
import { type CandidateEntry, hashWalkedFile, leadsInside, readWalkedFile, walkCandidate } from './candidateFs';

/** What stands at a path when it is not a regular file: a link (its target as written) or a special file. */
export type OddEntry = { link: string; outside: boolean } | { special: string };

export interface FileChange {
  /** '/'-separated path relative to the candidate directory. */
  path: string;
  kind: 'added' | 'deleted' | 'modified';
  /** Lines added and removed; null for files too large or not text. */
  added: number | null;
  removed: number | null;
  /** The side that is a link or a special file, described instead of read. */
  before?: OddEntry;
  after?: OddEntry;
}

/** Object files, libraries and the binaries a build leaves in bin/ (the run script stays). */
const BUILD_OUTPUT = /(\.(o|a|so|obj|lo|la|dylib|gcda|gcno|gcov)$)|(^|\/)bin\/(?!starexec_run_default$)[^/]+$|(^|\/)build\//;
/** Documents a review shows beside the diff rather than in it. */
const BESIDE = new Set(['HYPOTHESIS.md', 'RESULTS.md']);
const MAX_TEXT = 2 << 20;

/** A link or special file in words, as a review shows it. */
export function describeEntry(e: OddEntry): string {
  return 'link' in e ? `symbolic link -> ${e.link}${e.outside ? ' (leads outside the candidate)' : ''}\n` : `${e.special}\n`;
}

/** The entries of a tree a review compares: regular files, links and special files, by path. */
async function reviewable(root: string): Promise<Map<string, CandidateEntry>> {
  const entries = await walkCandidate(root).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [];
    throw e;
  });
  return new Map(entries.filter((e) => e.kind !== 'dir' && !(e.kind === 'file' && (BUILD_OUTPUT.test(e.rel) || BESIDE.has(e.rel)))).map((e) => [e.rel, e]));
}

/** A link's or special file's description; undefined for a regular file. */
async function odd(root: string, e: CandidateEntry): Promise<OddEntry | undefined> {
  if (e.kind === 'link') return { link: e.target!, outside: !(await leadsInside(root, e.rel).catch(() => false)) };
  if (e.kind === 'special') return { special: e.special! };
  return undefined;
}

export async function diffCandidates(fromDir: string, toDir: string): Promise<FileChange[]> {
  const [inA, inB] = await Promise.all([reviewable(fromDir), reviewable(toDir)]);
  const out: FileChange[] = [];
  for (const f of [...new Set([...inA.keys(), ...inB.keys()])].sort()) {
    const ea = inA.get(f);
    const eb = inB.get(f);
    const [oa, ob] = await Promise.all([ea ? odd(fromDir, ea) : undefined, eb ? odd(toDir, eb) : undefined]);
    const kind = !ea ? 'added' : !eb ? 'deleted' : 'modified';
    if (oa || ob) {
      if (oa && ob && describeEntry(oa) === describeEntry(ob)) continue;
      out.push({ path: f, kind, added: null, removed: null, ...(oa ? { before: oa } : {}), ...(ob ? { after: ob } : {}) });
      continue;
    }
    const [x, y] = await Promise.all([ea ? readText(fromDir, f) : null, eb ? readText(toDir, f) : null]);
    if (x === 'binary' || y === 'binary') continue; // an executable or data blob: not reviewable as text
    if (x !== null && y !== null && x !== 'large' && y !== 'large' && x === y) continue;
    if (x !== null && y !== null && (x === 'large' || y === 'large') && (await sameBytes(fromDir, toDir, f))) continue;
    out.push({ path: f, kind, ...countLines(x, y) });
  }
  return out;
}

/** The changes as one unified diff (for a reviewer model), cut at maxChars with a note of what is left out. */
export async function unifiedDiff(fromDir: string, toDir: string, maxChars = 60000): Promise<string> {
  const parts: string[] = [];
  let size = 0;
  const changes = await diffCandidates(fromDir, toDir);
  for (const [i, c] of changes.entries()) {
    const side = async (dir: string, missing: boolean, entry: OddEntry | undefined) => (missing ? '' : entry ? describeEntry(entry) : readText(dir, c.path));
    const [x, y] = await Promise.all([side(fromDir, c.kind === 'added', c.before), side(toDir, c.kind === 'deleted', c.after)]);
    const patch =
      x === 'large' || y === 'large' || x === 'binary' || y === 'binary'
        ? `--- a/${c.path}\n+++ b/${c.path}\n(${c.kind}; too large to show)\n`
        : createTwoFilesPatch(`a/${c.path}`, `b/${c.path}`, x, y, '', '', { context: 3 });
    if (size + patch.length > maxChars) {
      parts.push(
        `(... ${changes.length - i} more changed file${changes.length - i > 1 ? 's' : ''} not shown: ${changes
          .slice(i)
          .map((r) => r.path)
          .join(', ')})\n`,
      );
      break;
    }
    parts.push(patch);
    size += patch.length;
  }
  return parts.join('');
}

/** The text of a regular file, or 'binary' (NUL bytes, ELF/Mach-O) or 'large' (not loaded whole). */
async function readText(root: string, rel: string): Promise<string | 'binary' | 'large'> {
  const buf = await readWalkedFile(root, rel, MAX_TEXT).catch((e: Error) => {
    if (/bytes, more than/.test(e.message)) return 'large' as const;
    throw e;
  });
  if (buf === 'large') return buf;
  return buf.includes(0) ? 'binary' : buf.toString('utf8');
}

/** Two large regular files compared chunk by chunk, never held whole. */
async function sameBytes(a: string, b: string, rel: string): Promise<boolean> {
  const [x, y] = await Promise.all([hashWalkedFile(a, rel), hashWalkedFile(b, rel)]);
  return x === y;
}

function countLines(x: string | 'large' | null, y: string | 'large' | null): { added: number | null; removed: number | null } {
  if (x === 'large' || y === 'large') return { added: null, removed: null };
  let added = 0;
  let removed = 0;
  for (const part of diffLines(x ?? '', y ?? '')) {
    if (part.added) added += part.count ?? 0;
    else if (part.removed) removed += part.count ?? 0;
  }
  return { added, removed };
}
