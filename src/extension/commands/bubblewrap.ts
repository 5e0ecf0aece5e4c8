// "SATLUTION: Install bubblewrap": the sandbox every build and run goes through is missing on this
// machine; the package manager's install command is typed into a terminal for the person to read and
// run (it needs their password; nothing is installed behind their back).
import * as vscode from 'vscode';
import { BWRAP_INSTALL } from '../../core/isolation/probe';
import { findOnPath } from '../../core/run/checkers';

/** The command typed, or undefined when no known package manager is here (then the person is told what to do). */
export async function installBubblewrap(afterwards: () => Thenable<unknown>): Promise<string | undefined> {
  const known = BWRAP_INSTALL.find((b) => findOnPath(b.manager));
  if (!known) {
    void vscode.window.showWarningMessage(
      'SATLUTION: no apt-get, dnf or pacman here: install bubblewrap (bwrap) with this system\'s package manager, or set sandbox: off in satlution.yaml (results are then marked "measured without isolation").',
    );
    return undefined;
  }
  const term = vscode.window.createTerminal({ name: 'SATLUTION: install bubblewrap' });
  term.show();
  term.sendText(known.command, false);
  void vscode.window
    .showInformationMessage(
      "SATLUTION: the install command is in the terminal: press Enter there to run it, then check the runner's health again.",
      'Check Health',
    )
    .then((a) => a && afterwards());
  return known.command;
}
