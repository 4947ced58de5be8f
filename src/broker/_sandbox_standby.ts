/**
 * Spare sandboxes: each shell command still gets a fresh, never-used bwrap sandbox, but the next
 * one is started in the background while the model thinks, so its setup (~15 ms of namespace
 * and mount work on a 2-core VM) is off the critical path.
 *
 * @module
 */
import { endPhase, startPhase } from "../_util/step_phase.ts";
import { killSandbox } from "./_kill_sandbox.ts";

/**
 * The program a spare sandbox runs (a fresh `bash -c`, started by the sandbox check's `exec`):
 * it waits for one NUL-terminated command on stdin, then a NUL-terminated egress credential
 * (empty without network), detaches stdin, puts the credential into the proxy variables the
 * egress launcher set (a spare is started before its call has one), unsets its own variables
 * and runs the command itself (`eval`), as `bash -c <command>` would: a second bash start
 * (`exec bash -c`) cost ~1–2 ms of CPU on the step's path (docs/performance.md, "A step"). The
 * command sees a shell with nothing of the launcher in it but the proxy variables; its exit
 * status is the sandbox's. The leading `:` word marks spares in a process listing.
 */
export const STANDBY_LAUNCHER = [
  ': odek-standby; IFS= read -r -d "" c || exit 97; IFS= read -r -d "" t; exec </dev/null',
  'if [ -n "$t" ] && [ -n "${HTTP_PROXY-}" ]; then p="http://odek:$t@${HTTP_PROXY#http://}"',
  '  export HTTP_PROXY="$p" HTTPS_PROXY="$p" ALL_PROXY="$p" http_proxy="$p" https_proxy="$p" all_proxy="$p"',
  "fi; unset t p",
  // The command's text is expanded into eval's argument before `unset c` runs.
  'eval "unset c',
  '$c"',
].join("\n");

/** A sandbox started for a key, not yet used. */
interface Spare {
  child: Deno.ChildProcess;
  done: boolean;
}

/** Where and how a spare runs: the rendered sandbox command line. */
export interface StandbySpec {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
}

/**
 * Spares kept ready per scope. Two, so that the one a command takes was started a whole step
 * earlier and has finished its setup even when the model answers at once.
 */
const SPARES_PER_KEY = 2;

/** Scopes kept ready at most (the most recently used ones). */
const MAX_KEYS = 8;

/**
 * Up to {@linkcode SPARES_PER_KEY} spare sandboxes per key (the rendered command line,
 * environment and workspace), oldest first. Used by `runShell` in bwrap mode; owned and closed
 * by the broker.
 */
export class SandboxStandby implements AsyncDisposable {
  readonly #spares = new Map<string, Spare[]>();
  /** The specs used so far: {@linkcode SandboxStandby.prepare} keeps a spare ready for each. */
  readonly #wanted = new Map<string, { spec: StandbySpec }>();
  #closed = false;

  /**
   * Take the spare for `spec` if it is alive, else spawn a new sandbox. The key is the whole
   * rendered command line, which holds the pinned identity (`dev:ino`) of every bind: a spare is
   * used only when the paths the caller pinned just now are the very objects the spare mounted
   * (and verified inside itself before it waited for a command; see `_sandbox_check.ts`). A
   * workspace replaced since the spare started pins differently, so the spare is not used. The
   * next spare is started by {@linkcode SandboxStandby.prepare}, off the critical path (spawning
   * blocks the thread).
   *
   * @returns a sandbox running {@linkcode STANDBY_LAUNCHER}, waiting for its command on stdin
   */
  take(spec: StandbySpec): Promise<Deno.ChildProcess> {
    const key = keyOf(spec);
    const spares = this.#spares.get(key) ?? [];
    let child: Deno.ChildProcess | undefined;
    while (child === undefined && spares.length > 0) {
      const spare = spares.shift()!;
      if (!spare.done) child = spare.child;
      else void this.#discard(spare); // dead: its check failed, or it was killed
    }
    if (child === undefined) {
      const start = startPhase();
      child = spawn(spec);
      endPhase("shell:spawn-on-demand", start);
    }
    if (!this.#closed) {
      this.#wanted.delete(key); // most recently used last
      this.#wanted.set(key, { spec });
      // Keys of scopes no longer used (a workspace replaced since: it pins differently) go.
      for (const old of [...this.#wanted.keys()].slice(0, -MAX_KEYS)) {
        this.#wanted.delete(old);
        for (const spare of this.#spares.get(old) ?? []) void this.#discard(spare);
        this.#spares.delete(old);
      }
    }
    return Promise.resolve(child);
  }

  /** Top up the spares of every spec used so far. Never throws. */
  prepare(): void {
    for (const [key, { spec }] of this.#wanted) this.#fill(key, spec);
  }

  /**
   * Top up the spares of `spec` (a spec {@linkcode SandboxStandby.take} was given), if it is
   * still wanted. `runShell` calls it once its command is in the sandbox it took: the spawn
   * (which blocks the thread for a few milliseconds) then overlaps the command's run instead of
   * the next step. Never throws.
   */
  refill(spec: StandbySpec): void {
    const key = keyOf(spec);
    if (this.#wanted.has(key)) this.#fill(key, spec);
  }

  #fill(key: string, spec: StandbySpec): void {
    const spares = this.#spares.get(key) ?? [];
    this.#spares.set(key, spares);
    const dead = spares.filter((spare) => spare.done);
    if (dead.length > 0) {
      // A spare that ended before it was taken failed its check (its mounts are no longer what
      // the key pinned) or was killed: drop it and stop refilling that key until it is used.
      for (const spare of dead) void this.#discard(spare);
      this.#spares.set(key, spares.filter((spare) => !spare.done));
      this.#wanted.delete(key);
      return;
    }
    try {
      while (!this.#closed && spares.length < SPARES_PER_KEY) {
        const start = startPhase();
        const next: Spare = { child: spawn(spec), done: false };
        endPhase("shell:spawn-spare", start);
        void next.child.status.then(() => (next.done = true));
        spares.push(next);
      }
    } catch {
      this.#wanted.delete(key); // cannot spawn: commands start on demand
    }
  }

  /** Kill every spare. Idempotent; later `take`s start no spares. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wanted.clear();
    const spares = [...this.#spares.values()].flat();
    this.#spares.clear();
    await Promise.all(spares.map((spare) => this.#discard(spare)));
  }

  /** {@linkcode SandboxStandby.close}: for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #discard(spare: Spare): Promise<void> {
    if (!spare.done) await killSandbox(spare.child.pid);
    await spare.child.status;
    await Promise.all([spare.child.stdout.cancel(), spare.child.stderr.cancel()]).catch(() => {});
    await spare.child.stdin.close().catch(() => {});
  }
}

/** Keys made so far, by spec: `runShell` passes one spec to `take` and then `refill`. */
const KEYS = new WeakMap<StandbySpec, string>();

/** A spec's key: its whole command line (~10 KB with the check's script), made once per spec. */
function keyOf(spec: StandbySpec): string {
  let key = KEYS.get(spec);
  if (key === undefined) KEYS.set(spec, key = JSON.stringify([spec.argv, spec.env, spec.cwd]));
  return key;
}

function spawn(spec: StandbySpec): Deno.ChildProcess {
  return new Deno.Command(spec.argv[0], {
    args: spec.argv.slice(1),
    cwd: spec.cwd,
    clearEnv: true,
    env: spec.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}
