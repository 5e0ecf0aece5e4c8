// The SSH runner's run markers. While a run goes on the host, `running/<key>.pid` in the remote
// workdir names its worker, so the next call for the same key (another attempt after a dropped
// connection) waits for that run instead of starting it twice, and Stop can end it. The marker is one
// line, `<pid> <start> <boot id> <host> <shell pid> <shell start>`, start being field 22 of
// /proc/<pid>/stat (the shell: the script that moves the worker's result in). It counts only
// while it names this run's worker: the same process (pid and start time, this host, this boot), with
// this run's worker command line, younger than any run may take. Anything else (a dead pid, a pid
// reused after a crash, another machine's or an earlier boot's marker, a file a solver planted,
// garbage) is stale: it neither holds the run up nor gets a signal. Scripts are POSIX sh (sshExec).
import { shJoin, shq } from './shellQuote';
import { remoteDir } from './ssh';

export interface RemoteRun {
  /** The workdir as configured (`~/x`, relative or absolute). */
  workdir: string;
  /** The task key (names results/<key>.json and running/<key>.pid). */
  key: string;
  /** The worker's command line: node, worker-<hash>.js, then its arguments. */
  worker: readonly string[];
  /** Seconds after which a run is over however its marker looks (the Slurm backstop, timeLimitMinutes). */
  limitS: number;
  /** Variables for the worker's environment (not its command line, which the marker matches, so an attempt in another slot still finds its run). */
  env?: Readonly<Record<string, string>>;
}

/**
 * `satl_start PID`: the process's start time, nothing for a zombie or a missing one. `satl_live FILE`:
 * true (and `p` set) while the marker names a live run of ours within its time; `satl_ours PID` decides
 * what "ours" is and is defined by each script. Without /proc (not Linux) only `kill -0` is left.
 */
function markerFunctions(limitS: number): string[] {
  return [
    `LIMIT=${Math.max(1, Math.ceil(limitS))}`,
    'HOST=$(uname -n); BOOT=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null); BOOT=${BOOT:-none}',
    'TCK=$(getconf CLK_TCK 2>/dev/null); case "$TCK" in ""|*[!0-9]*|0) TCK=100;; esac',
    // The name (field 2) may hold spaces and ")": fields after the last ") " start at field 3.
    `satl_start() { awk '{ sub(/.*\\) /, ""); if ($1 != "Z" && $1 != "X") print $20 }' "/proc/$1/stat" 2>/dev/null; }`,
    // A marker is read only if it is a regular file, and no further than 256 bytes: a planted one may be a FIFO or huge.
    'satl_head() { [ -f "$1" ] && head -c 256 "$1" 2>/dev/null; }',
    'satl_live() {',
    '  p= s= b= h=',
    '  read -r p s b h x <<SATL_EOF',
    '$(satl_head "$1")',
    'SATL_EOF',
    '  case "$p" in ""|*[!0-9]*) return 1;; esac',
    '  [ -r /proc/self/stat ] || { kill -0 "$p" 2>/dev/null; return; }',
    '  now=$(satl_start "$p")',
    '  [ -n "$now" ] || return 1',
    '  [ -n "$s" ] || { s=$now; b=$BOOT; h=$HOST; }', // an older marker: the pid alone
    '  [ "$s" = "$now" ] && [ "$b" = "$BOOT" ] && [ "$h" = "$HOST" ] || return 1',
    '  satl_ours "$p" || return 1',
    '  up=$(cut -d" " -f1 /proc/uptime); up=${up%.*}',
    '  [ $((up - now / TCK)) -le "$LIMIT" ]',
    '}',
  ];
}

/** The remote side of one run: take its stored result, wait for a live run of it, or start it. */
export function remoteRunScript(r: RemoteRun): string {
  return [
    `cd ${remoteDir(r.workdir)} || exit 3`,
    `R=results/${shq(r.key)}.json; P=running/${shq(r.key)}.pid`,
    ...markerFunctions(r.limitS),
    // Ours: a command line ending in exactly this run's worker arguments (a wrapper may precede them).
    `satl_args() { printf '%s\\000' ${shJoin(r.worker.slice(1))}; }`,
    'satl_ours() {',
    '  n=$(satl_args | wc -c)',
    `  [ "$(cat "/proc/$1/cmdline" 2>/dev/null | tail -c $((n + 1)) | od -An -v -tx1)" = "$({ printf '\\000'; satl_args; } | od -An -v -tx1)" ]`,
    '}',
    // Between its worker's exit and the result's move, a run's shell still holds the marker: a call that
    // waited on that worker waits for the shell too (while it lives and the marker is the one waited on).
    'satl_closing() {',
    '  [ "$(satl_head "$P")" = "$held" ] || return 1',
    '  printf \'%s\\n\' "$held" | { read -r _ _ _ _ q qs _; case "$q" in ""|*[!0-9]*) exit 1;; esac; [ -n "$qs" ] && [ "$(satl_start "$q")" = "$qs" ]; }',
    '}',
    'if [ ! -s "$R" ]; then',
    '  held=; while satl_live "$P"; do held=$(satl_head "$P"); sleep 0.5; done',
    '  i=0; while [ -n "$held" ] && [ ! -s "$R" ] && [ $i -lt 300 ] && satl_closing; do sleep 0.2; i=$((i + 1)); done',
    'fi',
    'if [ ! -s "$R" ]; then',
    `  ${Object.entries(r.env ?? {})
      .map(([k, v]) => `${k}=${shq(v)} `)
      .join('')}${shJoin([...r.worker])} > "$R.$$" & w=$!`,
    '  ws=$(satl_start "$w"); M="$w ${ws:-0} $BOOT $HOST $$ $(satl_start $$)"',
    '  echo "$M" > "$P.$$" && mv -f "$P.$$" "$P"',
    '  wait $w; st=$?',
    // The result is in place before the marker goes: a call waiting on the marker then finds it.
    '  if [ $st -eq 0 ]; then mv "$R.$$" "$R" || st=4; else rm -f "$R.$$"; fi',
    // Remove the marker only if it is still ours (a run started meanwhile keeps its own).
    '  [ "$(satl_head "$P")" = "$M" ] && rm -f "$P"',
    '  [ $st -eq 0 ] || exit $st',
    'fi',
    'cat "$R"',
  ].join('\n');
}

/** Stop: SIGTERM to the worker of each key whose marker is live (the worker ends its solver's group). */
export function remoteCancelScript(workdir: string, keys: readonly string[], limitS: number): string {
  return [
    `cd ${remoteDir(workdir)} || exit 0`,
    ...markerFunctions(limitS),
    // Ours: a worker bundle of some run (Stop does not know each run's arguments).
    `satl_ours() { tr '\\000' '\\n' < "/proc/$1/cmdline" 2>/dev/null | grep -qE '^(.*/)?worker-[0-9a-f]+[.]js$'; }`,
    `for k in ${shJoin(keys)}; do satl_live "running/$k.pid" && kill -TERM "$p" 2>/dev/null; done; true`,
  ].join('\n');
}
