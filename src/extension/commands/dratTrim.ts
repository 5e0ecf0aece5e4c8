// "SATLUTION: Set Up drat-trim": a first run without the proof checker is fixed from the editor.
// Locate: a binary picked (or given) is probed on a real and a bogus proof, then written to
// evaluation.drat_trim. Build: the clone-and-make command is typed into a terminal and left for the
// person to read and run (nothing is installed behind their back); the build lands where the
// evaluator looks by default.
import * as vscode from 'vscode';
import { z } from 'zod';
import { writeValues } from '../../core/config/edit';
import { dratTrimBuildCommand, findDratTrim, probeDratTrim } from '../../core/run/checkers';
import type { WorkspaceModel } from '../workspaceModel';

const Args = z.object({ action: z.enum(['locate', 'build']).optional(), path: z.string().min(1).optional() }).strict();

/** What happened: the binary now configured, or the command put in the terminal. */
export type DratTrimSetup = { configured: string } | { terminal: string } | undefined;

/** Locates or builds drat-trim; `afterwards` re-runs the Runners health check. */
export async function setupDratTrim(raw: unknown, ctx: { model: WorkspaceModel; afterwards: () => Thenable<unknown> }): Promise<DratTrimSetup> {
  const ws = ctx.model.workspaceRoot;
  if (!ws) {
    void vscode.window.showWarningMessage('SATLUTION: initialize a workspace first.');
    return undefined;
  }
  const args = Args.safeParse(raw ?? {}).data ?? {};
  const found = findDratTrim();
  const action =
    args.action ??
    (
      await vscode.window.showQuickPick(
        [
          ...(found ? [{ label: `Use ${found}`, id: 'found' as const, detail: 'Found on this machine.' }] : []),
          { label: 'Locate drat-trim…', id: 'locate' as const, detail: 'Pick an existing drat-trim binary; it is tested on a real and a bogus proof first.' },
          {
            label: 'Build drat-trim in a terminal',
            id: 'build' as const,
            detail: 'git clone https://github.com/marijnheule/drat-trim and make (needs git, make and a C compiler); you see the command before it runs.',
          },
        ],
        { title: 'SATLUTION: Set Up drat-trim', placeHolder: 'UNSAT answers are only accepted with a DRAT proof drat-trim verifies' },
      )
    )?.id;
  if (!action) return undefined;
  if (action === 'build') {
    const command = dratTrimBuildCommand();
    const term = vscode.window.createTerminal({ name: 'SATLUTION: build drat-trim' });
    term.show();
    // Typed, not run: the person reads it and presses Enter.
    term.sendText(command, false);
    void vscode.window
      .showInformationMessage(
        "SATLUTION: the build command is in the terminal: press Enter there to run it, then check the runner's health again.",
        'Check Health',
      )
      .then((a) => a && ctx.afterwards());
    return { terminal: command };
  }
  const picked =
    action === 'found'
      ? found
      : (args.path ??
        (
          await vscode.window.showOpenDialog({
            title: 'SATLUTION: the drat-trim binary',
            canSelectFiles: true,
            canSelectFolders: false,
            canSelectMany: false,
            openLabel: 'Use This drat-trim',
          })
        )?.[0]?.fsPath);
  if (!picked) return undefined;
  const problem = await probeDratTrim(picked);
  if (problem) {
    void vscode.window.showErrorMessage(`SATLUTION: ${picked} cannot check proofs: ${problem}.`);
    return undefined;
  }
  await writeValues(ws, [{ path: ['evaluation', 'drat_trim'], value: picked }]);
  await ctx.model.refresh();
  void ctx.afterwards();
  void vscode.window.showInformationMessage(`SATLUTION: evaluation.drat_trim is ${picked} (it verified a proof and rejected a bogus one).`);
  return { configured: picked };
}
