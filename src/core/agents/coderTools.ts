// The coder's tools (the planner uses the reading ones). Arguments are validated with zod; every
// failure (bad JSON, a bad argument, an edit that does not match exactly once, a path outside the
// candidate, a file that is too large or not a regular file) goes back to the model as a tool error it
// can act on. A candidate is untrusted data, so every file access goes through candidateFs, every
// size is capped, patterns are RE2 (linear time), and a call that runs past its time limit or past a
// stop is abandoned: no tool can hang or flood the harness.
import * as fs from 'node:fs/promises';
import { RE2JS, RE2JSException } from 're2js';
import { z } from 'zod';
import type { ToolCall, ToolSpec } from '../llm/provider';
import { type CandidateEntry, readCandidateText, specialKind, UnsafeCandidateFile, walkCandidate, writeCandidateFile } from '../workspace/candidateFs';
import { answerPath, type Place, Sandbox, SandboxError } from './sandbox';

/** The most characters of one tool result sent back to the model. */
export const MAX_TOOL_OUTPUT = 20_000;
/** The largest file read_file reads (in parts, by line range, when its text is longer than a result). */
export const READ_MAX_BYTES = 8 << 20;
/** The largest file write_file writes and edit_file edits or leaves. */
export const WRITE_MAX_BYTES = 1 << 20;
/** Files larger than this are skipped by search (sources are far smaller). */
const SEARCH_FILE_MAX_BYTES = 2 << 20;
/** What one search reads in all, at most. */
const SEARCH_TOTAL_BYTES = 64 << 20;
/** The time limit of a file tool's call; build and smoke have their own (evaluation.build_timeout_s, the smoke set's). */
export const TOOL_TIME_LIMIT_MS = 30_000;
/** The longest arguments a call of each tool may have; longer ones are refused and not kept in the conversation. */
const ARGUMENT_LIMITS: Record<string, number> = { write_file: 2 * WRITE_MAX_BYTES + 4096, edit_file: 2 * WRITE_MAX_BYTES + 4096, submit_plan: 64 << 10 };
/** The argument limit of the other tools (a path, a pattern). */
const DEFAULT_ARGUMENT_LIMIT = 16 << 10;

export interface ToolHost {
  sandbox: Sandbox;
  /** Runs the build gate; returns a summary with the parsed compiler errors. */
  build(): Promise<{ ok: boolean; text: string }>;
  /** Runs the smoke gate; returns a summary of failures. */
  smoke(): Promise<{ ok: boolean; text: string }>;
}

export interface ToolOutcome {
  content: string;
  isError: boolean;
  /** Set by `finish`: the CHANGELOG entry the coder wrote. */
  finished?: { changelog: string };
}

const Path = z.string().min(1).max(1024).describe('path relative to the candidate directory');
/** Text a file may hold: at most WRITE_MAX_BYTES of UTF-8. */
const fileText = (min = 0) =>
  z
    .string()
    .min(min)
    .max(WRITE_MAX_BYTES)
    .refine((s) => Buffer.byteLength(s) <= WRITE_MAX_BYTES, { message: `at most ${WRITE_MAX_BYTES} bytes (1 MiB) per file` });

const SCHEMAS = {
  list_files: z.object({ path: Path.default('.'), depth: z.number().int().min(1).max(6).default(2) }).strict(),
  read_file: z.object({ path: Path, start_line: z.number().int().positive().optional(), end_line: z.number().int().positive().optional() }).strict(),
  search: z
    .object({
      pattern: z.string().min(1).max(1000).describe('regular expression, RE2 syntax'),
      path: Path.default('.'),
      max_results: z.number().int().positive().max(200).default(50),
    })
    .strict(),
  write_file: z.object({ path: Path, content: fileText() }).strict(),
  edit_file: z.object({ path: Path, search: fileText(1).describe('exact text that occurs once in the file'), replace: fileText() }).strict(),
  build: z.object({}).strict(),
  smoke: z.object({}).strict(),
  finish: z.object({ changelog: z.string().min(10).max(20_000).describe('what was changed, file by file (goes into CHANGELOG.md)') }).strict(),
} as const;
export type ToolName = keyof typeof SCHEMAS;

const DESCRIPTIONS: Record<ToolName, string> = {
  list_files:
    'List files and directories (with sizes) under a path, hidden ones included. Symbolic links show as `name -> target`; FIFOs, sockets and devices are marked (no tool reads them).',
  read_file:
    'Read a text file (up to 8 MiB), optionally only lines start_line..end_line (1-based, inclusive). Lines are numbered; a result is cut at 20,000 characters, so read a long file in parts.',
  search:
    'Search files for a regular expression in RE2 syntax (no backreferences, no lookahead or lookbehind); returns path:line: text for each match. Binary files and files over 2 MiB are skipped.',
  write_file: 'Create or overwrite a whole file (at most 1 MiB). Prefer edit_file for changes to existing files. Never writes through a symbolic link.',
  edit_file:
    'Replace one exact occurrence of `search` with `replace` in a file of at most 1 MiB. Fails if `search` occurs zero or several times: read the file and include more context.',
  build: 'Run bash starexec_build; returns the compiler errors as file:line: message.',
  smoke: 'Run the smoke benchmark set with all checks; returns the failures.',
  finish: 'End the task: give the CHANGELOG entry (what was changed, file by file). Call it only after a successful build.',
};

/** Tools that run candidate code under limits of their own; the others get TOOL_TIME_LIMIT_MS. */
const UNTIMED: readonly string[] = ['build', 'smoke', 'finish'];

export function toolSpecs(): ToolSpec[] {
  return (Object.keys(SCHEMAS) as ToolName[]).map((name) => {
    const { $schema: _s, ...parameters } = z.toJSONSchema(SCHEMAS[name], { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    return { name, description: DESCRIPTIONS[name], parameters };
  });
}

/** `text` cut to at most `max` characters in all, the note that says so (and `hint`, what to do) included. */
export function truncate(text: string, max = MAX_TOOL_OUTPUT, hint = 'ask for a narrower range'): string {
  if (text.length <= max) return text;
  const note = (n: number) => `\n[... truncated: ${n} more characters; ${hint}]`;
  const keep = Math.max(0, max - note(text.length).length);
  return `${text.slice(0, keep)}${note(text.length - keep)}`;
}

/** The arguments a call of `name` may have, at most, in characters. */
export const argumentLimit = (name: string): number => ARGUMENT_LIMITS[name] ?? DEFAULT_ARGUMENT_LIMIT;

/**
 * The call as the conversation keeps it: arguments over the tool's limit (refused anyway) are replaced
 * by a note, so one oversized call is not sent back to the model with every later request.
 */
export function keptCall(call: ToolCall): ToolCall {
  if (call.arguments.length <= argumentLimit(call.name)) return call;
  return {
    ...call,
    arguments: JSON.stringify({ omitted: `${call.arguments.length} characters of arguments, over the ${argumentLimit(call.name)} ${call.name} takes` }),
  };
}

/** Settles as `work` does, or rejects with the signal's reason as soon as it aborts (the work is left to end on its own). */
function abandonable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Runs one tool call. A stop (`signal`) is not a tool error: it rejects with the signal's reason, at
 * once, even while a call is still running, so the agent's loop ends.
 */
export async function runTool(name: string, rawArgs: string, host: ToolHost, signal?: AbortSignal): Promise<ToolOutcome> {
  signal?.throwIfAborted();
  const err = (content: string): ToolOutcome => ({ content, isError: true });
  if (!(name in SCHEMAS)) return err(`unknown tool "${name}"; the tools are: ${Object.keys(SCHEMAS).join(', ')}`);
  if (rawArgs.length > argumentLimit(name))
    return err(
      `the arguments of ${name} are ${rawArgs.length} characters, more than the ${argumentLimit(name)} it takes${name === 'write_file' || name === 'edit_file' ? ` (a file holds at most ${WRITE_MAX_BYTES} bytes)` : ''}`,
    );
  let json: unknown;
  try {
    json = rawArgs.trim() ? JSON.parse(rawArgs) : {};
  } catch (e) {
    return err(`the arguments are not valid JSON (${(e as Error).message}); send a JSON object`);
  }
  const parsed = SCHEMAS[name as ToolName].safeParse(json);
  if (!parsed.success)
    return err(`invalid arguments for ${name}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ')}`);
  const deadline = UNTIMED.includes(name) ? undefined : AbortSignal.timeout(TOOL_TIME_LIMIT_MS);
  const signals = [signal, deadline].filter((s): s is AbortSignal => s !== undefined);
  const within = signals.length ? AbortSignal.any(signals) : undefined;
  try {
    const work = execute(name as ToolName, parsed.data as never, host, within);
    const out = await (within ? abandonable(work, within) : work);
    return { ...out, content: truncate(out.content) };
  } catch (e) {
    if (signal?.aborted) throw signal.reason;
    if (deadline?.aborted) return err(`${name} took longer than ${TOOL_TIME_LIMIT_MS / 1000} s and was stopped; narrow it (a smaller path, a simpler pattern)`);
    if (e instanceof SandboxError) return err(e.message);
    if (e instanceof UnsafeCandidateFile) return err(`${e.message}; the tools read and write regular files inside the candidate only`);
    if (e instanceof RE2JSException) return err(regexError(e));
    const code = (e as NodeJS.ErrnoException).code;
    return err(
      code === 'ENOENT'
        ? `no such file or directory`
        : code === 'EISDIR'
          ? 'that is a directory'
          : code === 'ENOTDIR'
            ? 'a part of that path is not a directory'
            : (e as Error).message,
    );
  }
}

/** An RE2 syntax error, with what RE2 does not have. */
const regexError = (e: Error) =>
  `invalid regular expression (RE2 syntax: no backreferences such as \\1, no lookahead or lookbehind such as (?=...) or (?<!...)): ${e.message}`;

type Args<N extends ToolName> = z.infer<(typeof SCHEMAS)[N]>;

/** The path an entry of a walk from `from` has, as the agent names it. */
const shownEntry = (from: Place, e: CandidateEntry) => (from.shown === '.' ? e.rel : `${from.shown}/${e.rel}`);

/** One line of a listing: directories end in `/`, links show their target, special files say what they are. */
function listed(e: CandidateEntry, name: string): string {
  switch (e.kind) {
    case 'dir':
      return `${name}/`;
    case 'link':
      return `${name} -> ${e.target}`;
    case 'special':
      return `${name} [${e.special}: not a regular file, no tool reads it]`;
    case 'file':
      return `${name} (${e.size} bytes${e.executable ? ', executable' : ''})${answerPath(e.rel) ? ' [expected answers: not readable]' : ''}`;
  }
}

/** The directory places a walk of `p` starts from: the view's candidate directories for its top, else the place itself. */
const starts = (place: Place): Place[] => place.parts ?? [place];

async function execute<N extends ToolName>(name: N, a: Args<N>, host: ToolHost, signal: AbortSignal | undefined): Promise<ToolOutcome> {
  const ok = (content: string): ToolOutcome => ({ content, isError: false });
  const bad = (content: string): ToolOutcome => ({ content, isError: true });
  const sb = host.sandbox;
  const walkOpts = signal ? { signal } : {};
  switch (name) {
    case 'list_files': {
      const { path: p, depth } = a as Args<'list_files'>;
      const place = await sb.resolve(p);
      const lines: string[] = [];
      for (const from of starts(place)) {
        if (place.parts) lines.push(`${from.shown}/`);
        const indent = place.parts ? '  ' : '';
        const levels = place.parts ? depth - 1 : depth;
        if (levels < 1) continue;
        const single = await singleEntry(from);
        if (single) {
          lines.push(listed(single, from.shown));
          continue;
        }
        for (const e of await walkCandidate(await realDir(from), { ...walkOpts, maxDepth: levels }))
          lines.push(`${indent}${'  '.repeat(e.rel.split('/').length - 1)}${listed(e, e.rel.split('/').at(-1)!)}`);
      }
      return ok(`${place.shown}:\n${lines.join('\n') || '(empty)'}`);
    }
    case 'read_file': {
      const { path: p, start_line, end_line } = a as Args<'read_file'>;
      const place = await sb.resolve(p);
      const entry = place.parts ? undefined : await singleEntry(place);
      if (!entry) return bad(`${place.shown} is a directory; list it with list_files`);
      if (entry.size > READ_MAX_BYTES)
        return bad(`${place.shown} has ${entry.size} bytes; read_file reads files of at most ${READ_MAX_BYTES >> 20} MiB (search it for what you need)`);
      const text = await readCandidateText(place.root, place.rel, { maxBytes: READ_MAX_BYTES });
      if (text.includes('\0')) return bad(`${place.shown} is a binary file (${Buffer.byteLength(text)} bytes); read_file reads text`);
      const lines = text.split('\n');
      const from = start_line ?? 1;
      const to = Math.min(end_line ?? lines.length, lines.length);
      if (from > lines.length) return bad(`the file has only ${lines.length} lines`);
      const numbered = lines
        .slice(from - 1, to)
        .map((l, i) => `${String(from + i).padStart(5)}  ${l}`)
        .join('\n');
      return ok(
        truncate(numbered, MAX_TOOL_OUTPUT, `ask for a narrower range: the file has ${lines.length} lines, read them in parts with start_line and end_line`),
      );
    }
    case 'search': {
      const { pattern, path: p, max_results } = a as Args<'search'>;
      const re = RE2JS.compile(pattern);
      const place = await sb.resolve(p);
      const hits: string[] = [];
      let skipped = 0;
      let read = 0;
      let cut = false;
      const scan = (shown: string, text: string) => {
        const lines = text.split('\n');
        for (let i = 0; i < lines.length && hits.length < max_results; i++)
          if (re.test(lines[i]!)) hits.push(`${shown}:${i + 1}: ${lines[i]!.trim().slice(0, 200)}`);
      };
      searching: for (const from of starts(place)) {
        const single = await singleEntry(from);
        const files = single
          ? [{ root: from.root, rel: from.rel, shown: from.shown, size: single.size, kind: single.kind }]
          : (await walkCandidate(await realDir(from), walkOpts)).map((e) => ({
              root: from.root,
              rel: from.rel ? `${from.rel}/${e.rel}` : e.rel,
              shown: shownEntry(from, e),
              size: e.size,
              kind: e.kind,
            }));
        for (const f of files) {
          if (hits.length >= max_results) break searching;
          signal?.throwIfAborted();
          // Links are searched under the name of what they lead to (if it is inside), special files never.
          if ((f.kind !== 'file' && !single) || answerPath(f.rel)) continue;
          if (f.size > SEARCH_FILE_MAX_BYTES) {
            skipped++;
            continue;
          }
          if (read + f.size > SEARCH_TOTAL_BYTES) {
            cut = true;
            break searching;
          }
          const text = await readCandidateText(f.root, f.rel, { maxBytes: SEARCH_FILE_MAX_BYTES, follow: single !== undefined });
          read += f.size;
          if (!text.includes('\0')) scan(f.shown, text);
        }
      }
      const notes = [
        hits.length >= max_results ? `[stopped at ${max_results} matches]` : '',
        skipped ? `[skipped ${skipped} files over ${SEARCH_FILE_MAX_BYTES >> 20} MiB]` : '',
        cut ? `[stopped after reading ${SEARCH_TOTAL_BYTES >> 20} MiB: search a narrower path]` : '',
      ].filter(Boolean);
      return ok([hits.length ? hits.join('\n') : 'no matches', ...notes].join('\n'));
    }
    case 'write_file': {
      const { path: p, content } = a as Args<'write_file'>;
      const place = await sb.resolve(p, { write: true });
      await writeCandidateFile(place.root, place.rel, content);
      return ok(`wrote ${place.shown} (${content.split('\n').length} lines)`);
    }
    case 'edit_file': {
      const { path: p, search, replace } = a as Args<'edit_file'>;
      const place = await sb.resolve(p, { write: true });
      const rel = place.shown;
      const entry = await singleEntry(place);
      if (entry && entry.size > WRITE_MAX_BYTES)
        return bad(`edit_file: ${rel} has ${entry.size} bytes; edit_file edits files of at most ${WRITE_MAX_BYTES} bytes (1 MiB)`);
      const text = await readCandidateText(place.root, place.rel, { maxBytes: WRITE_MAX_BYTES, follow: false });
      // Keep the file's line endings: the model writes \n, a CRLF file stays CRLF.
      const crlf = text.includes('\r\n');
      const s = crlf ? search.replace(/\r?\n/g, '\r\n') : search;
      const r = crlf ? replace.replace(/\r?\n/g, '\r\n') : replace;
      const count = text.split(s).length - 1;
      if (count === 0) return bad(`edit_file: the search text does not occur in ${rel}; read the file again and copy the text exactly (whitespace included)`);
      if (count > 1) return bad(`edit_file: the search text occurs ${count} times in ${rel}; include more surrounding lines so it occurs once`);
      const at = text.indexOf(s);
      const edited = text.slice(0, at) + r + text.slice(at + s.length);
      if (Buffer.byteLength(edited) > WRITE_MAX_BYTES)
        return bad(
          `edit_file: ${rel} would grow to ${Buffer.byteLength(edited)} bytes, more than the ${WRITE_MAX_BYTES} a file may hold; split it into several files`,
        );
      await writeCandidateFile(place.root, place.rel, edited);
      const line = text.slice(0, at).split('\n').length;
      return ok(`edited ${rel} at line ${line}`);
    }
    case 'build': {
      const b = await host.build();
      return { content: b.text, isError: !b.ok };
    }
    case 'smoke': {
      const s = await host.smoke();
      return { content: s.text, isError: !s.ok };
    }
    case 'finish': {
      const { changelog } = a as Args<'finish'>;
      return { content: 'finished', isError: false, finished: { changelog } };
    }
  }
  return { content: `unhandled tool ${name}`, isError: true };
}

/** The real directory a place names, for candidateFs to walk (the sandbox checked that it leads inside the candidate). */
const realDir = (p: Place) => fs.realpath(p.abs);

/** A place that is not a directory, as one entry (lstat: a link is itself); undefined for a directory. */
async function singleEntry(p: Place): Promise<CandidateEntry | undefined> {
  const { abs } = p;
  const st = await fs.lstat(abs);
  if (st.isDirectory()) return undefined;
  const name = p.rel.split('/').at(-1) ?? p.rel;
  if (st.isSymbolicLink()) {
    // A link to a directory inside is walked as that directory; any other link is one entry.
    if (
      await fs.stat(abs).then(
        (s) => s.isDirectory(),
        () => false,
      )
    )
      return undefined;
    return { rel: name, kind: 'link', size: 0, executable: false, target: await fs.readlink(abs) };
  }
  if (st.isFile()) return { rel: name, kind: 'file', size: st.size, executable: (st.mode & 0o111) !== 0 };
  return { rel: name, kind: 'special', size: 0, executable: false, special: specialKind(st) };
}
