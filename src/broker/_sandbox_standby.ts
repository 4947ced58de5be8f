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
 * At most one spare sandbox per key (the rendered command line, environment and workspace).
 * Used by `runShell` in bwrap mode; owned and closed by the broker.
 */
export class SandboxStandby {
  readonly #spares = new Map<string, Spare>();
  #closed = false;

  /**
   * Take the spare for `spec` if it is alive and still mounts the same workspace directory
   * (same inode), else spawn a new sandbox; then start the next spare in the background.
   *
   * @returns a sandbox running {@linkcode STANDBY_LAUNCHER}, waiting for its command on stdin
   */
  async take(spec: StandbySpec): Promise<Deno.ChildProcess> {
    const key = JSON.stringify([spec.argv, spec.env, spec.cwd]);
    const ino = await inodeOf(spec.cwd);
    const spare = this.#spares.get(key);
    this.#spares.delete(key);
    let child: Deno.ChildProcess;
    if (spare && !spare.done && spare.ino !== null && spare.ino === ino) {
      child = spare.child;
    } else {
      if (spare) void this.#discard(spare);
      child = spawn(spec);
    }
    if (!this.#closed) {
      const next: Spare = { child: spawn(spec), ino, done: false };
      void next.child.status.then(() => (next.done = true));
      this.#spares.set(key, next);
    }
    return child;
  }

  /** Kill every spare. Idempotent; later `take`s start no spares. */
  async close(): Promise<void> {
    this.#closed = true;
    const spares = [...this.#spares.values()];
    this.#spares.clear();
    await Promise.all(spares.map((spare) => this.#discard(spare)));
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
