// POSIX single-quote quoting for the one place a command line is a string: the command ssh hands to
// the remote shell. Inside single quotes nothing is special except the quote itself, which is closed,
// escaped and reopened, so no name (spaces, quotes, $(...), backticks, newlines) can break out.
export function shq(s: string): string {
  if (s.includes('\0')) throw new Error('a shell argument cannot contain a NUL byte');
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A command line for a POSIX shell, every word quoted. */
export function shJoin(words: readonly string[]): string {
  return words.map(shq).join(' ');
}
