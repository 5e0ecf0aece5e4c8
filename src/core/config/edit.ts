// Small edits of satlution.yaml that keep the person's file as it was — comments, order, quoting and
// layout — apart from the one value changed, and that never write a config the loader would refuse.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { isMap, isScalar, parseDocument } from 'yaml';
import { writeFileAtomic } from '../store/atomic';
import { CONFIG_FILE } from '../layout';
import { formatIssue, parseConfig } from './load';
import type { Config } from './schema';

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
