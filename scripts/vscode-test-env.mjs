// The code-server and Node 24 the VS Code tests use, set up (or found in the cache) by
// scripts/setup-vscode-test.sh: its KEY=VALUE lines as an object (CODE_SERVER, NODE24_BIN, ...).
import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Runs the set-up script of the repository at `root` and returns what it printed. */
export function vscodeTestEnv(root) {
  return Object.fromEntries(
    execFileSync('bash', [path.join(root, 'scripts', 'setup-vscode-test.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
      .trim()
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}
