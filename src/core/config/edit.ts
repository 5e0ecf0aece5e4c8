// Small edits of satlution.yaml that keep the person's file as it was — comments, order, quoting and
// layout — apart from the one value changed, and that never write a config the loader would refuse.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { isMap, isScalar, parseDocument } from 'yaml';
import { writeFileAtomic } from '../store/atomic';
import { CONFIG_FILE } from '../layout';
import { formatIssue, parseConfig } from './load';
import type { Config, ModelConfig } from './schema';

export type ApprovalMode = Config['approval'];

/** The text with `approval:` set to `mode` (only that value changes); throws if the result is invalid. */
export function withApprovalMode(text: string, mode: ApprovalMode): string {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length) throw new Error(`${CONFIG_FILE} has a YAML error (${doc.errors[0]!.message.split('\n')[0]}); fix it first`);
  const root = doc.contents;
  let out: string;
  const pair = isMap(root) ? root.items.find((p) => isScalar(p.key) && p.key.value === 'approval') : undefined;
  const value = pair?.value;
  if (isScalar(value) && value.range) {
    // Splice the new scalar over the old one: the rest of the file stays byte for byte.
    out = text.slice(0, value.range[0]) + mode + text.slice(value.range[1]);
  } else if (isMap(root) && !pair && !root.flow) {
    out = `${text.replace(/\s*$/, '')}${text.trim() ? '\n' : ''}approval: ${mode}\n`;
  } else {
    // An unusual shape (a flow mapping, `approval:` with no value): let the Document re-render it.
    doc.set('approval', mode);
    out = doc.toString();
  }
  const r = parseConfig(out);
  if (!r.ok) throw new Error(`${CONFIG_FILE} would not be valid: ${formatIssue(r.issues[0]!)}`);
  if (r.config.approval !== mode) throw new Error(`approval could not be set to ${mode} in ${CONFIG_FILE}`);
  return out;
}

/** Sets `approval:` in the workspace's satlution.yaml (atomically); returns false when it already was. */
export async function writeApprovalMode(ws: string, mode: ApprovalMode): Promise<boolean> {
  const file = path.join(ws, CONFIG_FILE);
  const text = await fs.readFile(file, 'utf8');
  const next = withApprovalMode(text, mode);
  if (next === text) return false;
  await writeFileAtomic(file, next);
  return true;
}

/** A value to set in satlution.yaml: the path of keys, and a plain scalar. */
export interface ConfigValue {
  path: string[];
  value: string | number | boolean;
}

/**
 * The text with the values set, each spliced into the text where it goes (a flow mapping such as a
 * stage line gets `, key: value` before its `}`; a block mapping a line of its own), so the rest of
 * the person's file stays byte for byte; throws if the result is not a valid config.
 */
export function withValues(text: string, values: ConfigValue[]): string {
  let out = text;
  for (const v of values) out = withValue(out, v);
  const r = parseConfig(out);
  if (!r.ok) throw new Error(`${CONFIG_FILE} would not be valid: ${formatIssue(r.issues[0]!)}`);
  return out;
}

function withValue(text: string, v: ConfigValue): string {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length) throw new Error(`${CONFIG_FILE} has a YAML error (${doc.errors[0]!.message.split('\n')[0]}); fix it first`);
  const key = v.path[v.path.length - 1]!;
  const parent = v.path.length > 1 ? doc.getIn(v.path.slice(0, -1), true) : doc.contents;
  const scalar = JSON.stringify(v.value).replace(/^"([\w./-]+)"$/, '$1');
  if (isMap(parent) && parent.range) {
    const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === key);
    if (pair && isScalar(pair.value) && pair.value.range) return text.slice(0, pair.value.range[0]) + scalar + text.slice(pair.value.range[1]);
    if (!pair && parent.flow) {
      const close = text.lastIndexOf('}', parent.range[1]);
      const body = text.slice(0, close).replace(/\s*$/, '');
      return `${body}${parent.items.length ? ',' : ''} ${key}: ${scalar} ${text.slice(close)}`;
    }
    const last = parent.items[parent.items.length - 1];
    const firstKey = parent.items[0]?.key;
    if (!pair && last && isScalar(firstKey) && firstKey.range) {
      const indent = firstKey.range[0] - text.lastIndexOf('\n', firstKey.range[0]) - 1;
      const endOfLast = (last.value as { range?: [number, number, number] } | null)?.range?.[1] ?? (last.key as { range?: [number, number, number] }).range![1];
      const eol = text.indexOf('\n', endOfLast);
      const at = eol < 0 ? text.length : eol;
      return `${text.slice(0, at)}\n${' '.repeat(indent)}${key}: ${scalar}${text.slice(at)}`;
    }
  }
  // An unusual shape: let the Document re-render it.
  doc.setIn(v.path, v.value);
  return doc.toString();
}

/** Sets values in the workspace's satlution.yaml (atomically). */
export async function writeValues(ws: string, values: ConfigValue[]): Promise<void> {
  const file = path.join(ws, CONFIG_FILE);
  const text = await fs.readFile(file, 'utf8');
  const next = withValues(text, values);
  if (next !== text) await writeFileAtomic(file, next);
}

/** A model for some roles, as "Configure Models" writes it: one flow-map line per role. */
export interface ModelChoice {
  provider: ModelConfig['provider'];
  model: string;
  base_url?: string;
}

/** The flow map of a model choice, with plain scalars where YAML allows them. */
const modelLine = (m: ModelChoice) =>
  `{ ${[['provider', m.provider], ['model', m.model], ...(m.base_url ? [['base_url', m.base_url]] : [])].map(([k, v]) => `${k}: ${/^[\w./:-]+$/.test(v!) && !/^\d/.test(v!) ? v : JSON.stringify(v)}`).join(', ')} }`;

/**
 * The text with `models.<role>` set for each role, spliced so the rest of the file stays as it was:
 * `models: {}` becomes a block with a line per role; in a block, a role's line is replaced or added.
 * Throws if the result is not a valid config.
 */
export function withModels(text: string, roles: readonly ('planner' | 'coder' | 'judge')[], m: ModelChoice): string {
  let out = text;
  for (const role of roles) {
    const doc = parseDocument(out, { uniqueKeys: true });
    if (doc.errors.length) throw new Error(`${CONFIG_FILE} has a YAML error (${doc.errors[0]!.message.split('\n')[0]}); fix it first`);
    const root = doc.contents;
    const pair = isMap(root) ? root.items.find((p) => isScalar(p.key) && p.key.value === 'models') : undefined;
    const models = pair?.value;
    const line = `${role}: ${modelLine(m)}`;
    if (!pair) out = `${out.replace(/\s*$/, '')}\nmodels:\n  ${line}\n`;
    else if (isMap(models) && models.flow && !models.items.length && models.range) {
      // `models: {}`: the block starts on the next line (the space before `{}` goes too).
      const start = out.lastIndexOf(':', models.range[0]) + 1;
      out = `${out.slice(0, start)}\n  ${line}${out.slice(models.range[1])}`;
    } else if (isMap(models) && !models.flow) {
      const own = models.items.find((p) => isScalar(p.key) && p.key.value === role);
      const firstKey = models.items[0]!.key as { range: [number, number, number] };
      const indent = firstKey.range[0] - out.lastIndexOf('\n', firstKey.range[0]) - 1;
      if (own && (own.key as { range?: [number, number, number] }).range && (own.value as { range?: [number, number, number] } | null)?.range) {
        const from = (own.key as { range: [number, number, number] }).range[0];
        const to = (own.value as { range: [number, number, number] }).range[1];
        out = `${out.slice(0, from)}${line}${out.slice(to)}`;
      } else {
        const last = models.items[models.items.length - 1]!;
        const end = (last.value as { range?: [number, number, number] } | null)?.range?.[1] ?? (last.key as { range: [number, number, number] }).range[1];
        const eol = out.indexOf('\n', end);
        const at = eol < 0 ? out.length : eol;
        out = `${out.slice(0, at)}\n${' '.repeat(indent)}${line}${out.slice(at)}`;
      }
    } else {
      // An unusual shape (a non-empty flow map): let the Document re-render it.
      doc.setIn(['models', role], { provider: m.provider, model: m.model, ...(m.base_url ? { base_url: m.base_url } : {}) });
      out = doc.toString();
    }
  }
  const r = parseConfig(out);
  if (!r.ok) throw new Error(`${CONFIG_FILE} would not be valid: ${formatIssue(r.issues[0]!)}`);
  for (const role of roles) if (r.config.models[role]?.model !== m.model) throw new Error(`models.${role} could not be set in ${CONFIG_FILE}`);
  return out;
}

/** Sets the models of the roles in the workspace's satlution.yaml (atomically). */
export async function writeModels(ws: string, roles: readonly ('planner' | 'coder' | 'judge')[], m: ModelChoice): Promise<void> {
  const file = path.join(ws, CONFIG_FILE);
  const text = await fs.readFile(file, 'utf8');
  const next = withModels(text, roles, m);
  if (next !== text) await writeFileAtomic(file, next);
}
