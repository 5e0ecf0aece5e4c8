import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { InstanceResult } from '../../src/core/run/result';

/** out/test/unit -> repository root */
export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures');
export const RULES = path.join(ROOT, 'rules');
export const CLI = path.join(ROOT, 'dist', 'cli.js');
export const WORKER = path.join(ROOT, 'dist', 'worker.js');

/** A fresh temporary directory, removed after the current test file. */
const made: string[] = [];
export function tempDir(prefix = 'satlution-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(d);
  return d;
}
after(() => {
  for (const d of made.splice(0)) {
    // Seeds are read-only: make everything writable again before removal (matters when not root).
    fs.chmodSync(d, 0o755);
    fs.rmSync(d, { recursive: true, force: true });
  }
});

export function write(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

/** A run's solved answer (UNSAT unless said) in `s` seconds, as a perf run leaves it before any proof is checked; `over` changes any field. */
export function solvedRun(instance: string, s: number, over: Partial<InstanceResult> = {}): InstanceResult {
  const answer = over.answer ?? 'UNSAT';
  return {
    instance,
    family: null,
    expected: null,
    expected_from: 'none',
    answer,
    status: 'solved',
    time_s: s,
    cpu_s: s,
    mem_mb: null,
    exit_code: answer === 'SAT' ? 10 : 20,
    signal: null,
    check: { kind: 'none', ok: null, time_s: 0, detail: '' },
    detail: '',
    ...over,
  };
}
