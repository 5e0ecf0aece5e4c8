// Blanks C/C++ comments (and, optionally, the contents of string and character literals) with spaces,
// keeping every newline, so patterns match code only and offsets still map to the right lines.
// `blankComments` keeps the strings, for checks on the data a solver names (paths, file names).

export function blankNonCode(src: string, opts: { keepStrings?: boolean } = {}): string {
  const out = src.split('');
  const n = src.length;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  let i = 0;
  while (i < n) {
    const c = src[i]!;
    const d = src[i + 1];
    if (c === '/' && d === '/') {
      let j = i + 2;
      // A line comment continues over a backslash-newline.
      while (j < n && !(src[j] === '\n' && src[j - 1] !== '\\')) j++;
      blank(i, j);
      i = j;
    } else if (c === '/' && d === '*') {
      const end = src.indexOf('*/', i + 2);
      const j = end < 0 ? n : end + 2;
      blank(i, j);
      i = j;
    } else if (c === 'R' && d === '"' && !/[A-Za-z0-9_]/.test(src[i - 1] ?? '')) {
      // C++11 raw string R"delim( ... )delim"
      const open = src.indexOf('(', i + 2);
      const delim = open < 0 ? '' : src.slice(i + 2, open);
      const end = open < 0 ? -1 : src.indexOf(`)${delim}"`, open + 1);
      const j = end < 0 ? n : end + delim.length + 2;
      if (!opts.keepStrings) blank(i + 2, j - 1);
      i = j;
    } else if (c === '"' || (c === "'" && !/[0-9]/.test(src[i - 1] ?? ''))) {
      // A string or character literal (a ' after a digit is a C++14 digit separator).
      let j = i + 1;
      while (j < n && src[j] !== c && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      if (!opts.keepStrings) blank(i + 1, Math.min(j, n));
      i = j + 1;
    } else i++;
  }
  return out.join('');
}

/** How a file writes comments: C/C++ (line and block comments), `#` to the end of the line (shell, make, cmake), or none. */
export type CommentStyle = 'c' | 'hash' | 'none';

const C_LIKE = /\.(c|h|cc|cpp|cxx|hpp|hh|hxx|inc|ipp|tcc)$/i;
const HASH_LIKE = /(^|\/)([^/.]+|[Mm]akefile[^/]*|CMakeLists\.txt)$|\.(sh|bash|mk|cmake|py)$/;

/** The comment style of a file, from its name: files without an extension (the run script, starexec_build, configure) are scripts. */
export function commentStyleOf(rel: string): CommentStyle {
  if (C_LIKE.test(rel)) return 'c';
  return HASH_LIKE.test(rel) ? 'hash' : 'none';
}

/** Blanks comments only, keeping string literals and every offset, for checks that look at the data a solver names (paths, file names). */
export function blankComments(src: string, style: CommentStyle = 'c'): string {
  if (style === 'c') return blankNonCode(src, { keepStrings: true });
  return style === 'hash' ? blankHashComments(src) : src;
}

/** Shell-like `#` comments: a `#` that starts a word outside quotes runs to the end of the line (so `$#` and `"a#b"` stay). */
function blankHashComments(src: string): string {
  const out = src.split('');
  let quote: string | null = null;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\' && quote !== "'") i++;
    else if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /[\s;&|()]/.test(src[i - 1]!))) {
      while (i < src.length && src[i] !== '\n') out[i++] = ' ';
    }
  }
  return out.join('');
}

/** 1-based line of an offset, given the offsets where lines start. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

export function lineOf(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
