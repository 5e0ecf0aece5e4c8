// The coder's tools. Arguments are validated with zod; every failure (bad JSON, a bad argument, an
// edit that does not match exactly once, a path outside the candidate) goes back to the model as a
// tool error it can act on. Long outputs are truncated with a note saying so.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import type { ToolSpec } from '../llm/types';
import { Sandbox, SandboxError } from './sandbox';

export const MAX_TOOL_OUTPUT = 20_000;

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

const Path = z.string().min(1).describe('path relative to the candidate directory');

const SCHEMAS = {
  list_files: z.object({ path: Path.default('.'), depth: z.number().int().min(1).max(6).default(2) }).strict(),
  read_file: z.object({ path: Path, start_line: z.number().int().positive().optional(), end_line: z.number().int().positive().optional() }).strict(),
  search: z.object({ pattern: z.string().min(1).describe('JavaScript regular expression'), path: Path.default('.'), max_results: z.number().int().positive().max(200).default(50) }).strict(),
  write_file: z.object({ path: Path, content: z.string() }).strict(),
  edit_file: z.object({ path: Path, search: z.string().min(1).describe('exact text that occurs once in the file'), replace: z.string() }).strict(),
  build: z.object({}).strict(),
  smoke: z.object({}).strict(),
  finish: z.object({ changelog: z.string().min(10).describe('what was changed, file by file (goes into CHANGELOG.md)') }).strict(),
} as const;
export type ToolName = keyof typeof SCHEMAS;

const DESCRIPTIONS: Record<ToolName, string> = {
  list_files: 'List files and directories (with sizes) under a path of the candidate.',
  read_file: 'Read a file, optionally only lines start_line..end_line (1-based, inclusive). Lines are numbered.',
  search: 'Search files for a regular expression; returns path:line: text for each match.',
  write_file: 'Create or overwrite a whole file. Prefer edit_file for changes to existing files.',
  edit_file: 'Replace one exact occurrence of `search` with `replace`. Fails if `search` occurs zero or several times: read the file and include more context.',
  build: 'Run bash starexec_build; returns the compiler errors as file:line: message.',
  smoke: 'Run the smoke benchmark set with all checks; returns the failures.',
  finish: 'End the task: give the CHANGELOG entry (what was changed, file by file). Call it only after a successful build.',
};

export function toolSpecs(): ToolSpec[] {
  return (Object.keys(SCHEMAS) as ToolName[]).map((name) => {
    const { $schema: _s, ...parameters } = z.toJSONSchema(SCHEMAS[name], { io: 'input' }) as Record<string, unknown>;
    return { name, description: DESCRIPTIONS[name], parameters };
  });
}

export function truncate(text: string, max = MAX_TOOL_OUTPUT): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[... truncated: ${text.length - max} more characters; ask for a narrower range]`;
}

export async function runTool(name: string, rawArgs: string, host: ToolHost): Promise<ToolOutcome> {
  const err = (content: string): ToolOutcome => ({ content, isError: true });
  if (!(name in SCHEMAS)) return err(`unknown tool "${name}"; the tools are: ${Object.keys(SCHEMAS).join(', ')}`);
  let json: unknown;
  try {
    json = rawArgs.trim() ? JSON.parse(rawArgs) : {};
  } catch (e) {
    return err(`the arguments are not valid JSON (${(e as Error).message}); send a JSON object`);
  }
  const parsed = SCHEMAS[name as ToolName].safeParse(json);
  if (!parsed.success) return err(`invalid arguments for ${name}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ')}`);
  try {
    const out = await execute(name as ToolName, parsed.data as never, host);
    return { ...out, content: truncate(out.content) };
  } catch (e) {
    if (e instanceof SandboxError) return err(e.message);
    const code = (e as NodeJS.ErrnoException).code;
    return err(code === 'ENOENT' ? `no such file or directory` : code === 'EISDIR' ? 'that is a directory' : (e as Error).message);
  }
}

type Args<N extends ToolName> = z.infer<(typeof SCHEMAS)[N]>;

async function execute<N extends ToolName>(name: N, a: Args<N>, host: ToolHost): Promise<ToolOutcome> {
  const ok = (content: string): ToolOutcome => ({ content, isError: false });
  const sb = host.sandbox;
  switch (name) {
    case 'list_files': {
      const { path: p, depth } = a as Args<'list_files'>;
      const { abs, rel } = await sb.resolve(p);
      const lines: string[] = [];
      const walk = async (d: string, prefix: string, level: number) => {
        for (const e of (await fs.readdir(d, { withFileTypes: true })).sort((x, y) => x.name.localeCompare(y.name))) {
          if (e.name === '.git') continue;
          const full = path.join(d, e.name);
          if (e.isDirectory()) {
            lines.push(`${prefix}${e.name}/`);
            if (level < depth) await walk(full, prefix + '  ', level + 1);
          } else lines.push(`${prefix}${e.name} (${(await fs.stat(full)).size} bytes)`);
        }
      };
      await walk(abs, '', 1);
      return ok(`${rel}:\n${lines.join('\n') || '(empty)'}`);
    }
    case 'read_file': {
      const { path: p, start_line, end_line } = a as Args<'read_file'>;
      const { abs } = await sb.resolve(p);
      const lines = (await fs.readFile(abs, 'utf8')).split('\n');
      const from = start_line ?? 1;
      const to = Math.min(end_line ?? lines.length, lines.length);
      if (from > lines.length) return { content: `the file has only ${lines.length} lines`, isError: true };
      return ok(lines.slice(from - 1, to).map((l, i) => `${String(from + i).padStart(5)}  ${l}`).join('\n'));
    }
    case 'search': {
      const { pattern, path: p, max_results } = a as Args<'search'>;
      let re: RegExp;
      try {
        re = new RegExp(pattern);
      } catch (e) {
        return { content: `invalid regular expression: ${(e as Error).message}`, isError: true };
      }
      const { abs } = await sb.resolve(p);
      const hits: string[] = [];
      const walk = async (d: string) => {
        for (const e of await fs.readdir(d, { withFileTypes: true })) {
          if (hits.length >= max_results || e.name === '.git') continue;
          const full = path.join(d, e.name);
          if (e.isDirectory()) await walk(full);
          else if (e.isFile() && (await fs.stat(full)).size < 2 << 20) {
            const text = await fs.readFile(full, 'utf8');
            if (text.includes('\0')) continue;
            text.split('\n').forEach((l, i) => {
              if (hits.length < max_results && re.test(l)) hits.push(`${path.relative(sb.root, full)}:${i + 1}: ${l.trim().slice(0, 200)}`);
            });
          }
        }
      };
      const st = await fs.stat(abs);
      if (st.isDirectory()) await walk(abs);
      else
        (await fs.readFile(abs, 'utf8')).split('\n').forEach((l, i) => {
          if (hits.length < max_results && re.test(l)) hits.push(`${p}:${i + 1}: ${l.trim().slice(0, 200)}`);
        });
      return ok(hits.length ? hits.join('\n') + (hits.length >= max_results ? `\n[stopped at ${max_results} matches]` : '') : 'no matches');
    }
    case 'write_file': {
      const { path: p, content } = a as Args<'write_file'>;
      const { abs, rel } = await sb.resolve(p, { write: true });
      await fs.mkdir(path.dirname(abs), { recursive: true });
      await fs.writeFile(abs, content);
      return ok(`wrote ${rel} (${content.split('\n').length} lines)`);
    }
    case 'edit_file': {
      const { path: p, search, replace } = a as Args<'edit_file'>;
      const { abs, rel } = await sb.resolve(p, { write: true });
      const text = await fs.readFile(abs, 'utf8');
      // Keep the file's line endings: the model writes \n, a CRLF file stays CRLF.
      const crlf = text.includes('\r\n');
      const s = crlf ? search.replace(/\r?\n/g, '\r\n') : search;
      const r = crlf ? replace.replace(/\r?\n/g, '\r\n') : replace;
      const count = text.split(s).length - 1;
      if (count === 0) return { content: `edit_file: the search text does not occur in ${rel}; read the file again and copy the text exactly (whitespace included)`, isError: true };
      if (count > 1) return { content: `edit_file: the search text occurs ${count} times in ${rel}; include more surrounding lines so it occurs once`, isError: true };
      const at = text.indexOf(s);
      await fs.writeFile(abs, text.slice(0, at) + r + text.slice(at + s.length));
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
