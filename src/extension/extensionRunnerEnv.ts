// What remote runners need from the extension: the worker bundle shipped beside it, and the ssh
// config to use (the user's ~/.ssh/config unless satlution.runners.sshConfigFile names another).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type RunnerEnv, sshArgsFromEnv } from '../core/runners/select';

export function extensionRunnerEnv(): RunnerEnv {
  const file = vscode.workspace.getConfiguration('satlution').get<string>('runners.sshConfigFile')?.trim();
  const sshArgs = file ? ['-F', file] : sshArgsFromEnv();
  // dist/extension.js and dist/worker.js are built side by side.
  return { workerFile: path.join(__dirname, 'worker.js'), ...(sshArgs ? { sshArgs } : {}) };
}
