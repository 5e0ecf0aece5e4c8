// Opens a Markdown document rendered (the built-in Markdown preview as the editor), where a person
// reads it rather than edits it: RESULTS.md, HYPOTHESIS.md, agent transcripts. Falls back to the text
// editor when the built-in Markdown extension is disabled.
import * as vscode from 'vscode';

/** The custom editor the built-in Markdown extension contributes ("Open With… › Markdown Preview"). */
export const MARKDOWN_PREVIEW_EDITOR = 'vscode.markdown.preview.editor';

/** Shows `uri` rendered; with a custom editor (unlike `markdown.showPreview`) the column and preview mode can be chosen. */
export async function showMarkdown(uri: vscode.Uri, options: vscode.TextDocumentShowOptions = { preview: true }): Promise<void> {
  if (vscode.extensions.getExtension('vscode.markdown-language-features')) {
    try {
      await vscode.commands.executeCommand('vscode.openWith', uri, MARKDOWN_PREVIEW_EDITOR, options);
      return;
    } catch {
      // The preview could not open this document: show its text instead.
    }
  }
  await vscode.window.showTextDocument(uri, options);
}
