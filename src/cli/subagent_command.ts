/**
 * `odek subagent`: the process a `delegate_tasks` call starts for each task (docs/subagents.md).
 * It is not for people: its parent starts it through the broker with no permission and no
 * secret, and speaks `src/runtime/subagents/subagent_protocol.ts` over its stdio. The exit code
 * follows the CLI table (design §8.4); the details are in the `done` line it sends.
 *
 * @module
 */
import { streamTransport } from "../../tools/_catalogue/line_transport.ts";
import { runSubagentChild } from "../runtime/subagents/subagent_child.ts";
import type { SubagentStatus } from "../runtime/subagents/subagent_protocol.ts";
import { EXIT } from "./exit_code.ts";

/** The exit code of each status (design §8.4). */
const EXIT_OF: Record<SubagentStatus, number> = {
  completed: EXIT.ok,
  budget_exceeded: EXIT.budget,
  stalled: EXIT.stalled,
  interrupted: EXIT.interrupted,
  failed: EXIT.error,
};

/**
 * Run one sub-agent task over stdin/stdout.
 *
 * @param stdin the parent's lines
 * @param stdout lines to the parent
 * @returns the exit code: 0 completed, 4 budget, 5 stalled, 130 interrupted, 1 failed
 *
 * @example The exit code of a task whose parent is already gone
 * ```ts
 * import { subagentCommand } from "./subagent_command.ts";
 * const code = await subagentCommand(ReadableStream.from([]), new WritableStream());
 * if (code !== 130) throw new Error(`exit ${code}`);
 * ```
 */
export async function subagentCommand(
  stdin: ReadableStream<Uint8Array>,
  stdout: WritableStream<Uint8Array>,
): Promise<number> {
  const done = await runSubagentChild(streamTransport(stdin, stdout));
  return EXIT_OF[done.status];
}
