// The status-bar item: the cycle's phase while one runs, and the champion with its PAR-2 always;
// a click opens the Steering view.
import * as vscode from 'vscode';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { readCycle } from '../core/store/cycleState';
import { statusText } from './statusText';
import { STATE_DIR } from '../core/layout';
import type { WorkspaceModel } from './workspaceModel';

export class SatlutionStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('satlution.status', vscode.StatusBarAlignment.Left, 50);
  private readonly subs: vscode.Disposable[];
  private running = false;
  private shown = false;

  constructor(private readonly model: WorkspaceModel) {
    this.item.name = 'SATLUTION';
    this.item.command = { command: 'satlution.steering.focus', title: 'Show the Steering view' };
    this.subs = [this.item, model.onDidChange(() => void this.update()), vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('satlution.statusBar.enabled') && void this.update())];
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

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}

async function championPar2(ws: string, dir: string): Promise<number | null> {
  try {
    const j = JSON.parse(await fs.readFile(path.join(ws, STATE_DIR, 'evals', `${dir}.json`), 'utf8')) as { metrics?: { par2?: unknown } | null };
    return typeof j.metrics?.par2 === 'number' ? j.metrics.par2 : null;
  } catch {
    return null;
  }
}
