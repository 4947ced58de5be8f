/**
 * The open-session behaviour both stores share: redact, encode, append in order, repair on open.
 * A store supplies only a {@linkcode JournalSink} (where the bytes go and how the lock is freed).
 *
 * @module
 */
import { type ChatMessage, ChatMessageSchema } from "../_util/chat_message.ts";
import type { JournalRecord, RewindRecord } from "./journal_record.ts";
import type { ParsedJournal } from "./_parse_journal.ts";
import { repairTranscript } from "./repair_transcript.ts";
import type {
  OpenSession,
  SessionCheckpoint,
  SessionCompaction,
  SessionMeta,
  SessionMetaPatch,
} from "./session_store.ts";

/** Where an open session's lines go. */
export interface JournalSink {
  /** Append text at the end of the journal; durable (fsynced) when the promise resolves. */
  write(text: string): Promise<void>;
  /** Release the file and the lock. Called once. */
  close(): Promise<void>;
}

/** What the stores pass to every session. */
export interface JournalOptions {
  /** Applied to every content string before it is written. */
  redact: (text: string) => string;
  /** The clock for record times. */
  now: () => Date;
}

/** Encode one record as a redacted JSON line (with its newline). */
export function encodeRecord(record: JournalRecord, redact: (text: string) => string): string {
  return `${JSON.stringify(redactRecord(record, redact))}\n`;
}

/** Redact the content-bearing strings of a record (never ids, roles, tags or times). */
function redactRecord(
  record: JournalRecord,
  redact: (text: string) => string,
): JournalRecord {
  switch (record.t) {
    case "meta":
      return {
        ...record,
        workspace: redact(record.workspace),
        model: redact(record.model),
        baseUrl: redact(record.baseUrl),
        title: redact(record.title),
      };
    case "message":
      return { ...record, message: redactMessage(record.message, redact) };
    case "meta_update":
      return { ...record, patch: redactPatch(record.patch, redact) };
    case "repair":
    case "checkpoint":
      return record;
    case "rewind":
      return record.files
        ? { ...record, files: { ...record.files, kept: record.files.kept.map(redact) } }
        : record;
    case "compaction":
      return { ...record, digest: redact(record.digest) };
    default: {
      const unreachable: never = record;
      throw new TypeError(`Unknown journal record: ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Start a session on a loaded journal: finish an unterminated last line, repair the transcript
 * and journal the synthetic results with a `repair` record. Closes the sink if that fails.
 */
export async function startJournalSession(
  parsed: Pick<ParsedJournal, "meta" | "messages" | "needsNewline" | "compaction"> & {
    checkpoints?: SessionCheckpoint[];
  },
  sink: JournalSink,
  options: JournalOptions,
): Promise<OpenSession> {
  try {
    if (parsed.needsNewline) await sink.write("\n");
    const { messages, repairedToolCallIds } = repairTranscript(parsed.messages);
    if (repairedToolCallIds.length > 0) {
      const repaired = new Set(repairedToolCallIds);
      const at = options.now().toISOString();
      const lines = messages
        .filter((message) => message.role === "tool" && repaired.has(message.tool_call_id))
        .map((message) => encodeRecord({ t: "message", at, message }, options.redact));
      lines.push(
        encodeRecord({ t: "repair", at, toolCallIds: repairedToolCallIds }, options.redact),
      );
      await sink.write(lines.join(""));
    }
    const session = new JournalSession(parsed.meta, messages, repairedToolCallIds, sink, options);
    session.compactionLoaded(parsed.compaction);
    session.checkpointsLoaded(parsed.checkpoints ?? []);
    return session;
  } catch (error) {
    await sink.close();
    throw error;
  }
}

/** An open session over a sink. */
class JournalSession implements OpenSession {
  #messages: ChatMessage[];
  #checkpoints: SessionCheckpoint[] = [];
  readonly #repaired: readonly string[];
  readonly #sink: JournalSink;
  readonly #options: JournalOptions;
  #meta: SessionMeta;
  #compaction: SessionCompaction | undefined;
  #tail: Promise<void> = Promise.resolve();
  #failure: { error: unknown } | undefined;
  #closing: Promise<void> | undefined;

  constructor(
    meta: SessionMeta,
    messages: ChatMessage[],
    repaired: readonly string[],
    sink: JournalSink,
    options: JournalOptions,
  ) {
    this.#meta = meta;
    this.#messages = messages;
    this.#repaired = repaired;
    this.#sink = sink;
    this.#options = options;
  }

  get meta(): SessionMeta {
    return { ...this.#meta };
  }

  get messages(): readonly ChatMessage[] {
    return this.#messages;
  }

  get repairedToolCallIds(): readonly string[] {
    return this.#repaired;
  }

  get compaction(): SessionCompaction | undefined {
    return this.#compaction && { ...this.#compaction };
  }

  get checkpoints(): readonly SessionCheckpoint[] {
    return this.#checkpoints;
  }

  /** Set the checkpoints found on load (not written again). */
  checkpointsLoaded(checkpoints: SessionCheckpoint[]): void {
    this.#checkpoints = [...checkpoints];
  }

  recordCheckpoint(checkpoint: { id: string; phase: "before" | "after" }): Promise<void> {
    const at = this.#options.now().toISOString();
    const line = encodeRecord({ t: "checkpoint", at, ...checkpoint }, this.#options.redact);
    return this.#enqueue(line, () => {
      this.#checkpoints.push({ ...checkpoint, at, messageIndex: this.#messages.length });
    });
  }

  recordRewind(rewind: RewindRecord): Promise<void> {
    if (rewind.conversation) {
      const keep = rewind.keep;
      if (
        keep === undefined || !Number.isInteger(keep) || keep < 0 || keep > this.#messages.length
      ) {
        return Promise.reject(
          new RangeError(
            `a conversation rewind keeps 0 to ${this.#messages.length} messages, got ${keep}`,
          ),
        );
      }
    }
    const line = encodeRecord(
      { t: "rewind", at: this.#options.now().toISOString(), ...rewind },
      this.#options.redact,
    );
    return this.#enqueue(line, () => {
      if (!rewind.conversation) return;
      const keep = Math.min(rewind.keep!, this.#messages.length);
      this.#messages = this.#messages.slice(0, keep);
      this.#checkpoints = this.#checkpoints.filter((c) => c.messageIndex <= keep);
      if (this.#compaction && this.#compaction.coveredUntil > keep) this.#compaction = undefined;
    });
  }

  /** Set the digest found on load (not written again). */
  compactionLoaded(compaction: SessionCompaction | undefined): void {
    this.#compaction = compaction && { ...compaction };
  }

  recordCompaction(compaction: SessionCompaction): Promise<void> {
    const record: JournalRecord = {
      t: "compaction",
      at: this.#options.now().toISOString(),
      digest: compaction.digest,
      coveredUntil: Math.max(0, Math.floor(compaction.coveredUntil)),
    };
    const redacted = redactRecord(record, this.#options.redact);
    return this.#enqueue(`${JSON.stringify(redacted)}\n`, () => {
      if (redacted.t === "compaction") {
        this.#compaction = { digest: redacted.digest, coveredUntil: redacted.coveredUntil };
      }
    });
  }

  append(message: ChatMessage): Promise<void> {
    const checked = ChatMessageSchema.safeParse(message);
    if (!checked.success) {
      return Promise.reject(
        new TypeError(`Cannot append an invalid message: ${checked.error.message}`),
      );
    }
    const record: JournalRecord = {
      t: "message",
      at: this.#options.now().toISOString(),
      message: checked.data,
    };
    const redacted = redactRecord(record, this.#options.redact);
    return this.#enqueue(`${JSON.stringify(redacted)}\n`, () => {
      if (redacted.t === "message") this.#messages.push(redacted.message);
    });
  }

  updateMeta(patch: SessionMetaPatch): Promise<void> {
    const redacted = redactPatch(patch, this.#options.redact);
    const line = encodeRecord({
      t: "meta_update",
      at: this.#options.now().toISOString(),
      patch: redacted,
    }, (s) => s);
    return this.#enqueue(line, () => {
      this.#meta = { ...this.#meta, ...redacted };
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

  /** Write after every earlier write; a failed write poisons the session (the tail is unknown). */
  #enqueue(line: string, onWritten: () => void): Promise<void> {
    if (this.#closing) return Promise.reject(new Error(`Session "${this.#meta.id}" is closed`));
    const write = this.#tail.then(async () => {
      if (this.#failure) throw this.#failure.error;
      try {
        await this.#sink.write(line);
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

function redactMessage(message: ChatMessage, redact: (text: string) => string): ChatMessage {
  switch (message.role) {
    case "system":
    case "user":
    case "tool":
      return { ...message, content: redact(message.content) };
    case "assistant":
      return {
        ...message,
        content: message.content === null ? null : redact(message.content),
        ...(message.reasoning_content === undefined
          ? {}
          : { reasoning_content: redact(message.reasoning_content) }),
        ...(message.tool_calls === undefined ? {} : {
          tool_calls: message.tool_calls.map((call) => ({
            ...call,
            function: {
              name: redact(call.function.name),
              arguments: redact(call.function.arguments),
            },
          })),
        }),
      };
    default: {
      const unreachable: never = message;
      throw new TypeError(`Unknown message: ${JSON.stringify(unreachable)}`);
    }
  }
}

function redactPatch(patch: SessionMetaPatch, redact: (text: string) => string): SessionMetaPatch {
  const out: SessionMetaPatch = {};
  for (const key of ["model", "baseUrl", "workspace"] as const) {
    const value = patch[key];
    if (value !== undefined) out[key] = redact(value);
  }
  return out;
}
