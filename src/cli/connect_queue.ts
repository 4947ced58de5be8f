/**
 * The queue a command names with `--queue` (or the config key `queue.url`, `ODEK_QUEUE_URL`).
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import { QueueClient } from "../durable/queue_client.ts";
import type { CliIO } from "./cli_io.ts";
import { cliRuntime } from "./cli_runtime.ts";

/**
 * The queue the configuration names (`queue.url`, `ODEK_QUEUE_URL`), if any.
 *
 * @param io the process
 * @returns the URL, or undefined: runs stay local
 * @throws {OdekError} `CONFIG_INVALID` from the configuration layers
 *
 * @example
 * ```ts ignore
 * const url = values.queue ?? await configuredQueue(io);
 * ```
 */
export async function configuredQueue(io: CliIO): Promise<string | undefined> {
  await using runtime = await cliRuntime(io);
  return runtime.config.queue.url ?? undefined;
}

/**
 * Connect to a queue's database.
 *
 * @param url `postgres://…`
 * @returns the client (dispose it)
 * @throws {OdekError} `USAGE` for a URL that is not `postgres://`, `QUEUE_UNREACHABLE` when the
 *   database does not answer
 *
 * @example A URL that is not PostgreSQL's
 * ```ts
 * import { connectQueue } from "./connect_queue.ts";
 * const code = await connectQueue("http://127.0.0.1:1").then(() => "ok", (e) => e.code);
 * if (code !== "USAGE") throw new Error(code);
 * ```
 */
export async function connectQueue(url: string): Promise<QueueClient> {
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new OdekError("USAGE", `--queue must be a postgres:// URL, got ${url.slice(0, 80)}.`);
  }
  try {
    return await QueueClient.connect(url);
  } catch (error) {
    throw new OdekError(
      "QUEUE_UNREACHABLE",
      `Cannot reach the queue's database (${error instanceof Error ? error.message : error}): ` +
        "check the URL, that PostgreSQL runs and that the user may log in.",
      { cause: error },
    );
  }
}
