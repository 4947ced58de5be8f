/**
 * The first program of every bwrap sandbox (private to `broker/`): before anything of the call
 * runs it closes every inherited descriptor above 2 and checks that each bind mount is the one the
 * core validated, then `exec`s the call's program. See docs/security.md, "Races".
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import { pinKey, type PinnedPath } from "../_util/pin_path.ts";

/**
 * What a failed check prints first on stderr. It makes a refusal only as the very first bytes of
 * a checked sandbox's stderr (see `SandboxCheckVerdict`): a program, which starts only after the
 * check printed {@linkcode SANDBOX_CHECK_PASSED}, may print it anywhere without effect.
 */
export const SANDBOX_CHECK_MARKER = "odek: sandbox check failed:";

/**
 * What a check that passed prints on stderr just before it `exec`s the call's program, so it is
 * the first thing on the stderr of every sandbox whose program ran; every reader of a checked
 * sandbox's stderr removes it (`SandboxCheckVerdict`).
 */
export const SANDBOX_CHECK_PASSED = "odek: sandbox check passed\n";

/** Exit code of a sandbox whose check failed (nothing of the call ran). */
export const SANDBOX_CHECK_EXIT = 125;

/** One bind mount to verify inside the sandbox. */
export interface MountCheck {
  /** Where it is mounted inside the sandbox (absolute, normalised). */
  dest: string;
  /** The host path the core validated and pinned (the bind's source). */
  source: string;
  /** Whether the mount must be read-only or writable. */
  mode: "ro" | "rw";
  /** The pinned identity, `dev:ino` (see `pinKey`). */
  pin: string;
}

/**
 * The check, run by `/bin/bash -c` inside the sandbox with `$1` = the number of checks, then
 * `dest source mode pin` for each, then the expected working directory and its pin, then the
 * expected network namespace inode (each may be empty), then the argv to exec. It needs only bash builtins (and `stat` on kernels before 5.14),
 * so it costs about one bash start:
 *
 * 1. every descriptor above 2 is closed (a descriptor odek inherited from its own parent, on
 *    `ODEK_HOME` or a pipe, would otherwise be usable through `/proc/self/fd/N`);
 * 2. for each mount: no component of `dest` is a symlink; `/proc/self/mountinfo` has a mount at
 *    `dest` (the top one) with the right `ro`/`rw` flag, whose root — the kernel's own path of the
 *    mounted object inside its file system — is `source` (resolved through the host mount that
 *    holds it), so a source swapped for a symlink while bwrap mounted it, or a mount that landed
 *    elsewhere because a component of `dest` was swapped, is caught;
 * 3. the object at every `dest`, opened, is on that mount (`mnt_id` in `/proc/self/fdinfo`) and
 *    has the pinned `dev:ino` (the inode from fdinfo, the device from the mount's `major:minor`);
 * 4. the working directory is the expected one: no component of its path is a symlink,
 *    `[ . -ef dir ]`, and (when pinned) its `dev:ino` is the workspace's pin;
 * 5. when the sandbox joined its session host's network namespace, `/proc/self/ns/net` is that
 *    namespace (its inode), so a holder that died and whose pid was reused by a process in the
 *    host's namespace never gives a program the host's network.
 *
 * Any failure prints {@linkcode SANDBOX_CHECK_MARKER} and the reason on stderr and exits with
 * {@linkcode SANDBOX_CHECK_EXIT} before the call's program starts. Once every check passed, it
 * prints {@linkcode SANDBOX_CHECK_PASSED} (one builtin `echo`: one write) and `exec`s the program:
 * the first bytes on stderr are the check's own either way, which nothing the program prints can
 * change (docs/security.md, "Races").
 */
export const SANDBOX_CHECK =
  `fail() { echo "${SANDBOX_CHECK_MARKER} $1; nothing was run" >&2; exit ${SANDBOX_CHECK_EXIT}; }
[ -d /proc/self/fd ] || fail "no /proc in the sandbox"
for f in /proc/self/fd/*; do f=\${f##*/}; if [ "$f" -gt 2 ] 2>/dev/null; then eval "exec $f>&-"; fi; done
n=$1; shift
esc() { E=\${1//\\\\/\\\\134}; E=\${E// /\\\\040}; }
nolink() {
  local rest=\${1#/} q= c
  while [ -n "$rest" ]; do
    c=\${rest%%/*}; if [ "$c" = "$rest" ]; then rest=; else rest=\${rest#*/}; fi
    q=$q/$c; [ -L "$q" ] && fail "$q is a symlink (the sandbox at $1 is not what odek checked)"
  done
}
ids=() mp=() ro=() dv=() op=() k=0
declare -Ag top at # mount point -> its top mount; -> every mount there, oldest first
mapfile -t lines < /proc/self/mountinfo # one read: \`read\` line by line costs ~2 ms on procfs
set -f
for l in "\${lines[@]}"; do
  F=($l) m=\${F[4]}
  ids+=("\${F[0]}") dv+=("\${F[2]}") ro+=("\${F[3]}") mp+=("$m") op+=("\${F[5]}") top[$m]=$k at[$m]+=" $k" k=$((k + 1))
done
set +f
ident() { # path, index of the mount it must be on (-1: any), pinned dev:ino
  local h k info ino= mnt= j=$2 M mi dev
  [ -p "$1" ] && fail "$1 is a FIFO, not what odek pinned"
  [ -S "$1" ] && return 0 # a socket cannot be opened: its mount's root path stands
  { exec {h}<"$1"; } 2>/dev/null || fail "cannot open $1"
  mapfile -t info < /proc/self/fdinfo/$h
  for k in "\${info[@]}"; do case $k in ino:*) ino=\${k#ino:}; ino=\${ino//[!0-9]/};; mnt_id:*) mnt=\${k#mnt_id:}; mnt=\${mnt//[!0-9]/};; esac; done
  exec {h}<&-
  if [ -z "$ino" ]; then # a kernel before 5.14 shows no inode in fdinfo
    [ "$(stat -c %d:%i -- "$1")" = "$3" ] || fail "$1 is not the object odek pinned ($3)"
    return 0
  fi
  if [ "$j" -lt 0 ]; then for k in "\${!ids[@]}"; do [ "\${ids[$k]}" = "$mnt" ] && j=$k; done; fi
  [ "$j" -ge 0 ] && [ "$mnt" = "\${ids[$j]}" ] || fail "$1 is not on the mount odek checked"
  M=\${dv[$j]%%:*} mi=\${dv[$j]#*:}
  dev=$(( (mi & 255) | ((M & 4095) << 8) | ((mi & ~255) << 12) | ((M & ~4095) << 32) ))
  [ "$dev:$ino" = "$3" ] || fail "$1 is not the object odek pinned (it is $dev:$ino, pinned $3)"
}
tops=() srcs=() modes=() dests=() pins=() i=0
while [ $i -lt "$n" ]; do
  d=$1 s=$2 w=$3 p=$4; shift 4
  nolink "$d"
  esc "$d"; t=\${top[$E]:--1}
  [ "$t" -ge 0 ] || fail "nothing is mounted at $d"
  case \${op[$t]} in "$w"|"$w",*) ;; *) fail "the mount at $d is not $w";; esac
  tops+=("$t") dests+=("$d") pins+=("$p") srcs+=("$s") i=$((i + 1))
done
i=0
for d in "\${dests[@]}"; do
  # The host mount holding the source: the deepest mount point on its way with the same device
  # that is not one of the checked mounts (the newest such mount there).
  t=\${tops[$i]}; esc "\${srcs[$i]}"; es=$E best=-1 m=$es
  while [ "$best" -lt 0 ]; do
    for k in \${at[$m]}; do
      [ "\${dv[$k]}" = "\${dv[$t]}" ] && [[ " \${tops[*]} " != *" $k "* ]] && best=$k
    done
    [ "$best" -ge 0 ] || [ "$m" = / ] && break
    m=\${m%/*}; m=\${m:-/}
  done
  [ "$best" -ge 0 ] || fail "the mount at $d comes from no host file system odek knows"
  m=\${mp[$best]} r=\${ro[$best]}
  if [ "$m" = / ]; then tail=$es; else tail=\${es#"$m"}; fi
  if [ "$r" = / ]; then want=\${tail:-/}; else want=$r$tail; fi
  [ "\${ro[$t]}" = "$want" ] || fail "the mount at $d shows \${ro[$t]}, not \${srcs[$i]}"
  ident "$d" "$t" "\${pins[$i]}"
  i=$((i + 1))
done
c=$1 cp=$2 nn=$3; shift 3
if [ -n "$c" ]; then
  nolink "$c"; [ . -ef "$c" ] || fail "the working directory is not $c"
  [ -n "$cp" ] && ident . -1 "$cp"
fi
if [ -n "$nn" ]; then # the session host's network namespace, joined before bwrap started
  exec {h}</proc/self/ns/net || fail "cannot open /proc/self/ns/net"
  mapfile -t info < /proc/self/fdinfo/$h; exec {h}<&-; ino=
  for k in "\${info[@]}"; do case $k in ino:*) ino=\${k#ino:}; ino=\${ino//[!0-9]/};; esac; done
  [ -n "$ino" ] || ino=$(stat -L -c %i /proc/self/ns/net)
  [ "$ino" = "$nn" ] || fail "the network namespace is not the session's ($ino, expected $nn)"
fi
echo "${SANDBOX_CHECK_PASSED.slice(0, -1)}" >&2
exec "$@"`;

/**
 * The argv that runs {@linkcode SANDBOX_CHECK} and then `argv`.
 *
 * @param checks the mounts to verify
 * @param cwd the expected working directory and its pin (`dev:ino`), each `""` for none
 * @param argv the call's program
 * @param options `netns`: the inode the sandbox's network namespace must have (`""`: none)
 * @returns `/bin/bash -c <check> odek-check …`
 *
 * @example
 * ```ts
 * import { sandboxCheckArgv } from "./_sandbox_check.ts";
 * const argv = sandboxCheckArgv([], { path: "", pin: "" }, ["true"]);
 * if (argv[0] !== "/bin/bash" || argv.at(-1) !== "true") throw new Error(argv.join(" "));
 * ```
 */
export function sandboxCheckArgv(
  checks: readonly MountCheck[],
  cwd: { path: string; pin: string },
  argv: readonly string[],
  options: { netns?: string } = {},
): string[] {
  const out = [
    "/bin/bash",
    "-c",
    SANDBOX_CHECK,
    "odek-check",
    String(checks.length),
  ];
  for (const check of checks) {
    out.push(check.dest, check.source, check.mode, check.pin);
  }
  return [...out, cwd.path, cwd.pin, options.netns ?? "", ...argv];
}

/**
 * Outside bwrap (`sandbox: "none"`, or a tool child without bwrap): only the descriptors are
 * closed before `exec`.
 */
export const CLOSE_DESCRIPTORS =
  `for f in /proc/self/fd/*; do f=\${f##*/}; if [ "$f" -gt 2 ] 2>/dev/null; then eval "exec $f>&-"; fi; done
exec "$@"`;

/**
 * One bind of `renderSandbox`, pinned: the bwrap arguments, and its check added to `checks`.
 * Without `pin` (no pinning) the bind is rendered as given. A `--ro-bind-try` whose source is
 * missing is left out; a missing source of any other bind refuses the sandbox.
 *
 * @param pin the context's `pin`
 * @param op `--bind`, `--ro-bind` or `--ro-bind-try`
 * @param source the host path
 * @param dest where it is mounted
 * @param checks receives the mount's check
 * @returns the arguments (`[]` for a missing optional source)
 * @throws {OdekError} `PATH_CHANGED` from `pin`, or when a required source is missing
 */
export function pinnedBind(
  pin: ((path: string) => PinnedPath | null) | undefined,
  op: string,
  source: string,
  dest: string,
  checks: MountCheck[],
): string[] {
  if (pin === undefined) return [op, source, dest];
  const pinned = pin(source);
  if (pinned === null && op === "--ro-bind-try") return []; // nothing there: nothing to bind
  if (pinned === null) {
    throw new OdekError(
      "PATH_CHANGED",
      `Cannot mount ${source} in the sandbox: it does not exist (any more). Something removed or renamed it after odek checked it; nothing was run.`,
    );
  }
  const mode = op === "--bind" ? "rw" : "ro";
  checks.push({ dest, source, mode, pin: pinKey(pinned) });
  return [mode === "rw" ? "--bind" : "--ro-bind", source, dest];
}

/**
 * The working directory the check expects, pinned (a workspace covered by a writable parent
 * has no bind of its own, so the mounts alone do not check it).
 *
 * @param pin the context's `pin`
 * @param cwd the workspace
 * @returns its path and pin (`pin` empty without pinning)
 * @throws {OdekError} `PATH_CHANGED` from `pin`, or when it is missing
 */
export function pinnedStart(
  pin: ((path: string) => PinnedPath | null) | undefined,
  cwd: string,
): { path: string; pin: string } {
  const pinned = pin?.(cwd);
  if (pinned === null) {
    throw new OdekError(
      "PATH_CHANGED",
      `Cannot start the sandbox in ${cwd}: it does not exist (any more); nothing was run.`,
    );
  }
  return { path: cwd, pin: pinned ? pinKey(pinned) : "" };
}
