// An agent's whole conversation, appended as JSONL as it happens, so it can be read while the agent
// works and survives a crash.
import { appendJsonLine, readJsonLines } from '../store/atomic';
import type { ChatMessage, Usage } from '../llm/types';

export type TranscriptEvent = { type: 'system'; content: string } | { type: 'message'; message: ChatMessage; usage?: Usage } | { type: 'end'; reason: string };
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
