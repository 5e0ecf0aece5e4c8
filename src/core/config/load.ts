// Loads satlution.yaml and turns every problem (YAML syntax or schema) into a ConfigIssue that names
// the key, what was wrong, an example fix, and the exact source range, so the CLI can print it and the
// extension can show it as a diagnostic on the right line.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, stringify, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { ConfigSchema, configJsonSchema, type Config } from './schema';
import { CONFIG_FILE } from '../layout';
import { hasLastGoodConfig, LAST_GOOD_CONFIG, rememberConfig } from './lastGood';

export interface SourceRange {
  line: number; // 1-based
  column: number; // 1-based
  endLine: number;
  endColumn: number;
}

export interface ConfigIssue {
  /** Dotted key, e.g. `stages.smoke.timeout_s`, or `(yaml)` for a syntax error. */
  key: string;
  message: string;
  /** A line of YAML that would be valid at this key. */
  example?: string;
  range: SourceRange;
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; issues: ConfigIssue[] };

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly issues: ConfigIssue[],
  ) {
    super(`${file} is not valid:\n${issues.map((i) => '  ' + formatIssue(i, file)).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function formatIssue(i: ConfigIssue, file = CONFIG_FILE): string {
  const where = `${file}:${i.range.line}:${i.range.column}`;
  const ex = i.example ? ` (example: ${i.example})` : '';
  return i.key === '(yaml)' ? `${where}: ${i.message}` : `${where}: ${i.key}: ${i.message}${ex}`;
}

/** Parses and validates the text of a satlution.yaml. Never throws for bad input. */
export function parseConfig(text: string): ConfigResult {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number, end = offset + 1): SourceRange => {
    const a = lc.linePos(Math.min(offset, text.length));
    const b = lc.linePos(Math.min(Math.max(end, offset), text.length));
    return { line: a.line, column: a.col, endLine: b.line, endColumn: b.col };
  };
  if (doc.errors.length > 0)
    return {
      ok: false,
      issues: doc.errors.map((e) => ({ key: '(yaml)', message: e.message.split('\n')[0]!, range: at(e.pos[0], e.pos[1]) })),
    };
  const data: unknown = doc.toJS() ?? {};
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    return {
      ok: false,
      issues: [{ key: '(root)', message: 'must be a mapping of keys such as seeds:, stages:, runners:', example: 'seeds: [...]', range: at(0) }],
    };
  const parsed = ConfigSchema.safeParse(data);
  if (parsed.success) return { ok: true, config: parsed.data };
  const schema = configJsonSchema();
  return { ok: false, issues: parsed.error.issues.flatMap((iss) => explain(iss, doc, data, schema, at)) };
}

export async function loadConfig(workspaceDir: string): Promise<Config> {
  const file = path.join(workspaceDir, CONFIG_FILE);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    throw new ConfigError(file, [
      {
        key: '(file)',
        message: `cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)}); ${await missingConfigAdvice(workspaceDir)}`,
        range: { line: 1, column: 1, endLine: 1, endColumn: 1 },
      },
    ]);
  }
  const r = parseConfig(text);
  if (!r.ok) throw new ConfigError(file, r.issues);
  await rememberConfig(workspaceDir, text);
  return r.config;
}

/** What to do about a missing config: restore it where the store remains (init there would orphan the history), else init. */
async function missingConfigAdvice(workspaceDir: string): Promise<string> {
  return (await hasLastGoodConfig(workspaceDir))
    ? `restore the last good copy with \`satlution restore-config\` (it is ${LAST_GOOD_CONFIG})`
    : 'run `satlution init` to create a workspace';
}

type Path = (string | number)[];
type JsonSchema = { [k: string]: unknown };

function explain(iss: z.core.$ZodIssue, doc: Document, data: unknown, schema: JsonSchema, at: (o: number, e?: number) => SourceRange): ConfigIssue[] {
  const p = iss.path.filter((s): s is string | number => typeof s !== 'symbol');
  const rangeOf = (path: Path, keyOnly = false) => nodeRange(doc, path, keyOnly, at);
  if (iss.code === 'unrecognized_keys') {
    const known = Object.keys(propertiesAt(schema, p, data));
    return iss.keys.map((k) => {
      const guess = closest(k, known);
      return {
        key: [...p, k].join('.'),
        message: `unknown key${guess ? `; did you mean "${guess}"?` : ''} Known keys here: ${known.join(', ')}`,
        example: guess ? exampleLine(schema, [...p, guess], data) : undefined,
        range: rangeOf([...p, k], true),
      };
    });
  }
  const key = p.length ? p.join('.') : '(root)';
  const got = valueAt(data, p);
  let message: string;
  switch (iss.code) {
    case 'invalid_type':
      message = got === undefined ? 'is required' : `expected ${iss.expected}, got ${describe(got)}`;
      break;
    case 'invalid_value':
      message = `must be one of ${iss.values.map((v) => JSON.stringify(v)).join(', ')}; got ${describe(got)}`;
      break;
    case 'invalid_union':
      message =
        'discriminator' in iss && iss.discriminator
          ? `unknown ${String(iss.discriminator)} ${describe(valueAt(data, [...p, String(iss.discriminator)]) ?? got)}; expected one of ${((iss as { options?: unknown[] }).options ?? []).map((v) => JSON.stringify(v)).join(', ')}`
          : `does not match any allowed form (${iss.message})`;
      break;
    case 'too_small':
      message =
        iss.origin === 'array'
          ? iss.message.startsWith('Too small')
            ? `needs at least ${String(iss.minimum)} item(s)`
            : iss.message
          : iss.origin === 'string'
            ? 'must not be empty'
            : `must be ${iss.inclusive ? '>=' : '>'} ${String(iss.minimum)}; got ${describe(got)}`;
      break;
    case 'too_big':
      message = `must be ${iss.inclusive ? '<=' : '<'} ${String(iss.maximum)}; got ${describe(got)}`;
      break;
    case 'invalid_format':
      message = `must be a valid ${iss.format}; got ${describe(got)}`;
      break;
    case 'not_multiple_of':
      message = `must be a multiple of ${String(iss.divisor)}; got ${describe(got)}`;
      break;
    default:
      message = iss.message;
  }
  if (iss.code === 'invalid_type' && iss.expected === 'int') message = `must be a whole number; got ${describe(got)}`;
  if (iss.code === 'invalid_format' && iss.format === 'regex')
    message = iss.message.startsWith('Invalid') ? `has an invalid format; got ${describe(got)}` : `${iss.message}; got ${describe(got)}`;
  return [{ key, message, example: exampleLine(schema, p, data), range: rangeOf(p) }];
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return typeof v === 'string' ? JSON.stringify(v) : `${typeof v} ${String(v)}`;
}

function valueAt(data: unknown, p: Path): unknown {
  let cur: unknown = data;
  for (const s of p) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[s];
  }
  return cur;
}

/** Range of the deepest YAML node that exists along the path (the key itself when keyOnly). */
function nodeRange(doc: Document, p: Path, keyOnly: boolean, at: (o: number, e?: number) => SourceRange): SourceRange {
  let node: unknown = doc.contents;
  let best: [number, number] | undefined = rangeTuple(node);
  for (const seg of p) {
    if (isMap(node)) {
      const pair = node.items.find((it) => isScalar(it.key) && String(it.key.value) === String(seg));
      if (!pair) break;
      const kr = rangeTuple(pair.key);
      if (keyOnly && seg === p[p.length - 1] && kr) return at(kr[0], kr[1]);
      node = pair.value;
      best = rangeTuple(node) ?? kr ?? best;
      if (!rangeTuple(node) && kr) break; // `key:` with no value: point at the key
    } else if (isSeq(node) && typeof seg === 'number' && node.items[seg] !== undefined) {
      node = node.items[seg];
      best = rangeTuple(node) ?? best;
    } else break;
  }
  return best ? at(best[0], best[1]) : at(0);
}

function rangeTuple(n: unknown): [number, number] | undefined {
  const r = (n as Node | null | undefined)?.range;
  return r ? [r[0], r[1]] : undefined;
}

/** Walks the JSON Schema along a data path (choosing union members by their `kind` or `name` const). */
function schemaAt(schema: JsonSchema, p: Path, data: unknown): JsonSchema | undefined {
  let cur: JsonSchema | undefined = schema;
  for (let i = 0; i < p.length && cur; i++) {
    cur = pickUnion(cur, valueAt(data, p.slice(0, i)));
    const seg = p[i]!;
    if (typeof seg === 'number' || cur.type === 'array') cur = cur.items as JsonSchema | undefined;
    else {
      const props = cur.properties as Record<string, JsonSchema> | undefined;
      const extra = cur.additionalProperties;
      cur = props?.[seg] ?? (typeof extra === 'object' ? (extra as JsonSchema) : undefined);
    }
  }
  return cur && pickUnion(cur, valueAt(data, p));
}

function pickUnion(s: JsonSchema, value: unknown): JsonSchema {
  const options = (s.oneOf ?? s.anyOf) as JsonSchema[] | undefined;
  if (!options) return s;
  const v = value as Record<string, unknown> | undefined;
  const match = options.find((o) => {
    const props = o.properties as Record<string, JsonSchema> | undefined;
    const tag = ['kind', 'name'].find((k) => props?.[k]?.const !== undefined);
    return tag !== undefined && props![tag]!.const === v?.[tag];
  });
  return match ?? options[0]!;
}

function propertiesAt(schema: JsonSchema, p: Path, data: unknown): Record<string, JsonSchema> {
  return (schemaAt(schema, p, data)?.properties as Record<string, JsonSchema> | undefined) ?? {};
}

function exampleLine(schema: JsonSchema, p: Path, data: unknown): string | undefined {
  const s = schemaAt(schema, p, data);
  const ex = (s?.examples as unknown[] | undefined)?.[0];
  if (ex === undefined) return undefined;
  const last = [...p].reverse().find((x) => typeof x === 'string');
  const body = typeof ex === 'object' ? stringify(ex, { flow: true }).trim() : stringify(ex).trim();
  return last === undefined ? body : `${last}: ${body}`;
}

/** Closest known key by edit distance (typo help), if it is plausibly a typo. */
function closest(k: string, known: string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of known) {
    const d = editDistance(k.toLowerCase(), c.toLowerCase());
    if (d < bestD) [best, bestD] = [c, d];
  }
  return bestD <= Math.max(2, Math.floor(k.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}
