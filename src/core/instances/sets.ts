// Benchmark sets: directories of CNF files (.cnf, .cnf.gz, .cnf.xz) with an optional meta.csv.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

export const CNF_FILE = /\.cnf(\.(gz|xz))?$/;

export interface BenchSetSummary {
  name: string;
  /** As written in satlution.yaml (relative to the workspace unless absolute). */
  dir: string;
  exists: boolean;
  instances: number;
  hasMeta: boolean;
}

/** A set's CNF files (subdirectories included): each file's path and its name in the set (relative, forward slashes); undefined when the directory cannot be read. */
export async function cnfFiles(dir: string): Promise<{ file: string; name: string }[] | undefined> {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true }).catch(() => undefined);
  return entries
    ?.filter((e) => (e.isFile() || e.isSymbolicLink()) && CNF_FILE.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .map((file) => ({ file, name: path.relative(dir, file).split(path.sep).join('/') }));
}

/** Counts the instances of a set (subdirectories included) without reading them. */
export async function summarizeSet(workspaceDir: string, name: string, dir: string): Promise<BenchSetSummary> {
  const abs = path.resolve(workspaceDir, dir);
  const entries = await fs.readdir(abs, { withFileTypes: true, recursive: true }).catch(() => undefined);
  if (!entries) return { name, dir, exists: false, instances: 0, hasMeta: false };
  return {
    name,
    dir,
    exists: true,
    instances: entries.filter((e) => (e.isFile() || e.isSymbolicLink()) && CNF_FILE.test(e.name)).length,
    hasMeta: entries.some((e) => e.isFile() && e.name === 'meta.csv' && e.parentPath === abs),
  };
}
