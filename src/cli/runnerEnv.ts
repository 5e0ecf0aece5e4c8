import * as path from 'node:path';
import { type RunnerEnv, sshArgsFromEnv } from '../core/runners/select';

/** dist/cli.js and dist/worker.js ship side by side; SATLUTION_SSH_CONFIG=FILE passes -F FILE to ssh. */
export function runnerEnv(): RunnerEnv {
  const sshArgs = sshArgsFromEnv();
  return { workerFile: path.join(__dirname, 'worker.js'), ...(sshArgs ? { sshArgs } : {}) };
}
