// A set's meta.csv: `instance,family,expected[,proved,disputed]`. An expected answer is a claim (a GBD
// server's `result`, a person's note) unless `proved` says how it was proved here (a checked model, a
// verified DRAT proof, a construction); a claim judges no answer alone (run/runInstance.ts). When a
// run proves the opposite of a claim, the row is rewritten: the proved answer, how, and the claim it
// replaced in `disputed`. The one reader and writer of the file.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { writeFileAtomic } from '../store/atomic';
import { tryHoldLock } from '../store/lock';

export class MetaError extends Error {}

/** A meta.csv row: the family and expected answer, how it was proved here (null: a claim), the claim a proof replaced, and where the row is (file:line). */
export interface MetaRow {
  family: string;
  expected: 'SAT' | 'UNSAT' | null;
  proved: string | null;
  disputed: string | null;
  at: string;
}

/** A row to write. */
export interface MetaLine {
  instance: string;
  family: string | null;
  expected: 'SAT' | 'UNSAT' | null;
  /** How the answer was proved here; null or absent: a claim. */
  proved?: string | null;
  disputed?: string | null;
}

/** A proof, made by a run, of the opposite of a set's claim. */
export interface DisputedClaim {
  /** The instance's name in the set. */
  instance: string;
  claim: 'SAT' | 'UNSAT';
  proved: 'SAT' | 'UNSAT';
  /** How: "model", "drat" or "empty clause". */
  by: string;
}

/** Reads a set's meta.csv (none: no rows), by instance name. */
export async function readMeta(file: string): Promise<Map<string, MetaRow>> {
  const out = new Map<string, MetaRow>();
  const text = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return out;
  const lines = text.split(/\r?\n/);
  const head = lines[0]?.split(',').map((s) => s.trim().toLowerCase()) ?? [];
  const col = (n: string) => head.indexOf(n);
  if (col('instance') < 0) throw new MetaError(`${file}:1: the header must name the columns instance,family,expected`);
  const cell = (cells: string[], n: string) => (col(n) >= 0 ? (cells[col(n)] ?? '') : '');
  lines.slice(1).forEach((line, i) => {
    if (!line.trim()) return;
    const cells = line.split(',').map((s) => s.trim());
    const exp = cell(cells, 'expected').toUpperCase();
    if (exp && exp !== 'SAT' && exp !== 'UNSAT') throw new MetaError(`${file}:${i + 2}: expected must be SAT, UNSAT or empty, got "${cells[col('expected')]}"`);
    const name = cells[col('instance')]!;
    const row: MetaRow = {
      family: cell(cells, 'family'),
      expected: (exp || null) as 'SAT' | 'UNSAT' | null,
      proved: (exp && cell(cells, 'proved')) || null,
      disputed: cell(cells, 'disputed') || null,
      at: `${file}:${i + 2}`,
    };
    const prev = out.get(name);
    if (prev && (prev.expected !== row.expected || prev.family !== row.family))
      throw new MetaError(
        `${row.at}: ${name} is listed again, differently from ${prev.at} (${prev.expected ?? 'no answer'}, family ${prev.family || 'none'}): keep one row`,
      );
    if (!prev) out.set(name, row);
  });
  return out;
}

/** meta.csv's text for `rows` (the proved and disputed columns only when some row has them). */
export function formatMeta(rows: readonly MetaLine[]): string {
  const full = rows.some((r) => r.proved || r.disputed);
  const cells = (r: MetaLine) => [r.instance, r.family ?? '', r.expected ?? '', ...(full ? [r.proved ?? '', r.disputed ?? ''] : [])].map(csvCell).join(',');
  return [full ? 'instance,family,expected,proved,disputed' : 'instance,family,expected', ...rows.map(cells)].join('\n') + '\n';
}

/**
 * Rewrites the rows of `dir`'s meta.csv whose claim a run disproved: the proved answer, how, and the
 * claim in `disputed`. Under a lock, so two evaluations that find the same dispute write it once; a
 * row already proved is left as it is. Returns the instances whose row changed.
 */
export async function recordDisputes(dir: string, disputes: readonly DisputedClaim[]): Promise<string[]> {
  if (!disputes.length) return [];
  const file = path.join(dir, 'meta.csv');
  const lock = path.join(dir, '.meta.csv.lock');
  for (let tries = 0; ; tries++) {
    const held = await tryHoldLock(lock);
    if ('release' in held) {
      try {
        const rows = await readMeta(file);
        const changed: string[] = [];
        for (const d of disputes) {
          const row = rows.get(d.instance);
          if (!row || row.proved || row.expected !== d.claim) continue;
          rows.set(d.instance, { ...row, expected: d.proved, proved: d.by, disputed: `${d.claim} claimed` });
          changed.push(d.instance);
        }
        if (changed.length)
          await writeFileAtomic(
            file,
            formatMeta(
              [...rows].map(([instance, r]) => ({ instance, family: r.family || null, expected: r.expected, proved: r.proved, disputed: r.disputed })),
            ),
          );
        return changed;
      } finally {
        await held.release();
      }
    }
    if (tries > 100) throw new Error(`${file} stayed locked by process ${held.heldBy}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const csvCell = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
