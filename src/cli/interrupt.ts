// Ctrl-C and SIGTERM for a long command: the first signal cancels (the command ends cleanly, with what
// it finished kept and its state resumable); if it has not ended a few seconds later, or a second
// signal comes, the process exits at once. Something that does not answer its cancel (a stuck file
// system call, a child that ignores its signal) never keeps a stopped command alive.
/** The exit code of an interrupted command (ARCHITECTURE.md, "Contracts"). */
export const EXIT_INTERRUPTED = 130;

/** How long a cancelled command may take to end cleanly before the process exits anyway. */
export const STOP_GRACE_MS = 5000;

/**
 * Listens for SIGINT and SIGTERM on behalf of `abort`. Returns the function that stops listening once
 * the command is over; after a signal it keeps listening (a second one still exits at once) and the
 * deadline stays armed, so a process that does not exit by itself is ended.
 */
export function cancelOnSignals(abort: AbortController, o: { command: string; graceMs?: number; say?: (line: string) => void }): () => void {
  const say = o.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const grace = o.graceMs ?? STOP_GRACE_MS;
  const onSignal = (signal: NodeJS.Signals) => {
    if (abort.signal.aborted) {
      say(`satlution ${o.command}: ${signal} again: stopping at once`);
      process.exit(EXIT_INTERRUPTED);
    }
    say(`satlution ${o.command}: stopping (${signal}); again to stop at once`);
    abort.abort(new Error('interrupted'));
    // Unreferenced: it keeps nothing alive, and fires only while something else does.
    setTimeout(() => {
      say(`satlution ${o.command}: did not stop within ${grace / 1000} s; exiting (the saved state resumes)`);
      process.exit(EXIT_INTERRUPTED);
    }, grace).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    if (abort.signal.aborted) return;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
