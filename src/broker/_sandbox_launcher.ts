/**
 * The launcher every bwrap sandbox starts through (private to `broker/`; `renderSandbox` puts it
 * before bwrap, and `render_sandbox.ts` exports it).
 *
 * @module
 */

/** Empty groups of ended sandboxes a launcher leaves before it removes them all at once. */
export const SWEEP_AT = 4;

/**
 * The launcher every bwrap sandbox starts through, run by `/bin/sh` (`$1` cgroup dir or empty,
 * `$2` limit, `$3` the compiled seccomp filter file or empty, then bwrap's argv). Once there are
 * {@linkcode SWEEP_AT} empty groups of ended sandboxes (those whose launcher pid is gone), it
 * removes them with one `rmdir` in the background, holding none of the sandbox's pipes (Deno refuses `/sys` to a core without
 * `--allow-all`, so the core cannot; removing a cgroup takes the kernel ~10 ms, and an `rmdir`
 * for each sandbox cost ~1 ms of CPU per shell call), moves itself
 * into a new child group `s<pid>` of the pids cgroup (so bwrap and everything it starts is
 * counted), opens the filter as fd 3, and execs bwrap (same pid). A limit it cannot apply or a
 * filter it cannot open stops it with exit code 125 before anything runs: fail closed.
 */
export const SANDBOX_LAUNCHER = `c=$1 m=$2 f=$3; shift 3
if [ -n "$c" ]; then
  # groups of ended sandboxes: s<pid> of a pid that is gone (a live launcher's fresh, still
  # empty group is left alone; a busy group refuses rmdir anyway), counted with builtins only
  k=0; for g in "$c"/s[0-9]*; do [ -d "$g" ] && ! [ -d "/proc/\${g##*/s}" ] && k=$((k + 1)); done
  [ $k -lt ${SWEEP_AT} ] || (set --; for g in "$c"/s[0-9]*; do
    [ -d "/proc/\${g##*/s}" ] || set -- "$@" "$g"; done; rmdir -- "$@" </dev/null >/dev/null 2>&1 &)
  d=$c/s$$ n=0
  # v1 (a tasks file): the launcher's one thread joins by "0" (itself), which the kernel does
  # without the lock that a whole process's move takes; that lock waits for an RCU grace period
  # (10-40 ms here) and holds every fork and exit on the machine meanwhile (v2: cgroup.procs).
  until { mkdir -p "$d" && echo "$m" > "$d/pids.max" &&
    { { [ -f "$d/tasks" ] && echo 0 > "$d/tasks"; } || echo $$ > "$d/cgroup.procs"; }; } 2>/dev/null; do
    n=$((n + 1)) # a launcher whose pid was reused may still sweep the group between mkdir and join
    [ $n -lt 5 ] || { echo "odek: cannot limit the sandbox to $m processes in $d: nothing was run" >&2; exit 125; }
  done
fi
if [ -n "$f" ]; then exec 3< "$f" || exit 125; fi
exec "$@"`;
