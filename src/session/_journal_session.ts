/**
 * The open-session behaviour both stores share: redact, encode, append in order, and keep what
 * the journal says about tool calls and spend up to date. A store supplies only a
 * {@linkcode JournalSink} (where the bytes go and how the lock is freed); loading and repair are
 * in `_start_session.ts`.
 *
 * @module
 */
import { type ChatMessage, ChatMessageSchema, type ToolCall } from "../_util/chat_message.ts";
import type { Verdict } from "../danger/verdict.ts";
import type { JournalRecord, RewindRecord } from "./journal_record.ts";
import type { CallRecord } from "./_parse_journal.ts";
import { encodeRecord, redactPatch, redactRecord } from "./_redact_record.ts";
import type {
  OpenSession,
  PendingToolCall,
  SessionCheckpoint,
  SessionCompaction,
  SessionMeta,
  SessionMetaPatch,
  SessionSpend,
  SessionUsage,
  ToolCallRepair,
  TornTail,
} from "./session_store.ts";

export { encodeRecord } from "./_redact_record.ts";

/** Where an open session's lines go. */
export interface JournalSink {
  /**
   * Append text at the end of the journal. With `sync` (the default) it is durable (fsynced,
   * with every earlier write) when the promise resolves; without, it is written (a crash of the
   * process keeps it, a crash of the machine may not) and becomes durable with the next synced
   * write or `close()`. A sink may sync every write.
   */
  write(text: string, sync?: boolean): Promise<void>;
  /** Make every write durable, release the file and the lock. Called once. */
  close(): Promise<void>;
}

/** What the stores pass to every session. */
export interface JournalOptions {
  /** Applied to every content string before it is written. */
  redact: (text: string) => string;
  /** The clock for record times. */
  now: () => Date;
}

/** What a loaded (or new) journal hands its open session. */
export interface JournalState {
  meta: SessionMeta;
  /** The repaired transcript. */
  messages: ChatMessage[];
  repaired: readonly string[];
  repairs: readonly ToolCallRepair[];
  tornTail?: TornTail;
  compaction?: SessionCompaction;
  /** The transcript's checkpoints (`checkpoint` records), oldest first. */
  checkpoints: SessionCheckpoint[];
  /** Call records by id. */
  calls: Map<string, CallRecord>;
  /** Calls whose journal records `approval_requested` and `tool_started` (design §8.3). */
  tracked: WeakSet<ToolCall>;
  /** Whether the journal already has a `call_tracking` record. */
  tracking: boolean;
  /** Every tool-call id of the journal. */
  toolCallIds: Set<string>;
  /** Tool calls the journal's assistant messages hold. */
  toolCallsRequested: number;
  usage: Record<string, SessionUsage>;
}

/** A record that must be durable when its promise resolves. */
const SYNC = true;
/** A record that becomes durable with the next synced one, or at `close()`. */
const LAZY = false;

/** An open session over a sink. */
export class JournalSession implements OpenSession {
  readonly #state: JournalState;
  readonly #sink: JournalSink;
  readonly #options: JournalOptions;
  #tail: Promise<void> = Promise.resolve();
  #failure: { error: unknown } | undefined;
  #closing: Promise<void> | undefined;

  constructor(state: JournalState, sink: JournalSink, options: JournalOptions) {
    this.#state = state;
    this.#sink = sink;
    this.#options = options;
  }

  get meta(): SessionMeta {
    return { ...this.#state.meta };
  }

  get messages(): readonly ChatMessage[] {
    return this.#state.messages;
  }

  get repairedToolCallIds(): readonly string[] {
    return this.#state.repaired;
  }

  get toolCallRepairs(): readonly ToolCallRepair[] {
    return this.#state.repairs;
  }

  get tornTail(): TornTail | undefined {
    return this.#state.tornTail && { ...this.#state.tornTail };
  }

  get compaction(): SessionCompaction | undefined {
    return this.#state.compaction && { ...this.#state.compaction };
  }

  get checkpoints(): readonly SessionCheckpoint[] {
    return this.#state.checkpoints;
  }

  recordCheckpoint(checkpoint: { id: string; phase: "before" | "after" }): Promise<void> {
    const at = this.#at();
    const line = encodeRecord({ t: "checkpoint", at, ...checkpoint }, this.#options.redact);
    return this.#enqueue(line, LAZY, () => {
      this.#state.checkpoints.push({
        ...checkpoint,
        at,
        messageIndex: this.#state.messages.length,
      });
    });
  }

  recordRewind(rewind: RewindRecord): Promise<void> {
    const state = this.#state;
    if (rewind.conversation) {
      const keep = rewind.keep;
      if (
        keep === undefined || !Number.isInteger(keep) || keep < 0 || keep > state.messages.length
      ) {
        return Promise.reject(
          new RangeError(
            `a conversation rewind keeps 0 to ${state.messages.length} messages, got ${keep}`,
          ),
        );
      }
    }
    const line = encodeRecord({ t: "rewind", at: this.#at(), ...rewind }, this.#options.redact);
    return this.#enqueue(line, SYNC, () => {
      if (!rewind.conversation) return;
      const keep = Math.min(rewind.keep!, state.messages.length);
      state.messages = state.messages.slice(0, keep);
      state.checkpoints = state.checkpoints.filter((c) => c.messageIndex <= keep);
      if (state.compaction && state.compaction.coveredUntil > keep) delete state.compaction;
    });
  }

  get toolCallIds(): ReadonlySet<string> {
    return this.#state.toolCallIds;
  }

  get pendingToolCalls(): readonly PendingToolCall[] {
    const messages = this.#state.messages;
    const answered = new Set<string>();
    let index = messages.length - 1;
    for (; index >= 0 && messages[index].role === "tool"; index--) {
      answered.add((messages[index] as Extract<ChatMessage, { role: "tool" }>).tool_call_id);
    }
    const last = messages[index];
    if (last?.role !== "assistant" || !last.tool_calls?.length) return [];
    return last.tool_calls.filter((call) => !answered.has(call.id)).map((call) => {
      const record = this.#state.calls.get(call.id);
      // A call the journal cannot vouch for may have run: it is answered, never run again.
      if (record?.started || !this.#state.tracked.has(call)) return { call, state: "started" };
      return record?.verdict
        ? { call, state: "awaiting_approval", verdict: record.verdict }
        : { call, state: "not_started" };
    });
  }

  get spend(): SessionSpend {
    const byModel: Record<string, SessionUsage> = {};
    let inputTokens = 0;
    let outputTokens = 0;
    for (const [model, usage] of Object.entries(this.#state.usage)) {
      byModel[model] = { ...usage };
      inputTokens += usage.inputTokens;
      outputTokens += usage.outputTokens;
    }
    const toolCalls = this.#state.toolCallsRequested - this.pendingToolCalls.length;
    return { inputTokens, outputTokens, toolCalls, byModel };
  }

  recordCompaction(compaction: SessionCompaction): Promise<void> {
    const record = this.#redacted({
      t: "compaction",
      at: this.#at(),
      digest: compaction.digest,
      coveredUntil: Math.max(0, Math.floor(compaction.coveredUntil)),
    });
    return this.#enqueue(`${JSON.stringify(record)}\n`, SYNC, () => {
      if (record.t === "compaction") {
        this.#state.compaction = { digest: record.digest, coveredUntil: record.coveredUntil };
      }
    });
  }

  recordUsage(usage: SessionUsage): Promise<void> {
    const inputTokens = Math.max(0, Math.floor(usage.inputTokens));
    const outputTokens = Math.max(0, Math.floor(usage.outputTokens));
    const model = this.#state.meta.model; // redacted already
    const line = encodeRecord(
      { t: "usage", at: this.#at(), model, inputTokens, outputTokens },
      (text) => text,
    );
    return this.#enqueue(line, LAZY, () => {
      const spent = this.#state.usage[model] ??= { inputTokens: 0, outputTokens: 0 };
      spent.inputTokens += inputTokens;
      spent.outputTokens += outputTokens;
    });
  }

  recordApprovalRequested(
    requests: readonly { callId: string; verdict: Verdict }[],
  ): Promise<void> {
    const records = requests.map(({ callId, verdict }) =>
      this.#redacted({ t: "approval_requested", at: this.#at(), callId, verdict })
    );
    return this.#enqueue(records.map((r) => `${JSON.stringify(r)}\n`).join(""), SYNC, () => {
      for (const record of records) {
        if (record.t !== "approval_requested") continue;
        this.#call(record.callId).verdict = record.verdict;
      }
    });
  }

  recordToolStarted(callId: string): Promise<void> {
    const line = encodeRecord({ t: "tool_started", at: this.#at(), callId }, (text) => text);
    return this.#enqueue(line, SYNC, () => {
      this.#call(callId).started = true;
    });
  }

  append(message: ChatMessage): Promise<void> {
    const checked = ChatMessageSchema.safeParse(message);
    if (!checked.success) {
      return Promise.reject(
        new TypeError(`Cannot append an invalid message: ${checked.error.message}`),
      );
    }
    const at = this.#at();
    const record = this.#redacted({ t: "message", at, message: checked.data });
    const calls = record.t === "message" && record.message.role === "assistant"
      ? record.message.tool_calls ?? []
      : [];
    // The first call after this open says, before it, that its calls are tracked (design §8.3).
    const marker = calls.length > 0 && !this.#state.tracking
      ? encodeRecord({ t: "call_tracking", at }, (text) => text)
      : "";
    // A final answer is durable when this resolves; the other messages of a step (the turn that
    // asks for calls, their results) with the next synced record (the next `tool_started`) or
    // `close()`: design §5's "fsynced before the calls run" holds, one fsync per step.
    const sync = record.t === "message" && record.message.role !== "tool" && calls.length === 0;
    return this.#enqueue(`${marker}${JSON.stringify(record)}\n`, sync, () => {
      if (record.t !== "message") return;
      if (marker) this.#state.tracking = true;
      this.#state.messages.push(record.message);
      for (const call of calls) {
        this.#state.tracked.add(call);
        this.#state.toolCallIds.add(call.id);
      }
      this.#state.toolCallsRequested += calls.length;
    });
  }

  updateMeta(patch: SessionMetaPatch): Promise<void> {
    const redacted = redactPatch(patch, this.#options.redact);
    const line = encodeRecord({ t: "meta_update", at: this.#at(), patch: redacted }, (s) => s);
    return this.#enqueue(line, SYNC, () => {
      this.#state.meta = { ...this.#state.meta, ...redacted };
    });
  }

  close(): Promise<void> {
    this.#closing ??= this.#tail.then(() => this.#sink.close());
    return this.#closing;
  }

  /** {@linkcode JournalSession.close}: for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #at(): string {
    return this.#options.now().toISOString();
  }

  #redacted(record: JournalRecord): JournalRecord {
    return redactRecord(record, this.#options.redact);
  }

  #call(id: string): CallRecord {
    let record = this.#state.calls.get(id);
    if (!record) this.#state.calls.set(id, record = { started: false });
    return record;
  }

  /** Write after every earlier write; a failed write poisons the session (the tail is unknown). */
  #enqueue(line: string, sync: boolean, onWritten: () => void): Promise<void> {
    if (this.#closing) {
      return Promise.reject(new Error(`Session "${this.#state.meta.id}" is closed`));
    }
    const write = this.#tail.then(async () => {
      if (this.#failure) throw this.#failure.error;
      try {
        await this.#sink.write(line, sync);
      } catch (error) {
        this.#failure = { error };
        throw error;
      }
      onWritten();
    });
    this.#tail = write.catch(() => {});
    return write;
  }
}
