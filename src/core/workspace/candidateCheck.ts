// The check of a candidate's tree after every build and every coding step: what candidate code left
// there must be a tree the harness can handle. Links that lead out, FIFOs, sockets, devices, more
// bytes than the disk limit or more entries than a walk should take fail the candidate with the reason.
import { leadsInside, UnsafeCandidateFile, walkCandidate } from './candidateFs';

/** The limits a candidate's tree is held to. */
export interface TreeLimits {
  /** Bytes of all regular files together (their apparent size: a sparse file counts whole). */
  maxBytes: number;
  /** Files, directories and links together. */
  maxEntries?: number;
}

/** The outcome: what the tree holds, and each thing refused, in words. */
export interface TreeInspection {
  files: number;
  bytes: number;
  /** Empty when the tree is acceptable. */
  problems: string[];
}

/** Problems named one by one; beyond this many, counted. */
const SHOWN = 8;

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(bytes < 2 ** 20 ? 2 : 0)} MB`;

/** Walks the candidate (links not followed) and says what the harness refuses in it. */
export async function inspectCandidate(root: string, limits: TreeLimits): Promise<TreeInspection> {
  let entries;
  try {
    entries = await walkCandidate(root, limits.maxEntries !== undefined ? { maxEntries: limits.maxEntries } : {});
  } catch (e) {
    if (e instanceof UnsafeCandidateFile) return { files: 0, bytes: 0, problems: [e.message] };
    throw e;
  }
  const problems: string[] = [];
  let bytes = 0;
  let files = 0;
  for (const e of entries) {
    if (e.kind === 'file') {
      files++;
      bytes += e.size;
    } else if (e.kind === 'special') problems.push(`${e.rel} is ${e.special}`);
    else if (e.kind === 'link' && !(await leadsInside(root, e.rel).catch(() => false))) problems.push(`${e.rel} links outside the candidate (-> ${e.target})`);
  }
  if (bytes > limits.maxBytes) problems.unshift(`it holds ${mb(bytes)}, over its disk limit of ${mb(limits.maxBytes)} (evaluation.disk_max_mb)`);
  const shown = problems.length > SHOWN ? [...problems.slice(0, SHOWN), `and ${problems.length - SHOWN} more`] : problems;
  return { files, bytes, problems: shown };
}

/** The reason a candidate fails for what `when` (the build, the coding step) left, in one line. */
export function treeProblem(when: string, i: TreeInspection): string | undefined {
  return i.problems.length ? `${when} left what the harness refuses: ${i.problems.join('; ')}` : undefined;
}
