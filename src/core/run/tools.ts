// Finding the external checkers: an explicit path, the config, the environment, the set-up script's
// build, or PATH, in that order.
import { accessSync, constants } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const executable = (p: string) => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

export function findDratTrim(explicit?: string, configured?: string): string | undefined {
  for (const p of [explicit, configured]) if (p) return p; // given: used as is, so a typo is reported, not skipped
  const cache = process.env.SATLUTION_DEV_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'satlution-dev');
  return [process.env.SATLUTION_DRAT_TRIM, path.join(cache, 'bin', 'drat-trim')].find((p): p is string => !!p && executable(p)) ?? findOnPath('drat-trim');
}

/** A program on PATH by name, or undefined. */
export function findOnPath(name: string): string | undefined {
  return (process.env.PATH ?? '').split(':').filter(Boolean).map((d) => path.join(d, name)).find(executable);
}
