/**
 * `odek serve`: the web page, REST API and WebSocket on 127.0.0.1 (docs/serve.md). Prints the
 * address with this instance's token once, and runs until SIGINT or SIGTERM.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { OdekError } from "../_util/odek_error.ts";
import { NoOperatorClarifier } from "../approval/clarifier.ts";
import { startServer } from "../serve/start_server.ts";
import { configuredQueue, connectQueue } from "./connect_queue.ts";
import { queueDispatch } from "../durable/queue_dispatch.ts";
import { queueRemote } from "../durable/queue_remote.ts";
import type { CliIO } from "./cli_io.ts";
import { cliMcpTools } from "./cli_mcp_tools.ts";
import { cliRuntime } from "./cli_runtime.ts";
import { EXIT } from "./exit_code.ts";
import { flagError } from "./flag_error.ts";
import { HELP_TEXT } from "./help_text.ts";
import { terminalSafe } from "./terminal_safe.ts";
import { ODEK_VERSION } from "./version.ts";

/**
 * Run `odek serve` with its arguments (after the word `serve`).
 *
 * @param args `--host`, `--port`, `--allow-remote`, `--allowed-host` (repeatable),
 *   `--max-runs`, `--workspace-root` (repeatable), `--queue` (runs go to `odek worker`s), `--help`
 * @param io the CLI's streams, environment and signals
 * @returns 130 or 143 after the signal that stopped it
 * @throws {OdekError} `USAGE` for bad flags or a non-loopback address without `--allow-remote`
 *
 * @example Help
 * ```ts
 * import { serveCommand } from "./serve_command.ts";
 * let out = "";
 * const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write() {} } } as never;
 * if (await serveCommand(["--help"], io) !== 0 || !out.includes("--allow-remote")) throw new Error(out);
 * ```
 */
export async function serveCommand(args: string[], io: CliIO): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      options: {
        host: { type: "string" },
        port: { type: "string" },
        "allow-remote": { type: "boolean" },
        "allowed-host": { type: "string", multiple: true },
        "max-runs": { type: "string" },
        "workspace-root": { type: "string", multiple: true },
        queue: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw flagError(error, "serve");
  }
  if (values.help) {
    io.stdout.write(`${HELP_TEXT.serve}\n`);
    return EXIT.ok;
  }
  const port = integer("--port", values.port ?? "8080", 0, 65_535);
  const queueUrl = values.queue ?? await configuredQueue(io);
  await using queue = queueUrl ? await connectQueue(queueUrl) : undefined;
  await using runtime = await cliRuntime(io, {}, queue?.sessions);
  // With a queue, runs go to the workers; the cap bounds the runs serve follows at once.
  const maxRuns = values["max-runs"] === undefined
    ? (queueUrl ? 1000 : runtime.config.serve.maxConcurrentRuns)
    : integer("--max-runs", values["max-runs"], 1, 10_000);
  const roots = [
    ...runtime.config.serve.workspaceRoots,
    ...(values["workspace-root"] ?? []).map((root) =>
      root.startsWith("/") ? root : `${runtime.cwd ?? "/"}/${root}`
    ),
  ];
  const tools = cliMcpTools(
    runtime,
    io,
    new NoOperatorClarifier("the web page cannot answer MCP forms yet"),
  );
  await using server = await startServer(runtime, {
    hostname: values.host ?? "127.0.0.1",
    port,
    allowRemote: values["allow-remote"] ?? false,
    allowedHosts: values["allowed-host"] ?? [],
    maxConcurrentRuns: maxRuns,
    workspaceRoots: roots,
    tools,
    version: ODEK_VERSION,
    ...(queue ? { dispatch: queueDispatch(queue), remote: queueRemote(queue) } : {}),
  });
  for (const warning of server.warnings) io.stderr.write(`odek: warning: ${warning}\n`);
  io.stdout.write(`odek serve: open ${terminalSafe(server.url)}\n`);
  const stopped = Promise.withResolvers<number>();
  const offInt = io.onSignal("SIGINT", () => stopped.resolve(EXIT.interrupted));
  const offTerm = io.onSignal("SIGTERM", () => stopped.resolve(EXIT.terminated));
  try {
    return await stopped.promise;
  } finally {
    offInt();
    offTerm();
    io.stderr.write("odek serve: stopping (runs still going resume at the next start)\n");
  }
}

function integer(flag: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new OdekError("USAGE", `${flag} must be an integer from ${min} to ${max}, got ${raw}.`);
  }
  return n;
}
