// The compliance checker: runs every check of the rules that apply to a phase against a candidate
// directory and reports each violation with its rule id and file:line, plus a compliance score.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import picomatch from 'picomatch';
import { type CandidateEntry, hashWalkedFile, leadsInside, listFiles, readWalkedFile, UnsafeCandidateFile, walkCandidate } from '../workspace/candidateFs';
import { blankComments, blankNonCode, commentStyleOf, lineOf, lineStarts } from './lexer';
import type { Check, Phase, Rule } from './ruleSchema';

export interface Violation {
  rule: string;
  /** The check's kind, or the forbidden pattern's id. */
  check: string;
  severity: 'error' | 'warning';
  file: string | null;
  line: number | null;
  message: string;
  /** The matched code, for source checks (how violations are compared with the parent's). */
  match?: string;
}

export interface ComplianceReport {
  dir: string;
  phase: Phase;
  violations: Violation[];
  errors: number;
  warnings: number;
  checksRun: number;
  checksPassed: number;
  /** checksPassed / checksRun (1 when nothing applied). */
  score: number;
  /** How often each rule fired in this check. */
  fired: Record<string, number>;
  /** Source hits the parent has too (or, for a seed, all of them): not the candidate's doing, not counted. */
  inherited: number;
}

export interface ComplianceRequest {
  dir: string;
  rules: Rule[];
  phase: Phase;
  /** The parent candidate, for protected paths; none for a seed. */
  parentDir?: string;
  /** Benchmark instance names (file names) whose presence in the source is a leak. */
  instanceNames?: string[];
  /** Content hashes (hex) of the benchmark instances. */
  instanceHashes?: string[];
  /** Report source hits even without a parent (used to read the parent's own hits). */
  keepSourceHits?: boolean;
}

const MAX_FILE = 4 << 20;

interface SourceFile {
  rel: string;
  text: string;
}

export async function checkCompliance(req: ComplianceRequest): Promise<ComplianceReport> {
  const files = await listFiles(req.dir);
  const texts = new Map<string, string | null>();
  // Regular files only, never through a link (listFiles lists no links); a NUL byte does not hide a
  // source (compilers skip NULs), and one too large to scan is reported rather than passed over.
  const tooLarge: string[] = [];
  const read = async (rel: string): Promise<string | null> => {
    if (!texts.has(rel)) {
      const buf = await readWalkedFile(req.dir, rel, MAX_FILE).catch((e: Error) => {
        if (e instanceof UnsafeCandidateFile && /bytes, more than/.test(e.message)) tooLarge.push(rel);
        return undefined;
      });
      texts.set(rel, buf ? buf.toString('utf8') : null);
    }
    return texts.get(rel)!;
  };
  const sources = async (globs: string[], except: string[] = []): Promise<SourceFile[]> => {
    const inc = picomatch(globs, { dot: true });
    const exc = except.length ? picomatch(except, { dot: true }) : () => false;
    const out: SourceFile[] = [];
    for (const rel of files)
      if (inc(rel) && !exc(rel)) {
        const text = await read(rel);
        if (text !== null) out.push({ rel, text });
      }
    return out;
  };
  const blanked = new Map<string, { code: string; starts: number[] }>();
  const codeOf = (f: SourceFile, keepStrings = false) => {
    const key = `${keepStrings ? 's' : 'c'}:${f.rel}`;
    if (!blanked.has(key)) blanked.set(key, { code: blankNonCode(f.text, { keepStrings }), starts: lineStarts(f.text) });
    return blanked.get(key)!;
  };
  const dataOf = (f: SourceFile) => {
    const key = `d:${f.rel}`;
    if (!blanked.has(key)) blanked.set(key, { code: blankComments(f.text, commentStyleOf(f.rel)), starts: lineStarts(f.text) });
    return blanked.get(key)!;
  };

  const perCheck: Violation[][] = [];
  for (const rule of req.rules.filter((r) => r.phases.includes(req.phase)))
    for (const check of rule.checks) {
      if (check.phases && !check.phases.includes(req.phase)) continue;
      if (check.kind === 'protected_path' && !req.parentDir) continue; // a seed has no parent
      perCheck.push(await runCheck(rule, check, { req, files, read, sources, codeOf, dataOf }));
    }
  // A source the checks could not read whole: a check of its own, inherited like a source hit when the parent has it too.
  if (tooLarge.length) perCheck.push([...new Set(tooLarge)].sort().map((rel) => ({ rule: 'harness', check: 'unreadable_source', severity: 'error' as const, file: rel, line: null, message: `${rel} is larger than ${MAX_FILE >> 20} MB, too large for the rules to check; a source this size must be generated, so generate it in the build instead`, match: 'too large' })));
  // Rules judge what a candidate changes: source hits the parent has too (the seed's own code) are not
  // the candidate's doing and do not count. A seed itself is the trusted baseline: none of its count.
  let inherited = 0;
  if (req.parentDir) {
    const parent = await checkCompliance({ ...req, dir: req.parentDir, parentDir: undefined, keepSourceHits: true });
    const key = (v: Violation) => `${v.rule}|${v.check}|${v.file}|${(v.match ?? '').replace(/\s+/g, ' ')}`;
    const budget = new Map<string, number>();
    for (const v of parent.violations) if (v.match !== undefined) budget.set(key(v), (budget.get(key(v)) ?? 0) + 1);
    for (const list of perCheck)
      for (let i = list.length - 1; i >= 0; i--) {
        const left = budget.get(key(list[i]!)) ?? 0;
        if (list[i]!.match !== undefined && left > 0) {
          budget.set(key(list[i]!), left - 1);
          list.splice(i, 1);
          inherited++;
        }
      }
  } else if (!req.keepSourceHits)
    for (const list of perCheck)
      for (let i = list.length - 1; i >= 0; i--)
        if (list[i]!.match !== undefined) {
          list.splice(i, 1);
          inherited++;
        }
  const violations = perCheck.flat();
  const checksRun = perCheck.length;
  const checksPassed = perCheck.filter((l) => l.length === 0).length;
  const fired: Record<string, number> = {};
  for (const v of violations) fired[v.rule] = (fired[v.rule] ?? 0) + 1;
  const errors = violations.filter((v) => v.severity === 'error').length;
  return {
    inherited,
    dir: req.dir,
    phase: req.phase,
    violations,
    errors,
    warnings: violations.length - errors,
    checksRun,
    checksPassed,
    score: checksRun ? checksPassed / checksRun : 1,
    fired,
  };
}

interface Ctx {
  req: ComplianceRequest;
  files: string[];
  read: (rel: string) => Promise<string | null>;
  sources: (globs: string[], except?: string[]) => Promise<SourceFile[]>;
  codeOf: (f: SourceFile, keepStrings?: boolean) => { code: string; starts: number[] };
  /** The file with only its comments blanked, in its own comment syntax (C, or `#` for scripts). */
  dataOf: (f: SourceFile) => { code: string; starts: number[] };
}

async function runCheck(rule: Rule, check: Check, ctx: Ctx): Promise<Violation[]> {
  const v = (file: string | null, line: number | null, message: string, id: string = check.kind): Violation => ({ rule: rule.id, check: id, severity: check.severity, file, line, message });
  switch (check.kind) {
    case 'forbidden_pattern': {
      const re = new RegExp(check.pattern, 'g');
      const out: Violation[] = [];
      for (const f of await ctx.sources(check.files, check.except)) {
        const { code, starts } = check.in_strings ? ctx.dataOf(f) : ctx.codeOf(f);
        for (const m of code.matchAll(re)) out.push({ ...v(f.rel, lineOf(starts, m.index), `${check.message} (\`${m[0].trim().slice(0, 60)}\`)`, check.id), match: m[0] });
      }
      return out;
    }
    case 'required_file': {
      const file = path.join(ctx.req.dir, check.path);
      // A link counts only when it leads to a file inside the candidate.
      const inside = await leadsInside(ctx.req.dir, check.path).catch(() => false);
      const st = inside ? await fs.stat(file).catch(() => undefined) : undefined;
      if (!inside && (await fs.lstat(file).then(() => true, () => false))) return [v(check.path, null, `${check.path} leads outside the candidate`)];
      if (!st?.isFile()) return [v(check.path, null, `${check.path} is missing`)];
      if (check.non_empty && st.size === 0) return [v(check.path, null, `${check.path} is empty`)];
      if (check.executable && !(st.mode & 0o111)) return [v(check.path, null, `${check.path} is not executable (chmod +x)`)];
      return [];
    }
    case 'required_section': {
      const text = await ctx.read(check.file);
      if (text === null) return [v(check.file, null, `${check.file} is missing, so it has no "${check.heading}" section`)];
      const want = check.heading.toLowerCase();
      const has = text.split('\n').some((l) => /^#{1,6}\s/.test(l) && l.replace(/^#+\s*/, '').trim().toLowerCase().startsWith(want));
      return has ? [] : [v(check.file, null, `${check.file} has no "${check.heading}" section (a markdown heading)`)];
    }
    case 'protected_path': {
      const parent = ctx.req.parentDir!;
      return (await protectedChanges(ctx.req.dir, parent, check.paths)).map((c) => v(c.rel, null, c.message));
    }
    case 'banned_include': {
      const re = new RegExp(`^\\s*#\\s*include\\s*[<"](${check.headers.map(escape).join('|')})[>"]`, 'gm');
      const out: Violation[] = [];
      for (const f of await ctx.sources(check.files)) {
        const { code, starts } = ctx.codeOf(f, true);
        for (const m of code.matchAll(re)) out.push({ ...v(f.rel, lineOf(starts, m.index), `#include <${m[1]}> is banned (threads, OpenMP and networking are not allowed)`), match: m[1]! });
      }
      return out;
    }
    case 'banned_link_flag': {
      const re = new RegExp(`(^|\\s|["'=])(${check.flags.map(escape).join('|')})(?=$|\\s|["'])`, 'gm');
      const out: Violation[] = [];
      for (const f of await ctx.sources(check.files)) {
        const starts = lineStarts(f.text);
        const noComments = f.text.replace(/#.*$/gm, (s) => ' '.repeat(s.length)); // shell / make comments
        for (const m of noComments.matchAll(re)) out.push({ ...v(f.rel, lineOf(starts, m.index + m[1]!.length), `link flag ${m[2]} is banned`), match: m[2]! });
      }
      return out;
    }
    case 'instance_name_leak': {
      const all = [...new Set((ctx.req.instanceNames ?? []).map((n) => path.basename(n).replace(/\.cnf(\.(gz|xz|bz2|lzma))?$/, '')))];
      const names = all.filter((n) => n.length >= check.min_length);
      // Short names would match identifiers and words everywhere: only distinctive ones (a digit, - or _), only in strings, only whole.
      const short = all.filter((n) => n.length < check.min_length && n.length >= check.min_length_in_strings && /[0-9_-]/.test(n));
      const hashes = [...new Set((ctx.req.instanceHashes ?? []).map((h) => h.slice(0, 16)))];
      if (names.length + short.length + hashes.length === 0) return [];
      const re = names.length + hashes.length ? new RegExp([...names.map(escape), ...hashes].join('|'), 'g') : undefined;
      const shortRe = short.length ? new RegExp(`(?<![A-Za-z0-9_-])(?:${short.map(escape).join('|')})(?![A-Za-z0-9_-])`, 'g') : undefined;
      const say = (name: string) => `benchmark instance "${name}" is named in the source: instance-specific code is forbidden`;
      const out: Violation[] = [];
      for (const f of await ctx.sources(check.files)) {
        // Leaks usually hide in string literals: only comments are ignored here.
        const { code, starts } = ctx.codeOf(f, true);
        for (const m of re ? code.matchAll(re) : []) out.push({ ...v(f.rel, lineOf(starts, m.index), say(m[0])), match: m[0] });
        if (!shortRe) continue;
        // The string literals alone: where the code with strings differs from the code without them.
        const bare = ctx.codeOf(f).code;
        const strings = code.replace(/[^\n]/g, (ch, i: number) => (bare[i] === ch ? ' ' : ch));
        for (const m of strings.matchAll(shortRe)) out.push({ ...v(f.rel, lineOf(starts, m.index), say(m[0])), match: m[0] });
      }
      return out;
    }
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A protected path that differs from the parent's, and how. */
export interface ProtectedChange {
  rel: string;
  message: string;
}

/**
 * The paths matching `globs` (links and special files included: a link is its target, never what it
 * leads to) that differ between `dir` and `parentDir`: added, deleted or changed. The compliance gate
 * asks before the build, and the gates again after it, so a build cannot rewrite them either.
 */
export async function protectedChanges(dir: string, parentDir: string, globs: readonly string[]): Promise<ProtectedChange[]> {
  const match = picomatch([...globs], { dot: true });
  const entries = async (root: string) => new Map((await walkCandidate(root).catch(() => [])).filter((e) => e.kind !== 'dir' && match(e.rel)).map((e) => [e.rel, e]));
  const [mine, theirs] = await Promise.all([entries(dir), entries(parentDir)]);
  const out: ProtectedChange[] = [];
  for (const rel of [...new Set([...mine.keys(), ...theirs.keys()])].sort()) {
    const [a, b] = await Promise.all([fingerprint(dir, mine.get(rel)), fingerprint(parentDir, theirs.get(rel))]);
    if (a !== b) out.push({ rel, message: `${rel} is protected and must stay as in the parent (${a === undefined ? 'deleted' : b === undefined ? 'added' : 'changed'})` });
  }
  return out;
}

/** What an entry is, as a string: a file by its mode and content hash (streamed), a link by its target, a special file by its kind. */
async function fingerprint(root: string, e: CandidateEntry | undefined): Promise<string | undefined> {
  if (!e) return undefined;
  if (e.kind === 'link') return `link ${e.target}`;
  if (e.kind === 'special') return `special ${e.special}`;
  return `file ${e.executable ? 'x' : '-'} ${await hashWalkedFile(root, e.rel)}`;
}
