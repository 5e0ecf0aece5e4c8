// An optional git pre-commit hook that runs the compliance check on every staged candidate. It never
// replaces a hook it did not write.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

const MARK = '# satlution pre-commit hook';

export async function installHook(workspaceDir: string, cliPath: string): Promise<string> {
  let gitDir: string;
  let top: string;
  try {
    gitDir = path.resolve(workspaceDir, execFileSync('git', ['rev-parse', '--git-dir'], { cwd: workspaceDir, encoding: 'utf8' }).trim());
    top = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: workspaceDir, encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`${workspaceDir} is not in a git repository; the pre-commit hook needs one`);
  }
  const hook = path.join(gitDir, 'hooks', 'pre-commit');
  const existing = await fs.readFile(hook, 'utf8').catch(() => undefined);
  if (existing !== undefined && !existing.includes(MARK)) throw new Error(`${hook} exists and was not written by SATLUTION; call \`satlution rules check\` from it yourself`);
  const ws = path.relative(top, workspaceDir) || '.';
  const script = `#!/bin/sh
${MARK}: checks every SATLUTION_<n>/ with staged changes against .rules/ (remove this file to disable).
cd "$(git rev-parse --show-toplevel)/${ws}" || exit 1
status=0
for cand in $(git diff --cached --name-only --relative -- . | sed -n 's#^\\(SATLUTION_[0-9][0-9]*\\)/.*#\\1#p' | sort -u); do
  [ -d "$cand" ] || continue
  node ${JSON.stringify(cliPath)} rules check "$cand" || status=1
done
[ $status -eq 0 ] || echo "satlution: commit stopped by rule violations (see above); fix them or commit with --no-verify" >&2
exit $status
`;
  await fs.mkdir(path.dirname(hook), { recursive: true });
  await fs.writeFile(hook, script, { mode: 0o755 });
  return hook;
}
