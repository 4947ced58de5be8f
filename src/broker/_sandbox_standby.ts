/**
 * Spare sandboxes: each shell command still gets a fresh, never-used bwrap sandbox, but the next
 * one is started in the background while the model thinks, so its setup (~15 ms of namespace
 * and mount work on a 2-core VM) is off the critical path.
 *
 * @module
 */
import { killSandbox } from "./_kill_sandbox.ts";

/**
 * The program a spare sandbox runs: it waits for one NUL-terminated command on stdin, detaches
 * stdin, and replaces itself with `bash -c <command>`. The leading `:` word marks spares in a
 * process listing.
 */
export const STANDBY_LAUNCHER =
  ': odek-standby; IFS= read -r -d "" c || exit 97; exec </dev/null; exec bash -c "$c"';

/** A sandbox started for a key, not yet used. */
interface Spare {
  child: Deno.ChildProcess;
  /** The workspace's inode when the spare mounted it. */
  ino: number | null;
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

/**
 * Up to {@linkcode SPARES_PER_KEY} spare sandboxes per key (the rendered command line,
 * environment and workspace), oldest first. Used by `runShell` in bwrap mode; owned and closed
 * by the broker.
 */
export class SandboxStandby implements AsyncDisposable {
  readonly #spares = new Map<string, Spare[]>();
  /** The specs used so far: {@linkcode SandboxStandby.prepare} keeps a spare ready for each. */
  readonly #wanted = new Map<string, { spec: StandbySpec; ino: number | null }>();
  #closed = false;

  /**
   * Take the spare for `spec` if it is alive and still mounts the same workspace directory
   * (same inode), else spawn a new sandbox. The next spare is started by
   * {@linkcode SandboxStandby.prepare}, off the critical path (spawning blocks the thread).
   *
   * @returns a sandbox running {@linkcode STANDBY_LAUNCHER}, waiting for its command on stdin
   */
  async take(spec: StandbySpec): Promise<Deno.ChildProcess> {
    const key = JSON.stringify([spec.argv, spec.env, spec.cwd]);
    const ino = await inodeOf(spec.cwd);
    const spares = this.#spares.get(key) ?? [];
    let child: Deno.ChildProcess | undefined;
    while (child === undefined && spares.length > 0) {
      const spare = spares.shift()!;
      if (!spare.done && spare.ino !== null && spare.ino === ino) child = spare.child;
      else void this.#discard(spare); // dead, or it mounted a workspace that was replaced
    }
    child ??= spawn(spec);
    if (!this.#closed) this.#wanted.set(key, { spec, ino });
    return child;
  }

  /** Top up the spares of every spec used so far. Never throws. */
  prepare(): void {
    for (const [key, { spec, ino }] of this.#wanted) {
      const spares = this.#spares.get(key) ?? [];
      this.#spares.set(key, spares);
      try {
        while (!this.#closed && spares.length < SPARES_PER_KEY) {
          const next: Spare = { child: spawn(spec), ino, done: false };
          void next.child.status.then(() => (next.done = true));
          spares.push(next);
        }
      } catch {
        this.#wanted.delete(key); // cannot spawn: commands start on demand
      }
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

async function inodeOf(path: string): Promise<number | null> {
  try {
    return (await Deno.stat(path)).ino;
  } catch {
    return null;
  }
}
