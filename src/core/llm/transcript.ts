// An agent's whole conversation, appended as JSONL as it happens, so it can be read while the agent
// works and survives a crash.
import * as path from 'node:path';
import { appendJsonLine, readJsonLines } from '../store/atomic';
import type { ChatMessage, Usage } from './provider';
import { STATE_DIR } from '../layout';

export const TRANSCRIPTS_DIR = path.join(STATE_DIR, 'transcripts');

/** `.satlution/transcripts/cycle-<n>-<role>.jsonl` */
export const transcriptFile = (ws: string, cycle: number, role: string): string => path.join(ws, TRANSCRIPTS_DIR, `cycle-${cycle}-${role}.jsonl`);

/** The cycle and role of a transcript's file name, or undefined for other files. */
export function parseTranscriptName(name: string): { cycle: number; role: string } | undefined {
  const m = /^cycle-([1-9]\d{0,8})-([a-z][a-z0-9_-]{0,31})\.jsonl$/.exec(name);
  return m ? { cycle: Number(m[1]), role: m[2]! } : undefined;
}

/** `candidate` on a session's system event: which candidate the session worked on (several per cycle with sift). */
export type TranscriptEvent =
  { type: 'system'; content: string; candidate?: string } | { type: 'message'; message: ChatMessage; usage?: Usage } | { type: 'end'; reason: string };
export type TranscriptEntry = TranscriptEvent & { at: string };

export class Transcript {
  constructor(readonly file: string) {}

  async add(e: TranscriptEvent): Promise<void> {
    await appendJsonLine(this.file, { at: new Date().toISOString(), ...e });
  }

  async read(): Promise<TranscriptEntry[]> {
    return (await readJsonLines(this.file)).records as TranscriptEntry[];
  }
}
