// The real servers the runner tests use, brought up and torn down by the project's own scripts:
// a single-host Slurm (scripts/slurm-test.sh) and an sshd on 127.0.0.1 (scripts/sshd-test.sh).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { ROOT, tempDir } from './helpers';

const kv = (out: string) =>
  Object.fromEntries(
    out
      .trim()
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

export interface Slurm {
  dir: string;
  conf: string;
  env: NodeJS.ProcessEnv;
  down(): void;
}

/** A running Slurm, or the test is skipped where Slurm cannot be installed (exit 3 of the script). */
export function slurmUp(ctx: Mocha.Context): Slurm {
  const script = path.join(ROOT, 'scripts', 'slurm-test.sh');
  const up = spawnSync(script, ['up'], { encoding: 'utf8', env: { ...process.env, SLURM_TEST_DIR: '' } });
  if (up.status === 3) {
    console.log(`    skipped: Slurm is not installed and cannot be installed here (${up.stderr.trim().split('\n').pop()})`);
    ctx.skip();
  }
  assert.equal(up.status, 0, `scripts/slurm-test.sh up failed:\n${up.stderr}`);
  const v = kv(up.stdout);
  assert.ok(v.SLURM_TEST_DIR && v.SLURM_CONF, up.stdout);
  const dir = v.SLURM_TEST_DIR;
  return {
    dir,
    conf: v.SLURM_CONF,
    env: { ...process.env, SLURM_CONF: v.SLURM_CONF },
    down: () => void spawnSync(script, ['down', dir], { stdio: 'inherit' }),
  };
}

export interface Sshd {
  /** The generated ssh config (with the host alias). */
  config: string;
  host: string;
  down(): void;
}

export function sshdUp(ctx: Mocha.Context): Sshd {
  const script = path.join(ROOT, 'scripts', 'sshd-test.sh');
  const dir = tempDir('satlution-sshd-');
  const env = { ...process.env, SSHD_TEST_DIR: dir };
  const up = spawnSync('bash', [script, 'up'], { encoding: 'utf8', env });
  if (up.status === 3) {
    console.log('    skipped: sshd is not installed and cannot be installed here (scripts/sshd-test.sh)');
    ctx.skip();
  }
  assert.equal(up.status, 0, up.stderr);
  const v = kv(up.stdout);
  return { config: v.SSH_CONFIG!, host: v.SSH_HOST!, down: () => void spawnSync('bash', [script, 'down'], { env, stdio: 'inherit' }) };
}
