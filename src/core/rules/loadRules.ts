// Reads a rulebase directory: every *.md with front matter is a rule. A broken rule file is reported
// (file, key, message), never silently skipped.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import picomatch from 'picomatch';
import { parse } from 'yaml';
import { RuleFrontMatter, type Phase, type Rule } from './ruleSchema';

export class RuleError extends Error {}

const FRONT = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/;

export function parseRule(file: string, text: string): Rule {
  const m = FRONT.exec(text);
  if (!m) throw new RuleError(`${file}: no YAML front matter (a rule starts with --- id: ... ---)`);
  let data: unknown;
  try {
    data = parse(m[1]!);
  } catch (e) {
    throw new RuleError(`${file}: front matter is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const r = RuleFrontMatter.safeParse(data);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new RuleError(`${file}: ${i.path.join('.') || '(front matter)'}: ${i.message}`);
  }
  return { ...r.data, file, body: m[2]!.trim() };
}

/** Loads every rule in `dir` (README.md and files without front matter are documentation). */
export async function loadRules(dir: string): Promise<Rule[]> {
  const names = (await fs.readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.md') && f !== 'README.md').sort();
  const rules: Rule[] = [];
  const errors: string[] = [];
  for (const f of names) {
    const text = await fs.readFile(path.join(dir, f), 'utf8');
    if (!text.startsWith('---')) continue;
    try {
      rules.push(parseRule(f, text));
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  const ids = new Map<string, string>();
  for (const r of rules) {
    if (ids.has(r.id)) errors.push(`${r.file}: id "${r.id}" is also used by ${ids.get(r.id)}`);
    ids.set(r.id, r.file);
  }
  if (errors.length) throw new RuleError(`the rulebase in ${dir} has problems:\n  ${errors.join('\n  ')}`);
  return rules;
}

/** The rules an agent gets for a phase and the files it is working on. */
export function selectRules(rules: Rule[], phase: Phase, files: string[] = [], opts: { manual?: string[] } = {}): Rule[] {
  return rules.filter((r) => {
    if (!r.phases.includes(phase)) return false;
    if (r.scope === 'always') return true;
    if (r.scope === 'manual') return opts.manual?.includes(r.id) ?? false;
    const match = picomatch(r.globs, { dot: true });
    return files.some((f) => match(f));
  });
}
