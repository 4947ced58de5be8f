/**
 * One long-lived tool child: the process, and the core's end of the child protocol over its stdio
 * (`tools/_catalogue/child_client.ts`; the messages are defined once, in
 * `tools/_catalogue/child_protocol.ts`).
 *
 * @module
 */
import {
  type CallOutcome,
  type ChildCallOptions,
  ToolChildClient,
} from "../../tools/_catalogue/child_client.ts";
import type { CallMessage } from "../../tools/_catalogue/child_protocol.ts";
import { streamTransport } from "../../tools/_catalogue/line_transport.ts";
import { OdekError } from "../_util/odek_error.ts";
import { DEFAULT_KILL_GRACE_MS, terminateSandbox } from "./_terminate.ts";
import { SandboxCheckVerdict } from "./_sandbox_check_verdict.ts";

/** How a tool child is started: the rendered command line, its environment and cwd. */
export interface ToolChildSpawn {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** Its sandbox's check speaks first on stderr (`RenderedSandbox.check`). @default false */
  check?: boolean;
}

/** Options for {@linkcode ToolChild}. */
export interface ToolChildOptions {
  /** How long a cancelled call may take to stop before the child is killed. @default 2_000 */
  cancelGraceMs?: number;
}

const STDERR_TAIL_CHARS = 4096;
/** How long kill() waits for a killed child's pipes to close before it stops reading them. */
const KILL_GRACE_MS = 5_000;

/**
 * A spawned tool child: calls multiplexed over stdio, a call the core stops waiting for cancelled
 * in the child (and the child killed when it does not stop within the grace period), every
 * pending call `lost` (with the stderr tail) when the child dies. `onExit` runs once it is gone.
 */
export class ToolChild {
  /** The pid of the spawned process (bwrap's when sandboxed). */
  readonly pid: number;
  #process: Deno.ChildProcess;
  #client: ToolChildClient;
  #stderrTail = "";
  /** Reads the sandbox check's word off stderr (bwrap only). */
  #check: SandboxCheckVerdict | undefined;
  #exitReason: string | null = null;
  #reaped = false;
  /** Stops reading stdout and stderr when a killed child's pipes stay open (see kill()). */
  #abandon = new AbortController();
  #done: Promise<void>;

  /**
   * Spawn the child (synchronously, so a pool can register it at once).
   *
   * @param spawn argv, env (the whole environment) and cwd
   * @param onExit called once the child has exited and its streams are drained
   * @param options the grace period of a cancelled call
   * @throws {OdekError} `TOOL_CHILD_FAILED` when the program cannot be started
   */
  constructor(
    spawn: ToolChildSpawn,
    onExit: (child: ToolChild) => void,
    options: ToolChildOptions = {},
  ) {
    const [program, ...args] = spawn.argv;
    try {
      this.#process = new Deno.Command(program, {
        args,
        cwd: spawn.cwd,
        clearEnv: true,
        env: spawn.env,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (error) {
      throw new OdekError(
        "TOOL_CHILD_FAILED",
        `Cannot start the tool child ${program}: ${
          (error as Error).message
        }. Check that it is installed and executable`,
        { cause: error },
      );
    }
    this.pid = this.#process.pid;
    this.#check = spawn.check ? new SandboxCheckVerdict() : undefined;
    const transport = streamTransport(this.#process.stdout, this.#process.stdin, {
      signal: this.#abandon.signal,
    });
    this.#client = new ToolChildClient(transport, {
      cancelGraceMs: options.cancelGraceMs,
      onUnresponsive: (tool) =>
        void this.kill(
          `The tool child (pid ${this.pid}) did not stop a cancelled ${tool} call and was killed`,
        ),
      onProtocolError: (line) => {
        this.#appendStderr(`[odek] invalid response line: ${line.slice(0, 200)}\n`);
        void this.kill(`The tool child (pid ${this.pid}) broke the protocol`);
      },
      onRejected: (message) => this.#appendStderr(`[odek] the child rejected a line: ${message}\n`),
    });
    const drained = (read: Promise<void>) => read.catch((e) => this.#appendStderr(`[odek] ${e}\n`));
    this.#done = Promise.all([
      drained(this.#client.listen()),
      drained(this.#readStderr()),
      this.#process.status.finally(() => this.#reaped = true),
    ])
      .then(([, , status]) => {
        const how = status.signal
          ? `was killed by ${status.signal}`
          : `exited with code ${status.code}`;
        this.#exitReason ??= `The tool child (pid ${this.pid}) ${how}`;
        this.#client.failAll(this.#deathMessage());
        return transport.close();
      })
      .finally(() => onExit(this));
  }

  /**
   * The line of a sandbox check that failed (nothing of the child ran), once its stderr was
   * read: the only way a child is refused. `undefined` for a child that ran.
   */
  get refusal(): string | undefined {
    const verdict = this.#check?.verdict;
    return verdict?.type === "refused" ? verdict.reason : undefined;
  }

  /** False once the child has exited or was told to stop. */
  get alive(): boolean {
    return this.#exitReason === null;
  }

  /**
   * Send one call and wait for its outcome. Never rejects.
   *
   * @param request the tool, its validated arguments, the realpathed workspace and added roots
   * @param options `signal` and `timeoutMs`: either cancels the call in the child
   * @returns the outcome; `lost` with the stderr tail when the child dies before answering
   */
  call(request: Omit<CallMessage, "type" | "id">, options: ChildCallOptions): Promise<CallOutcome> {
    if (!this.alive) return Promise.resolve({ type: "lost", reason: this.#deathMessage() });
    return this.#client.call(request, options);
  }

  /**
   * Stop the child (SIGTERM to it and everything below it, SIGKILL after a grace period; bwrap
   * takes everything inside with it) and wait until it is gone.
   *
   * @param reason why, told to the calls still pending
   */
  async kill(reason: string): Promise<void> {
    this.#exitReason ??= reason;
    if (!this.#reaped) {
      await terminateSandbox(this.pid, this.#process.status, DEFAULT_KILL_GRACE_MS);
    }
    // Everything holding the pipes is dead now; should anything still hold them, stop reading
    // after a grace period so that kill() (and the pool's close()) always returns.
    const grace = setTimeout(() => this.#abandon.abort(), KILL_GRACE_MS);
    try {
      await this.#done;
    } finally {
      clearTimeout(grace);
    }
  }

  async #readStderr(): Promise<void> {
    const signal = this.#abandon.signal;
    const stderr = this.#check
      ? this.#process.stderr.pipeThrough(this.#check, { signal })
      : this.#process.stderr;
    const texts = stderr.pipeThrough(new TextDecoderStream(), { signal });
    for await (const text of texts) {
      this.#appendStderr(text);
    }
  }

  #appendStderr(text: string): void {
    this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL_CHARS);
  }

  #deathMessage(): string {
    const tail = this.#stderrTail.trim();
    return `${this.#exitReason ?? "The tool child is gone"} before answering${
      tail ? `; its stderr ends with:\n${tail}` : " (no stderr)"
    }. The next call starts a new child.`;
  }
}
