/**
 * The CLI dispatcher: picks the command, runs it, and maps every error to an exit code and a
 * one-line message on stderr.
 *
 * @module
 */
import { lazyModule } from "../_util/lazy_module.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { CliIO } from "./cli_io.ts";
import { EXIT, exitCodeFor } from "./exit_code.ts";
import { HELP_TEXT } from "./help_text.ts";
import { terminalSafe } from "./terminal_safe.ts";

// Each command's module is lazy (src/_util/lazy_module.ts): Deno loads the whole graph of every
// literal `import("…")` together with its importer's, so literals here would load every command
// (about 100 ms of modules) to run one.

/**
 * Run the CLI with `args` (without the program name).
 *
 * @returns the exit code (see `exit_code.ts`)
 *
 * @example Help
 * ```ts
 * import { main } from "./main.ts";
 * let out = "";
 * const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write() {} } } as never;
 * const code = await main(["--help"], io);
 * if (code !== 0 || !out.includes("odek run")) throw new Error(out);
 * ```
 */
export async function main(args: string[], io: CliIO): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case undefined: {
        const { canChat, chatCommand }: typeof import("./chat_command.ts") = await lazyModule(
          "cli/chat_command.ts",
        );
        if (canChat(io)) return await chatCommand([], io);
        io.stdout.write(`${HELP_TEXT.main}\n`);
        return EXIT.usage;
      }
      case "chat": {
        const { chatCommand }: typeof import("./chat_command.ts") = await lazyModule(
          "cli/chat_command.ts",
        );
        return await chatCommand(rest, io);
      }
      case "help":
      case "-h":
      case "--help":
        io.stdout.write(`${HELP_TEXT.main}\n`);
        return EXIT.ok;
      case "run": {
        const { runCommand }: typeof import("./run_command.ts") = await lazyModule(
          "cli/run_command.ts",
        );
        return await runCommand(rest, io);
      }
      case "continue": {
        const { continueCommand }: typeof import("./continue_command.ts") = await lazyModule(
          "cli/continue_command.ts",
        );
        return await continueCommand(rest, io);
      }
      case "undo":
      case "rewind": {
        const { rewindCommand }: typeof import("./rewind_command.ts") = await lazyModule(
          "cli/rewind_command.ts",
        );
        return await rewindCommand(command, rest, io);
      }
      case "sessions": {
        const { sessionsCommand }: typeof import("./sessions_command.ts") = await lazyModule(
          "cli/sessions_command.ts",
        );
        return await sessionsCommand(rest, io);
      }
      case "models": {
        const { modelsCommand }: typeof import("./models_command.ts") = await lazyModule(
          "cli/models_command.ts",
        );
        return await modelsCommand(rest, io);
      }
      case "doctor": {
        const { doctorCommand }: typeof import("./doctor_command.ts") = await lazyModule(
          "cli/doctor_command.ts",
        );
        return await doctorCommand(rest, io);
      }
      case "init": {
        const { initCommand }: typeof import("./init_command.ts") = await lazyModule(
          "cli/init_command.ts",
        );
        return await initCommand(rest, io);
      }
      case "config": {
        const { configCommand }: typeof import("./config_command.ts") = await lazyModule(
          "cli/config_command.ts",
        );
        return await configCommand(rest, io);
      }
      case "mcp": {
        const { mcpCommand }: typeof import("./mcp_command.ts") = await lazyModule(
          "cli/mcp_command.ts",
        );
        return await mcpCommand(rest, io);
      }
      case "serve": {
        const { serveCommand }: typeof import("./serve_command.ts") = await lazyModule(
          "cli/serve_command.ts",
        );
        return await serveCommand(rest, io);
      }
      case "worker": {
        const { workerCommand }: typeof import("./worker_command.ts") = await lazyModule(
          "cli/worker_command.ts",
        );
        return await workerCommand(rest, io);
      }
      case "classify": {
        const { classifyCommand }: typeof import("./classify_command.ts") = await lazyModule(
          "cli/classify_command.ts",
        );
        return await classifyCommand(rest, io);
      }
      case "subagent": {
        // What delegate_tasks starts (docs/subagents.md); its parent starts subagent_main.ts,
        // which needs no permission to load. This is the same code path, for a person to try.
        const { subagentCommand }: typeof import("./subagent_command.ts") = await lazyModule(
          "cli/subagent_command.ts",
        );
        return await subagentCommand(Deno.stdin.readable, Deno.stdout.writable);
      }
      default:
        throw new OdekError("USAGE", `Unknown command "${command}". Run "odek --help".`);
    }
  } catch (error) {
    // The reader of stdout went away (`odek sessions list | head`): nothing left to say to it.
    if (error instanceof Deno.errors.BrokenPipe) return 0;
    const message = error instanceof OdekError
      ? error.message
      : `Unexpected error: ${
        error instanceof Error ? (error.stack ?? error.message) : String(error)
      }`;
    // Messages quote paths, names and provider replies: print them with escapes removed.
    io.stderr.write(`odek: ${terminalSafe(message)}\n`);
    return exitCodeFor(error);
  }
}
