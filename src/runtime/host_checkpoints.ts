/**
 * Where checkpoints hook into a run (design §5): a {@linkcode StepRunner} around the run's own
 * that takes a checkpoint before and after every tool-call step whose scope can write the
 * workspace (`StepInfo.writes`), journals each (`checkpoint` records), and emits the files each
 * such step changed. Parallel writing calls of one batch share one checkpoint before and one
 * after (a checkpoint is never taken while a writing call runs). A checkpoint that cannot be
 * taken (the workspace is over the size caps) turns checkpoints off for the host, says so once
 * (`checkpoints_off`), and the run goes on.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import { endPhase, startPhase } from "../_util/step_phase.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { CheckpointStore, FileChange } from "../checkpoint/checkpoint_store.ts";
import type { FileChangeData, RunEventData } from "../loop/run_event.ts";
import type { Step, StepRunner } from "../loop/step_runner.ts";
import type { OpenSession } from "../session/session_store.ts";

/** Emits a run event (the run's own emitter). */
export type EmitRunEvent = <T extends "files_changed" | "run_files_changed" | "checkpoints_off">(
  type: T,
  data: RunEventData[T],
) => void;

/** A run's view of the checkpoints: its step runner, and the summary at its end. */
export interface RunCheckpoints {
  /** The run's step runner, with a checkpoint before and after each writing step. */
  runner: StepRunner;
  /** Emit `run_files_changed` when the run changed files (call once, after the loop). */
  finish(): Promise<void>;
}

/** Files shown per `files_changed` event at most. */
const MAX_FILES_SHOWN = 50;

/**
 * A session host's checkpoints: the store (or why there is none) and the session that journals
 * them.
 */
export class HostCheckpoints {
  readonly #store: CheckpointStore | undefined;
  readonly #session: OpenSession;
  #off: string | undefined;

  /**
   * @param store the workspace's checkpoint store, or `undefined` when checkpoints are off
   * @param session the host's session (journals each checkpoint)
   * @param off why there is no store (e.g. `checkpoints.enabled` is false)
   */
  constructor(store: CheckpointStore | undefined, session: OpenSession, off?: string) {
    this.#store = store;
    this.#session = session;
    this.#off = store ? undefined : (off ?? "checkpoints are off");
  }

  /** The store, while checkpoints are on. */
  get store(): CheckpointStore | undefined {
    return this.#off === undefined ? this.#store : undefined;
  }

  /** Why checkpoints are off, or `undefined`. */
  get off(): string | undefined {
    return this.#off;
  }

  /**
   * The step runner of one run, around `inner`.
   *
   * @param inner the run's own runner (the journal, or a durable engine's)
   * @param emit the run's emitter
   */
  forRun(inner: StepRunner, emit: EmitRunEvent): RunCheckpoints {
    let inFlight = 0;
    let batch: { before: Promise<string | undefined>; callIds: string[] } | undefined;
    let first: string | undefined;
    let last: string | undefined;
    const take = async (phase: "before" | "after", label: string, callIds: string[]) => {
      const store = this.store;
      if (!store) return undefined;
      let id: string;
      const start = startPhase();
      try {
        id = (await store.record({ phase, label, callIds })).id;
        endPhase(`checkpoint:${phase}`, start);
      } catch (error) {
        this.#off = error instanceof OdekError
          ? error.message
          : `a checkpoint failed: ${(error as Error).message}`;
        emit("checkpoints_off", { reason: this.#off });
        return undefined;
      }
      const previous = this.#session.checkpoints.at(-1);
      // An unchanged checkpoint adds nothing, except a turn's first "before": it marks where the
      // turn's files stood (a rewind to the turn restores them).
      const turnStart = lastTurnIndex(this.#session.messages);
      const known = previous?.id === id && previous.messageIndex > turnStart;
      const journaling = startPhase();
      if (!known) await this.#session.recordCheckpoint({ id, phase });
      endPhase(`journal:checkpoint-${phase}`, journaling);
      return id;
    };
    const runner: StepRunner = {
      run: async <T>(step: Step<T>): Promise<T> => {
        const info = step.info;
        if (info.type !== "tool_call" || !info.writes || !this.store) return await inner.run(step);
        if (inFlight++ === 0) {
          const callIds: string[] = [];
          batch = {
            callIds,
            before: take("before", `before ${info.name} (${info.callId})`, callIds),
          };
        }
        const mine = batch!;
        mine.callIds.push(info.callId);
        const before = await mine.before;
        first ??= before;
        try {
          return await inner.run(step);
        } finally {
          if (--inFlight === 0) {
            const label = `after ${
              mine.callIds.length === 1
                ? `${info.name} (${info.callId})`
                : `${mine.callIds.length} calls`
            }`;
            const after = await take("after", label, mine.callIds);
            if (after) last = after;
            if (before && after && before !== after) {
              await this.#emitChanges(before, after, mine.callIds, emit);
            }
          }
        }
      },
    };
    return {
      runner,
      finish: async () => {
        const store = this.store;
        if (!store || !first || !last || first === last) return;
        const files = await store.diff(first, last).catch(() => undefined);
        if (!files || files.length === 0) return;
        emit("run_files_changed", {
          from: first,
          to: last,
          files: files.map(({ diff: _diff, ...file }) => data(file)),
        });
      },
    };
  }

  async #emitChanges(
    before: string,
    after: string,
    callIds: string[],
    emit: EmitRunEvent,
  ): Promise<void> {
    const store = this.store;
    if (!store) return;
    const files = await store.diff(before, after, { withDiff: true, maxDiffLines: 40 }).catch(() =>
      undefined
    );
    if (!files || files.length === 0) return;
    emit("files_changed", {
      checkpoint: after,
      call_ids: callIds,
      files: files.slice(0, MAX_FILES_SHOWN).map(data),
    });
  }
}

/** Index of the transcript's last operator message (`[odek]` notes are not turns), or -1. */
function lastTurnIndex(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === "user" && !m.content.startsWith("[odek]")) return i;
  }
  return -1;
}

function data(file: FileChange): FileChangeData {
  return {
    path: file.path,
    change: file.change,
    added: file.added,
    removed: file.removed,
    binary: file.binary,
    ...(file.diff !== undefined ? { diff: file.diff } : {}),
  };
}
