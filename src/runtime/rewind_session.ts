/**
 * Undo and rewind (design §5): take a session back to before one of its turns — its files, its
 * conversation, or both. The functions every surface calls (`odek undo`, `odek rewind`, the
 * interactive `/undo` and `/rewind`, a web UI): the surface only asks and renders.
 *
 * Files go back to the checkpoint taken before the turn's first write; files changed outside
 * odek since the newest checkpoint are never overwritten silently (the caller is asked); the files
 * as they were are saved in a checkpoint first, so a rewind loses nothing. The conversation goes
 * back by a `rewind` journal record: the next request leaves the turn out, the journal keeps it.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { CheckpointStore, FileChange, RestoreResult } from "../checkpoint/checkpoint_store.ts";
import { isProtectedWorkspacePath } from "../checkpoint/protected_workspace_paths.ts";
import type { OpenSession, SessionCheckpoint } from "../session/session_store.ts";

/**
 * One turn of a session: an operator message and what the agent did for it.
 *
 * @example List the turns
 * ```ts
 * import type { Turn } from "./rewind_session.ts";
 * const turns: Turn[] = [{ turn: 1, messageIndex: 2, text: "add a flag", checkpoint: "a".repeat(40) }];
 * if (`${turns[0].turn}: ${turns[0].text}` !== "1: add a flag") throw new Error("turn");
 * ```
 */
export interface Turn {
  /** 1-based. */
  turn: number;
  /** Index of its user message in the transcript (a rewind to it keeps this many messages). */
  messageIndex: number;
  /** The message's first line, at most 100 characters. */
  text: string;
  /** The checkpoint of the files as they were before the turn wrote any (none: nothing written since). */
  checkpoint?: string;
}

/**
 * How the operator answers files changed outside odek that a restore would overwrite.
 *
 * @example Keep files changed outside odek
 * ```ts
 * import type { ConflictAnswer } from "./rewind_session.ts";
 * const answer = (paths: readonly string[]): ConflictAnswer => paths.length > 0 ? "keep" : "overwrite";
 * if (answer(["notes.md"]) !== "keep") throw new Error("answer");
 * ```
 */
export type ConflictAnswer = "overwrite" | "keep" | "cancel";

/**
 * What to rewind.
 *
 * @example Undo only the files of turn 2
 * ```ts
 * import type { RewindRequest } from "./rewind_session.ts";
 * const request: RewindRequest = { turn: 2, conversation: false, onConflict: () => Promise.resolve("cancel") };
 * if (request.files === false) throw new Error("files");
 * ```
 */
export interface RewindRequest {
  /** Go back to before this turn (1-based). @default the last turn (an undo) */
  turn?: number;
  /** Restore the files. @default true */
  files?: boolean;
  /** Take the conversation back. @default true */
  conversation?: boolean;
  /**
   * Asked with the paths a restore would overwrite that changed outside odek since the newest
   * checkpoint: `overwrite` them, `keep` them (restore the rest), or `cancel` everything.
   * @default cancel
   */
  onConflict?: (paths: readonly string[]) => Promise<ConflictAnswer>;
}

/**
 * What a rewind did.
 *
 * @example Say what a rewind did
 * ```ts
 * import type { RewindOutcome } from "./rewind_session.ts";
 * const outcome: RewindOutcome = {
 *   turn: { turn: 3, messageIndex: 9, text: "refactor" },
 *   conversation: { kept: 9, removed: 4 },
 * };
 * if (outcome.conversation?.removed !== 4) throw new Error("removed");
 * ```
 */
export interface RewindOutcome {
  /** The turn gone back to before. */
  turn: Turn;
  /** Set when the conversation went back: messages kept and messages left out. */
  conversation?: { kept: number; removed: number };
  /** Set when files were restored. */
  files?: RestoreResult & {
    /** The checkpoint holding the files as they were just before the restore. */
    saved: string;
    /** Paths changed outside odek that the restore would overwrite, and what was done. */
    conflicts: readonly string[];
    conflictAnswer?: Exclude<ConflictAnswer, "cancel">;
  };
  /** Why no file was restored when files were asked for (nothing written since the turn). */
  filesNote?: string;
}

/**
 * The turns of a transcript: its operator messages (`[odek]` notes are not turns), each with the
 * checkpoint before its first write.
 *
 * @example
 * ```ts
 * import { listTurns } from "./rewind_session.ts";
 * const turns = listTurns([
 *   { role: "system", content: "rules" },
 *   { role: "user", content: "fix the test" },
 *   { role: "assistant", content: "done" },
 * ], []);
 * if (turns.length !== 1 || turns[0].messageIndex !== 1) throw new Error(JSON.stringify(turns));
 * ```
 */
export function listTurns(
  messages: readonly ChatMessage[],
  checkpoints: readonly SessionCheckpoint[],
): Turn[] {
  const turns: Turn[] = [];
  messages.forEach((message, index) => {
    if (message.role !== "user" || message.content.startsWith("[odek]")) return;
    const checkpoint = checkpoints.find((c) => c.messageIndex > index)?.id;
    const line = message.content.trim().split("\n")[0];
    turns.push({
      turn: turns.length + 1,
      messageIndex: index,
      text: Array.from(line).length > 100 ? `${Array.from(line).slice(0, 99).join("")}…` : line,
      ...(checkpoint ? { checkpoint } : {}),
    });
  });
  return turns;
}

/**
 * Rewind an open session (no run may be going on it).
 *
 * @param session the session, open (locked) by the caller
 * @param store its checkpoint store, or `undefined` when checkpoints are off (`off` says why)
 * @param protectedExtra the places the workspace's repositories make protected besides the fixed
 *   names (a `core.hooksPath` inside it, included configuration), scanned now: never restored
 * @returns what was done
 * @throws {OdekError} `USAGE` for a session without turns or a turn out of range,
 *   `CHECKPOINT_UNAVAILABLE` when files are asked for and cannot be restored, `RESTORE_CONFLICT`
 *   when files changed outside odek and the answer is `cancel` (nothing was changed)
 */
export async function rewindSession(
  session: OpenSession,
  store: CheckpointStore | undefined,
  request: RewindRequest,
  off?: string,
  protectedExtra: () => readonly string[] = () => [],
): Promise<RewindOutcome> {
  const turns = listTurns(session.messages, session.checkpoints);
  const id = session.meta.id;
  if (turns.length === 0) {
    throw new OdekError("USAGE", `Session ${id} has no turn to go back to.`);
  }
  const number = request.turn ?? turns.length;
  const turn = turns[number - 1];
  if (!Number.isInteger(number) || !turn) {
    throw new OdekError(
      "USAGE",
      `Session ${id} has turns 1 to ${turns.length}, not ${number}: see odek rewind ${id}.`,
    );
  }
  const outcome: RewindOutcome = { turn };
  let files: NonNullable<RewindOutcome["files"]> | undefined;
  if (request.files !== false) {
    if (!turn.checkpoint) {
      outcome.filesNote = "no file was changed by odek since that turn began";
    } else if (!store) {
      throw new OdekError(
        "CHECKPOINT_UNAVAILABLE",
        `Cannot restore the files of session ${id}: ${
          off ?? "checkpoints are off"
        }. To take back only the conversation, rewind it alone (odek rewind --conversation).`,
      );
    } else {
      files = await restoreFiles(session, store, turn, request, protectedExtra());
      outcome.files = files;
    }
  }
  const conversation = request.conversation !== false;
  const before = session.messages.length;
  await session.recordRewind({
    turn: turn.turn,
    conversation,
    ...(conversation ? { keep: turn.messageIndex } : {}),
    ...(files
      ? {
        files: {
          to: files.checkpoint,
          saved: files.saved,
          written: files.written.length,
          deleted: files.deleted.length,
          kept: [
            ...(files.conflictAnswer === "keep" ? files.conflicts : []),
            ...files.protected,
            ...files.skipped.map((s) => s.path),
          ],
        },
      }
      : {}),
  });
  if (files) {
    // After the rewind record, so they stand at the transcript's new end.
    await session.recordCheckpoint({ id: files.saved, phase: "before" });
    const after = await store!.record({
      phase: "after",
      label: `after rewind to turn ${turn.turn}`,
    });
    await session.recordCheckpoint({ id: after.id, phase: "after" });
  }
  if (conversation) {
    outcome.conversation = { kept: turn.messageIndex, removed: before - turn.messageIndex };
  }
  return outcome;
}

async function restoreFiles(
  session: OpenSession,
  store: CheckpointStore,
  turn: Turn,
  request: RewindRequest,
  extra: readonly string[],
): Promise<NonNullable<RewindOutcome["files"]>> {
  let head = session.checkpoints.at(-1);
  if (head?.phase === "before") {
    // A step stopped before its "after" checkpoint (a crash): what it changed is odek's doing.
    const after = await store.record({ phase: "after", label: "after an interrupted step" });
    if (after.id !== head.id) await session.recordCheckpoint({ id: after.id, phase: "after" });
    head = { ...head, id: after.id };
  }
  const outside = new Set(head ? (await store.diff(head.id)).map((c) => c.path) : []);
  const pending: FileChange[] = await store.diff(turn.checkpoint!);
  const conflicts = pending.map((c) => c.path).filter((p) =>
    outside.has(p) && !isProtectedWorkspacePath(p, extra)
  );
  let answer: ConflictAnswer | undefined;
  if (conflicts.length > 0) {
    answer = request.onConflict ? await request.onConflict(conflicts) : "cancel";
    if (answer === "cancel") {
      throw new OdekError(
        "RESTORE_CONFLICT",
        `Nothing was restored: ${conflicts.length} file(s) changed outside odek since its last checkpoint and would be overwritten: ${
          conflicts.slice(0, 20).join(", ")
        }${
          conflicts.length > 20 ? `, and ${conflicts.length - 20} more` : ""
        }. Keep them and restore the rest (--keep-changed), or overwrite them (--overwrite).`,
      );
    }
  }
  const saved = await store.record({
    phase: "before",
    label: `before rewind to turn ${turn.turn}`,
  });
  const result = await store.restore(turn.checkpoint!, undefined, {
    keep: answer === "keep" ? conflicts : [],
    protectedExtra: extra,
  });
  return {
    ...result,
    saved: saved.id,
    conflicts,
    ...(answer && answer !== "cancel" ? { conflictAnswer: answer } : {}),
  };
}
