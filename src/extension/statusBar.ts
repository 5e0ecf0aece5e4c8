// The status-bar item: the cycle's phase while one runs, and the champion with its PAR-2 always;
// a click opens the Steering view.
import * as vscode from 'vscode';
import { readCycle } from '../core/store/cycleState';
import { EvalStore } from '../core/eval/evalStore';
import { statusText } from './statusText';
import type { WorkspaceModel } from './workspaceModel';
import { Disposable } from './disposable';

export class SatlutionStatusBar extends Disposable {
  private readonly item = this.register(vscode.window.createStatusBarItem('satlution.status', vscode.StatusBarAlignment.Left, 50));
  private running = false;
  private shown = false;

  constructor(private readonly model: WorkspaceModel) {
    super();
    this.item.name = 'SATLUTION';
    this.item.command = { command: 'satlution.steering.focus', title: 'Show the Steering view' };
    this.register(model.onDidChange(() => void this.update()));
    this.register(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('satlution.statusBar.enabled') && void this.update()));
  }

  /** What the item shows now (hidden: undefined). */
  get text(): string | undefined {
    return this.shown ? this.item.text : undefined;
  }

  setRunning(running: boolean): void {
    this.running = running;
    void this.update();
  }

  async update(): Promise<void> {
    const snap = this.model.snapshot;
    if (!snap || !vscode.workspace.getConfiguration('satlution').get<boolean>('statusBar.enabled', true)) {
      this.shown = false;
      return this.item.hide();
    }
    const champ = snap.candidates.find((c) => c.champion);
    const par2 = champ ? await championPar2(snap.dir, champ.dir) : null;
    const t = statusText(await readCycle(snap.dir), this.running, champ ? { dir: champ.dir, par2 } : undefined);
    this.item.text = t.text;
    this.item.tooltip = t.tooltip;
    this.item.accessibilityInformation = { label: `SATLUTION: ${t.tooltip.replace(/\n/g, '. ')}` };
    this.item.show();
    this.shown = true;
  }
}

async function championPar2(ws: string, dir: string): Promise<number | null> {
  return (await new EvalStore(ws).get(dir))?.metrics?.par2 ?? null;
}
