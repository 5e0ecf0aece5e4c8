// Shows satlution.yaml problems as diagnostics on the exact lines, as the person types and when the
// file changes on disk (e.g. edited by another tool).
import * as vscode from 'vscode';
import * as path from 'node:path';
import { parseConfig, type ConfigIssue } from '../../core/config/load';
import { CONFIG_FILE } from '../../core/layout';
import { Disposable } from '../disposable';

export class ConfigDiagnostics extends Disposable {
  private readonly collection = this.register(vscode.languages.createDiagnosticCollection('satlution'));
  private timers = new Map<string, NodeJS.Timeout>();

  constructor() {
    super();
    this.register(vscode.workspace.onDidOpenTextDocument((d) => this.check(d)));
    this.register(vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document)));
    this.register(vscode.workspace.onDidSaveTextDocument((d) => this.check(d)));
    for (const d of vscode.workspace.textDocuments) this.check(d);
  }

  /** Validates a satlution.yaml on disk that is not open in an editor. */
  async checkFile(uri: vscode.Uri): Promise<void> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) return this.check(open);
    try {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      this.set(uri, text);
    } catch {
      this.collection.delete(uri);
    }
  }

  get(uri: vscode.Uri): readonly vscode.Diagnostic[] {
    return this.collection.get(uri) ?? [];
  }

  private schedule(doc: vscode.TextDocument): void {
    if (!isConfig(doc.uri)) return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => this.check(doc), 200),
    );
  }

  private check(doc: vscode.TextDocument): void {
    if (isConfig(doc.uri)) this.set(doc.uri, doc.getText());
  }

  private set(uri: vscode.Uri, text: string): void {
    const r = parseConfig(text);
    this.collection.set(uri, r.ok ? [] : r.issues.map(toDiagnostic));
  }

  override dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    super.dispose();
  }
}

const isConfig = (uri: vscode.Uri) => uri.scheme === 'file' && path.basename(uri.fsPath) === CONFIG_FILE;

export function toDiagnostic(i: ConfigIssue): vscode.Diagnostic {
  const range = new vscode.Range(i.range.line - 1, i.range.column - 1, i.range.endLine - 1, Math.max(i.range.endColumn - 1, 0));
  const where = i.key.startsWith('(') ? '' : `${i.key}: `;
  const d = new vscode.Diagnostic(range, `${where}${i.message}${i.example ? `\nExample: ${i.example}` : ''}`, vscode.DiagnosticSeverity.Error);
  d.source = 'satlution';
  d.code = i.key;
  return d;
}
