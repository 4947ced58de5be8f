/**
 * `odek worker`: take durable runs off a PostgreSQL queue (docs/scale_out.md).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { OdekError } from "../_util/odek_error.ts";
import { startDurableWorker } from "../durable/durable_worker.ts";
import { createRuntime } from "../runtime/create_runtime.ts";
import type { CliIO } from "./cli_io.ts";
import { EXIT } from "./exit_code.ts";
import { flagError } from "./flag_error.ts";
import { HELP_TEXT } from "./help_text.ts";
import { terminalSafe } from "./terminal_safe.ts";
import { configuredQueue } from "./connect_queue.ts";

/**
 * Run `odek worker` with its arguments (after the word `worker`).
 *
 * @param args `--queue`, `--queue-name`, `--concurrency`, `--queue-concurrency`, `--lease`,
 *   `--worker-id`, `--git-credential-helper`, `--git-scratch`, `--help`
 * @param io the CLI's streams, environment and signals
 * @returns 130 or 143 after the signal that stopped it
 * @throws {OdekError} `USAGE` for bad flags or a missing `--queue`
 *
 * @example Help
 * ```ts
 * import { workerCommand } from "./worker_command.ts";
 * let out = "";
 * const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write() {} } } as never;
 * if (await workerCommand(["--help"], io) !== 0 || !out.includes("--queue")) throw new Error(out);
 * ```
 */
export async function workerCommand(args: string[], io: CliIO): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      options: {
        queue: { type: "string" },
        "queue-name": { type: "string" },
        concurrency: { type: "string" },
        "queue-concurrency": { type: "string" },
        lease: { type: "string" },
        "worker-id": { type: "string" },
        "git-credential-helper": { type: "string" },
        "git-scratch": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw flagError(error, "worker");
  }
  if (values.help) {
    io.stdout.write(`${HELP_TEXT.worker}\n`);
    return EXIT.ok;
  }
  const url = values.queue ?? await configuredQueue(io);
  if (!url || !/^postgres(ql)?:\/\//.test(url)) {
    throw new OdekError(
      "USAGE",
      "odek worker needs --queue postgres://user@host:port/database (or the config key queue.url, ODEK_QUEUE_URL).",
    );
  }
  const concurrency = integer("--concurrency", values.concurrency ?? "2", 1, 256);
  const queueConcurrency = values["queue-concurrency"] === undefined
    ? undefined
    : integer("--queue-concurrency", values["queue-concurrency"], 1, 100_000);
  const leaseMs = integer("--lease", values.lease ?? "15", 1, 3600) * 1000;
  const worker = await startDurableWorker({
    url,
    ...(values["queue-name"] ? { queue: values["queue-name"] } : {}),
    ...(values["worker-id"] ? { workerId: values["worker-id"] } : {}),
    concurrency,
    ...(queueConcurrency ? { queueConcurrency } : {}),
    leaseMs,
    git: {
      ...(values["git-credential-helper"]
        ? { credentialHelper: values["git-credential-helper"] }
        : {}),
      ...(values["git-scratch"] ? { scratchRoot: values["git-scratch"] } : {}),
    },
    runtime: (store) =>
      createRuntime({ env: io.env, installDir: io.installDir, cwd: io.callerDir, store }),
    log: (line) => io.stderr.write(`odek worker: ${terminalSafe(line)}\n`),
  });
  io.stdout.write(`odek worker ${terminalSafe(worker.workerId)}: ready\n`);
  const stopped = Promise.withResolvers<number>();
  const offInt = io.onSignal("SIGINT", () => stopped.resolve(EXIT.interrupted));
  const offTerm = io.onSignal("SIGTERM", () => stopped.resolve(EXIT.terminated));
  try {
    return await stopped.promise;
  } finally {
    offInt();
    offTerm();
    io.stderr.write("odek worker: stopping (its runs go to the next worker that takes over)\n");
    await worker[Symbol.asyncDispose]();
  }
}

function integer(flag: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new OdekError("USAGE", `${flag} must be an integer from ${min} to ${max}, got ${raw}.`);
  }
  return n;
}
