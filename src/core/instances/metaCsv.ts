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
  const records = csvRecords(text, file);
  const head = records[0]?.cells.map((s) => s.trim().toLowerCase()) ?? [];
  const col = (n: string) => head.indexOf(n);
  if (col('instance') < 0) throw new MetaError(`${file}:1: the header must name the columns instance,family,expected`);
  const cell = (cells: string[], n: string) => (col(n) >= 0 ? (cells[col(n)] ?? '') : '');
  for (const { line, cells } of records.slice(1)) {
    if (cells.every((c) => !c)) continue;
    const exp = cell(cells, 'expected').toUpperCase();
    if (exp && exp !== 'SAT' && exp !== 'UNSAT') throw new MetaError(`${file}:${line}: expected must be SAT, UNSAT or empty, got "${cells[col('expected')]}"`);
    const name = cells[col('instance')]!;
    const row: MetaRow = {
      family: cell(cells, 'family'),
      expected: (exp || null) as 'SAT' | 'UNSAT' | null,
      proved: (exp && cell(cells, 'proved')) || null,
      disputed: cell(cells, 'disputed') || null,
      at: `${file}:${line}`,
    };
    const prev = out.get(name);
    if (prev && (prev.expected !== row.expected || prev.family !== row.family))
      throw new MetaError(
        `${row.at}: ${name} is listed again, differently from ${prev.at} (${prev.expected ?? 'no answer'}, family ${prev.family || 'none'}): keep one row`,
      );
    if (!prev) out.set(name, row);
  }
  return out;
}

/**
 * The records of a CSV text as formatMeta writes them (RFC 4180): a cell in double quotes may hold
 * commas, line breaks and doubled quotes, and is taken as it is; other cells are trimmed (people write
 * `a.cnf, x, SAT`). Each record with the line it starts on.
 */
function csvRecords(text: string, file: string): { line: number; cells: string[] }[] {
  const records: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  const endCell = () => {
    cells.push(quoted ? cell : cell.trim());
    cell = '';
    quoted = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' && !quoted && !cell.trim()) {
      // A quoted cell: up to the quote that is not doubled.
      const opened = line;
      quoted = true;
      cell = '';
      for (i++; ; i++) {
        if (i >= text.length) throw new MetaError(`${file}:${opened}: a quoted cell is not closed`);
        if (text[i] === '"') {
          if (text[i + 1] !== '"') break;
          i++;
        } else if (text[i] === '\n') line++;
        cell += text[i];
      }
      // Only blanks may follow the closing quote before the next comma or the line's end.
      while (i + 1 < text.length && /[ \t\r]/.test(text[i + 1]!)) i++;
      if (i + 1 < text.length && text[i + 1] !== ',' && text[i + 1] !== '\n') throw new MetaError(`${file}:${line}: text after a quoted cell's closing quote`);
    } else if (c === ',') endCell();
    else if (c === '\n') {
      endCell();
      records.push({ line: start, cells });
      cells = [];
      start = ++line;
    } else cell += c;
  }
  if (cells.length || cell.trim() || quoted) {
    endCell();
    records.push({ line: start, cells });
  }
  return records;
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

/** A cell as CSV: quoted where it holds a comma, a quote or a line break, or begins or ends with a blank (read back as it is). */
const csvCell = (v: string) => (/[",\r\n]|^\s|\s$/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
