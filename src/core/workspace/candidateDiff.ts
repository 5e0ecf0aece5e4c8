// What changed between two candidate trees (a candidate and its parent, or any two): source files
// added, deleted or modified, without build products and binaries, with line counts for a summary.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { createTwoFilesPatch, diffLines } from 'diff';
import { listFiles } from './files';

export interface FileChange {
  /** '/'-separated path relative to the candidate directory. */
  path: string;
  kind: 'added' | 'deleted' | 'modified';
  /** Lines added and removed; null for files too large or not text. */
  added: number | null;
  removed: number | null;
}

/** Object files, libraries and the binaries a build leaves in bin/ (the run script stays). */
const BUILD_OUTPUT = /(\.(o|a|so|obj|lo|la|dylib|gcda|gcno|gcov)$)|(^|\/)bin\/(?!starexec_run_default$)[^/]+$|(^|\/)build\//;
/** Documents a review shows beside the diff rather than in it. */
const BESIDE = new Set(['HYPOTHESIS.md', 'RESULTS.md']);
const MAX_TEXT = 2 << 20;

export async function diffCandidates(fromDir: string, toDir: string): Promise<FileChange[]> {
  const keep = (f: string) => !BUILD_OUTPUT.test(f) && !BESIDE.has(f);
  const [a, b] = await Promise.all([listFiles(fromDir), listFiles(toDir)]);
  const inA = new Set(a.filter(keep));
  const inB = new Set(b.filter(keep));
  const out: FileChange[] = [];
  for (const f of [...new Set([...inA, ...inB])].sort()) {
    const [x, y] = await Promise.all([inA.has(f) ? readText(path.join(fromDir, f)) : null, inB.has(f) ? readText(path.join(toDir, f)) : null]);
    if (x === 'binary' || y === 'binary') continue; // an executable or data blob: not reviewable as text
    if (x !== null && y !== null && x !== 'large' && y !== 'large' && x === y) continue;
    if (x !== null && y !== null && (x === 'large' || y === 'large') && (await sameBytes(path.join(fromDir, f), path.join(toDir, f)))) continue;
    const kind = x === null ? 'added' : y === null ? 'deleted' : 'modified';
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
    const [x, y] = await Promise.all([c.kind === 'added' ? '' : readText(path.join(fromDir, c.path)), c.kind === 'deleted' ? '' : readText(path.join(toDir, c.path))]);
    const patch = x === 'large' || y === 'large' || x === 'binary' || y === 'binary' ? `--- a/${c.path}\n+++ b/${c.path}\n(${c.kind}; too large to show)\n` : createTwoFilesPatch(`a/${c.path}`, `b/${c.path}`, x, y, '', '', { context: 3 });
    if (size + patch.length > maxChars) {
      parts.push(`(... ${changes.length - i} more changed file${changes.length - i > 1 ? 's' : ''} not shown: ${changes.slice(i).map((r) => r.path).join(', ')})\n`);
      break;
    }
    parts.push(patch);
    size += patch.length;
  }
  return parts.join('');
}

/** The text of a file, or 'binary' (NUL bytes, ELF/Mach-O) or 'large' (not loaded whole). */
async function readText(file: string): Promise<string | 'binary' | 'large'> {
  const st = await fs.stat(file);
  if (st.size > MAX_TEXT) return 'large';
  const buf = await fs.readFile(file);
  return buf.includes(0) ? 'binary' : buf.toString('utf8');
}

async function sameBytes(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([fs.readFile(a), fs.readFile(b)]);
  return x.equals(y);
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
