// What a candidate's code is, for duplicate detection: its C/C++ sources and build files with
// comments and whitespace removed (a reformatted or re-commented copy is the same program), and how
// many source lines it has (the islands' code-size feature).
import { createHash } from 'node:crypto';
import { listFiles, readCandidateText } from '../workspace/candidateFs';

/** A larger source file is generated, not written: it is not read whole for the duplicate hash. */
const SOURCE_MAX_BYTES = 8 << 20;

const SOURCE = /\.(c|cc|cpp|cxx|h|hh|hpp|hxx|inc)$/;
const BUILD = /(^|\/)(Makefile|makefile|CMakeLists\.txt|configure|starexec_build|[^/]*\.mk)$/;

/** C/C++ comments and all whitespace out; string literals are kept (a comment marker inside one stays). */
export function normalizeSource(text: string): string {
  return text.replace(/"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (m) => (m.startsWith('/') ? ' ' : m)).replace(/\s+/g, '');
}

export interface SourceFacts {
  /** Hash of the normalized sources and build files (paths included). */
  hash: string;
  /** Lines of C/C++ source. */
  lines: number;
}

export async function sourceFacts(dir: string): Promise<SourceFacts> {
  const h = createHash('sha256');
  let lines = 0;
  for (const f of await listFiles(dir)) {
    const src = SOURCE.test(f);
    if (!src && !BUILD.test(f)) continue;
    // Sources over the cap are not code a person wrote; they count as empty here (the rules see them whole).
    const text = await readCandidateText(dir, f, { maxBytes: SOURCE_MAX_BYTES, follow: false }).catch(() => '');
    if (src) lines += text.split('\n').length;
    h.update(f + '\0' + (src ? normalizeSource(text) : text.replace(/\s+/g, ' ').trim()) + '\0');
  }
  return { hash: h.digest('hex').slice(0, 32), lines };
}
