/**
 * One long-lived tool child and the core's side of its JSON-lines protocol (the child's side is
 * `tools/_protocol.ts`; `tools/` imports nothing from `src/`, so the shapes live in both).
 *
 * @module
 */
import { z } from "zod";
import { OdekError } from "../_util/odek_error.ts";
import { DEFAULT_KILL_GRACE_MS, terminateSandbox } from "./_terminate.ts";
import type { ToolResult } from "./tool_broker.ts";

/** One response line of a tool child. */
export const ToolChildResponseSchema = z.discriminatedUnion("ok", [
  z.object({ id: z.int(), ok: z.literal(true), output: z.string() }),
  z.object({
    id: z.int(),
    ok: z.literal(false),
    error: z.object({
      name: z.string(),
      message: z.string(),
      code: z.string().optional(),
      kind: z.enum(["denied", "failed", "invalid_arguments"]),
    }),
  }),
]);

/** One request line to a tool child. */
export const ToolChildRequestSchema = z.object({
  id: z.int().nonnegative(),
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
  workspace: z.string().startsWith("/"),
  /** Realpathed directories the operator granted besides the workspace (`--add-dir`). */
  roots: z.array(z.string().startsWith("/")).optional(),
});

/** How a tool child is started: the rendered command line, its environment and cwd. */
export interface ToolChildSpawn {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
}

const STDERR_TAIL_CHARS = 4096;
/** How long kill() waits for a killed child's pipes to close before it stops reading them. */
const KILL_GRACE_MS = 5_000;

/**
 * A spawned tool child: requests multiplexed by id over stdio, every pending call failed as
 * `failed` data (with the stderr tail) when the child dies. `onExit` runs once it is gone.
 */
export class ToolChild {
  /** The pid of the spawned process (bwrap's when sandboxed). */
  readonly pid: number;
  #process: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #pending = new Map<number, (result: ToolResult) => void>();
  #nextId = 1;
  #stderrTail = "";
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
   * @throws {OdekError} `TOOL_CHILD_FAILED` when the program cannot be started
   */
  constructor(spawn: ToolChildSpawn, onExit: (child: ToolChild) => void) {
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
    this.#writer = this.#process.stdin.getWriter();
    const drained = (read: Promise<void>) => read.catch((e) => this.#appendStderr(`[odek] ${e}\n`));
    this.#done = Promise.all([
      drained(this.#readResponses()),
      drained(this.#readStderr()),
      this.#process.status.finally(() => this.#reaped = true),
    ])
      .then(([, , status]) => {
        const how = status.signal
          ? `was killed by ${status.signal}`
          : `exited with code ${status.code}`;
        this.#exitReason ??= `The tool child (pid ${this.pid}) ${how}`;
        this.#failPending();
        return this.#writer.close().catch(() => {});
      })
      .finally(() => onExit(this));
  }

  /** False once the child has exited or was told to stop. */
  get alive(): boolean {
    return this.#exitReason === null;
  }

  /**
   * Send one request and wait for its response.
   *
   * @param request the tool, its arguments and the realpathed workspace
   * @returns the tool result; `failed` when the child dies before answering
   */
  call(
    request: { tool: string; args: Record<string, unknown>; workspace: string; roots?: string[] },
  ): {
    result: Promise<ToolResult>;
    cancel: () => void;
  } {
    const id = this.#nextId++;
    const line = JSON.stringify(ToolChildRequestSchema.parse({ id, ...request }));
    const result = new Promise<ToolResult>((resolve) => {
      if (!this.alive) return resolve(this.#deathResult());
      this.#pending.set(id, resolve);
      this.#writer.write(new TextEncoder().encode(`${line}\n`)).catch(() => {
        // The child is gone; its exit handler fails this call with the stderr tail.
      });
    });
    return { result, cancel: () => void this.#pending.delete(id) };
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

  async #readResponses(): Promise<void> {
    let carry = "";
    const signal = this.#abandon.signal;
    const texts = this.#process.stdout.pipeThrough(new TextDecoderStream(), { signal });
    for await (const text of texts) {
      const lines = (carry + text).split("\n");
      carry = lines.pop() ?? "";
      for (const line of lines) if (line.trim() !== "") this.#onResponse(line);
    }
  }

  #onResponse(line: string): void {
    let parsed;
    try {
      parsed = ToolChildResponseSchema.safeParse(JSON.parse(line));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) {
      this.#appendStderr(`[odek] invalid response line: ${line.slice(0, 200)}\n`);
      void this.kill(`The tool child (pid ${this.pid}) broke the protocol`);
      return;
    }
    const response = parsed.data;
    const resolve = this.#pending.get(response.id);
    if (resolve === undefined) return; // a call that was cancelled, or a reply to a bad request
    this.#pending.delete(response.id);
    resolve(
      response.ok
        ? { ok: true, output: response.output }
        : { ok: false, error: { kind: response.error.kind, message: response.error.message } },
    );
  }

  async #readStderr(): Promise<void> {
    const signal = this.#abandon.signal;
    const texts = this.#process.stderr.pipeThrough(new TextDecoderStream(), { signal });
    for await (const text of texts) {
      this.#appendStderr(text);
    }
  }

  #appendStderr(text: string): void {
    this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL_CHARS);
  }

  #deathResult(): ToolResult {
    const tail = this.#stderrTail.trim();
    const message = `${this.#exitReason ?? "The tool child is gone"} before answering${
      tail ? `; its stderr ends with:\n${tail}` : " (no stderr)"
    }. The next call starts a new child.`;
    return { ok: false, error: { kind: "failed", message } };
  }

  #failPending(): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const resolve of pending) resolve(this.#deathResult());
  }
}
