// Families from a GBD database: the SQLite file a GBD server serves at `/getdatabase/<name>` (or one
// the user names), read as untrusted input. GBD keeps a single-valued feature as a column of its
// `features` table (hash, family, result, ...) and a many-valued one as a table of its own (hash,
// value): both are read, tables only (a view could be any query, one that never ends), with SQLite
// compiled to WebAssembly (sql.js: the same in the CLI and in the editor, nothing native to build).
// The file is bounded before it is opened (gbd.max_db_mb); every hash and family is checked like the
// rest of a reply, and what does not pass is counted, never used.
import type { Database, SqlJsStatic } from 'sql.js';
import { GBD_HASH } from '../instances/gbdHash';

/** Family names meta.csv takes as they are (and GBD's feature values commonly are). */
export const FAMILY_NAME = /^[A-Za-z0-9_.+-]{1,100}$/;

/** GBD's words for "no value". */
const NO_VALUE = new Set(['', 'none', 'empty', 'unknown']);

/** What a database says of the instances asked for. */
export interface DatabaseFamilies {
  /** Each instance's family, where the database gives one that passes. */
  families: Map<string, string>;
  /** Rows of the instances asked for whose family was refused (not a family name), and instances with two families. */
  refused: number;
  /** Where the families were read from: `features.family` or the `family` table. */
  from: 'features.family' | 'family table' | 'none';
}

/** A database that cannot be read: not SQLite, malformed, or with no family feature. */
export class GbdDatabaseError extends Error {}

let sqlJs: Promise<SqlJsStatic> | undefined;

/** The SQLite engine, loaded once (the build with its WebAssembly inline, so a bundle needs no other file). */
async function engine(): Promise<SqlJsStatic> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the inline build has no typings of its own: it is sql.js's
  sqlJs ??= (require('sql.js/dist/sql-wasm-inline.js') as (o?: object) => Promise<SqlJsStatic>)();
  return sqlJs;
}

/** The SQLite file header. */
const SQLITE_HEADER = 'SQLite format 3\0';

/** Each of `hashes`'s family in the GBD database `bytes` (see the file's comment). */
export async function databaseFamilies(bytes: Uint8Array, hashes: ReadonlySet<string>): Promise<DatabaseFamilies> {
  if (bytes.length < 100 || new TextDecoder().decode(bytes.subarray(0, 16)) !== SQLITE_HEADER)
    throw new GbdDatabaseError('not an SQLite database (no SQLite header)');
  const SQL = await engine();
  let db: Database;
  try {
    db = new SQL.Database(bytes);
  } catch (e) {
    throw new GbdDatabaseError(`not a readable SQLite database: ${(e as Error).message}`);
  }
  try {
    const tables = new Set(rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => String(r[0])));
    const columns = (table: string) => new Set(rows(db, `SELECT name FROM pragma_table_info('${table}')`).map((r) => String(r[0])));
    const source =
      tables.has('features') && columns('features').has('hash') && columns('features').has('family')
        ? { from: 'features.family' as const, sql: 'SELECT hash, family FROM features' }
        : tables.has('family') && columns('family').has('hash') && columns('family').has('value')
          ? { from: 'family table' as const, sql: 'SELECT hash, value FROM family' }
          : undefined;
    if (!source) return { families: new Map(), refused: 0, from: 'none' };
    const families = new Map<string, string>();
    const twice = new Set<string>();
    let refused = 0;
    const stmt = db.prepare(source.sql);
    try {
      while (stmt.step()) {
        const [h, v] = stmt.get();
        const hash = typeof h === 'string' ? h.toLowerCase() : '';
        if (!hashes.has(hash) || !GBD_HASH.test(hash)) continue;
        const value = typeof v === 'string' ? v.trim() : '';
        if (NO_VALUE.has(value.toLowerCase())) continue;
        if (!FAMILY_NAME.test(value)) {
          refused++;
          continue;
        }
        const had = families.get(hash);
        if (had !== undefined && had !== value) twice.add(hash);
        families.set(hash, value);
      }
    } finally {
      stmt.free();
    }
    // Two families for one instance: neither is its family.
    for (const hash of twice) families.delete(hash);
    return { families, refused: refused + twice.size, from: source.from };
  } catch (e) {
    if (e instanceof GbdDatabaseError) throw e;
    throw new GbdDatabaseError(`a malformed database: ${(e as Error).message}`);
  } finally {
    db.close();
  }
}

/** Every row of a statement with no parameters. */
function rows(db: Database, sql: string): unknown[][] {
  return db.exec(sql)[0]?.values ?? [];
}
