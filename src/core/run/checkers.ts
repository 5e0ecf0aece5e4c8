// Finding the external checkers: an explicit path, the config, the environment, the set-up script's
// build, or PATH, in that order.
import { accessSync, constants } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkProof } from './proof';

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
  return [process.env.SATLUTION_DRAT_TRIM, path.join(devCache(), 'bin', 'drat-trim')].find((p): p is string => !!p && executable(p)) ?? findOnPath('drat-trim');
}

/** Where tools built for SATLUTION are cached, outside any workspace. */
export const devCache = () => process.env.SATLUTION_DEV_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'satlution-dev');

/** A program on PATH by name, or undefined. */
export function findOnPath(name: string): string | undefined {
  return (process.env.PATH ?? '')
    .split(':')
    .filter(Boolean)
    .map((d) => path.join(d, name))
    .find(executable);
}

/**
 * Whether `bin` is a working drat-trim: it must verify a proof of a tiny UNSAT formula and reject a
 * bogus one (a program that says yes to everything is no checker). Returns why not, or undefined.
 */
export async function probeDratTrim(bin: string): Promise<string | undefined> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satlution-drat-probe-'));
  try {
    // (x1 | x2) (x1 | -x2) (-x1 | x2) (-x1 | -x2): UNSAT; learning x1 then the empty clause is a proof.
    const cnf = path.join(dir, 'f.cnf');
    await fs.writeFile(cnf, 'p cnf 2 4\n1 2 0\n1 -2 0\n-1 2 0\n-1 -2 0\n');
    const good = path.join(dir, 'good.drat');
    await fs.writeFile(good, '1 0\n0\n');
    const bad = path.join(dir, 'bad.drat');
    await fs.writeFile(bad, '0\n');
    const cnf1 = path.join(dir, 'sat.cnf');
    await fs.writeFile(cnf1, 'p cnf 2 1\n1 2 0\n');
    const bounds = { cpuS: 10, memMb: 1024, maxProofMb: 1 };
    const ok = await checkProof({ dratTrim: bin, cnf, proof: good, bounds });
    if (!ok.ok) return ok.outcome === 'error' ? ok.detail : `it did not verify a correct proof (${ok.detail})`;
    const no = await checkProof({ dratTrim: bin, cnf: cnf1, proof: bad, bounds });
    if (no.ok) return 'it accepted a bogus proof of a satisfiable formula: it is not drat-trim';
    return undefined;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** The commands that build drat-trim from its public source into the cache findDratTrim looks in (shown to a person before it runs). */
export function dratTrimBuildCommand(cacheDir = devCache()): string {
  const src = path.join(cacheDir, 'sources', 'drat-trim-git');
  const bin = path.join(cacheDir, 'bin');
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `rm -rf ${q(src)} && git clone --depth 1 https://github.com/marijnheule/drat-trim ${q(src)} && make -C ${q(src)} drat-trim && mkdir -p ${q(bin)} && cp ${q(path.join(src, 'drat-trim'))} ${q(bin)}/`;
}
