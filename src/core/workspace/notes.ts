// The person's direction notes for the next cycles (.satlution/notes.md): the planner reads them with
// every plan; the Steering view edits them.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { writeFileAtomic } from '../store/atomic';
import { STATE_DIR } from '../layout';

export const NOTES_FILE = path.join(STATE_DIR, 'notes.md');
/** Notes go into every planner prompt: keep them to a size a prompt can afford. */
export const MAX_NOTES_CHARS = 20_000;

export async function readNotes(ws: string): Promise<string> {
  return fs.readFile(path.join(ws, NOTES_FILE), 'utf8').catch(() => '');
}

/** Saves the notes (line endings normalized, one final newline); empty text leaves an empty file. */
export async function writeNotes(ws: string, text: string): Promise<string> {
  if (text.length > MAX_NOTES_CHARS) throw new Error(`the notes are ${text.length} characters; at most ${MAX_NOTES_CHARS} fit in a plan's prompt`);
  const body = text.replace(/\r\n?/g, '\n').trimEnd();
  const saved = body ? `${body}\n` : '';
  await writeFileAtomic(path.join(ws, NOTES_FILE), saved);
  return saved;
}
