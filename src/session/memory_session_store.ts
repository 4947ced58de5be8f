/**
 * An in-memory {@linkcode SessionStore} for unit tests, with the file store's behaviour.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import { generateSessionId } from "./generate_session_id.ts";
import type { JournalOptions } from "./_journal_session.ts";
import { startJournalSession } from "./_start_session.ts";
import { checkJournalSize, type JournalSource, parseJournal } from "./_parse_journal.ts";
import {
  existsError,
  newSessionMeta,
  notFoundError,
  problemSummary,
  recordsOf,
  sortSummaries,
  summarize,
} from "./_store_common.ts";
import type {
  CreateSessionInit,
  OpenSession,
  SessionRecords,
  SessionStore,
  SessionSummary,
} from "./session_store.ts";
import { validateSessionId } from "./validate_session_id.ts";

/** Options for {@linkcode MemorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** Applied to every content string before it is written. @default the identity */
  redact?: (text: string) => string;
  /** The clock for ids and record times. @default `() => new Date()` */
  now?: () => Date;
  /** Journals to start with, as raw JSONL text keyed by session id (to test loading). @default {} */
  journals?: Record<string, string>;
}

/**
 * Sessions held in memory as the same JSONL text a {@linkcode FileSessionStore} writes, loaded
 * and repaired by the same code: torn last lines are cut off into a sidecar ({@linkcode tornText}),
 * a damaged middle line is `SESSION_CORRUPT`, interrupted tool calls are answered on `open`. A
 * session is locked while open in this store (`SESSION_LOCKED` for a second `open` or `delete`);
 * there are no other processes, so no lock is ever stale.
 *
 * @example A second open of a session is refused while the first is open
 * ```ts
 * import { MemorySessionStore, type MemorySessionStoreOptions } from "./memory_session_store.ts";
 * const options: MemorySessionStoreOptions = { now: () => new Date("2026-01-01T00:00:00Z") };
 * const store = new MemorySessionStore(options);
 * const first = await store.create({ id: "s", workspace: "/w", model: "m", baseUrl: "http://x", title: "t" });
 * const code = await store.open("s").then(() => "opened", (error) => error.code);
 * if (code !== "SESSION_LOCKED") throw new Error(code);
 * await first.close();
 * ```
 */
export class MemorySessionStore implements SessionStore {
  readonly #journals = new Map<string, Uint8Array>();
  readonly #torn = new Map<string, Uint8Array>();
  readonly #locks = new Map<string, string>();
  readonly #options: JournalOptions;

  /**
   * An empty store (or one holding `options.journals`).
   *
   * @param options redaction, clock and initial journals; see {@linkcode MemorySessionStoreOptions}
   */
  constructor(options: MemorySessionStoreOptions = {}) {
    this.#options = {
      redact: options.redact ?? ((text) => text),
      now: options.now ?? (() => new Date()),
    };
    for (const [id, text] of Object.entries(options.journals ?? {})) {
      this.#journals.set(validateSessionId(id), new TextEncoder().encode(text));
    }
  }

  /**
   * The raw journal text of a session, as a file would hold it; undefined if there is none.
   * @param id the session id
   */
  journalText(id: string): string | undefined {
    const bytes = this.#journals.get(id);
    return bytes && new TextDecoder().decode(bytes);
  }

  /**
   * The bytes cut off damaged journal tails of a session (the file store's `<id>.jsonl.torn`).
   * @param id the session id
   */
  tornText(id: string): string | undefined {
    const bytes = this.#torn.get(id);
    return bytes && new TextDecoder().decode(bytes);
  }

  async create(init: CreateSessionInit): Promise<OpenSession> {
    if (init.id !== undefined) validateSessionId(init.id);
    const now = this.#options.now();
    let id = init.id ?? generateSessionId(now);
    while (this.#journals.has(id)) {
      if (init.id !== undefined) throw existsError(id);
      id = generateSessionId(now);
    }
    this.#lock(id);
    const { meta, line } = newSessionMeta(id, init, now, this.#options.redact);
    this.#journals.set(id, new Uint8Array());
    const sink = this.#sink(id);
    await sink.write(line);
    return startJournalSession({ meta, messages: [], needsNewline: false }, sink, this.#options);
  }

  async open(id: string): Promise<OpenSession> {
    const bytes = this.#load(id);
    this.#lock(id);
    try {
      const parsed = parseJournal(bytes, this.#source(id));
      if (parsed.torn) {
        this.#torn.set(id, concat(this.#torn.get(id) ?? new Uint8Array(), parsed.torn));
        this.#journals.set(id, bytes.slice(0, parsed.validEnd));
      }
      const tornTail = parsed.torn
        ? { path: `memory journal "${id}" (torn tail)`, bytes: parsed.torn.length }
        : undefined;
      return await startJournalSession(parsed, this.#sink(id), this.#options, { tornTail });
    } catch (error) {
      this.#locks.delete(id);
      throw error;
    }
  }

  read(id: string): Promise<SessionRecords> {
    return settle(() => {
      const parsed = parseJournal(this.#load(id), this.#source(id));
      return recordsOf(parsed);
    });
  }

  list(): Promise<SessionSummary[]> {
    return settle(() =>
      sortSummaries([...this.#journals].map(([id, bytes]) => {
        const locked = this.#locks.has(id);
        try {
          return summarize(parseJournal(this.#load(id), this.#source(id)), bytes.length, locked);
        } catch (error) {
          if (!(error instanceof OdekError) || error.code !== "SESSION_CORRUPT") throw error;
          const updatedAt = new Date(0).toISOString();
          return problemSummary(id, { updatedAt, bytes: bytes.length, locked }, error.message);
        }
      }))
    );
  }

  async latest(): Promise<string | undefined> {
    return (await this.list())[0]?.id;
  }

  delete(id: string): Promise<void> {
    return settle(() => {
      this.#load(id);
      this.#lock(id);
      this.#journals.delete(id);
      this.#torn.delete(id);
      this.#locks.delete(id);
    });
  }

  #source(id: string): JournalSource {
    return { id, label: `memory journal "${id}"` };
  }

  /** The journal's bytes after the id and size checks. */
  #load(id: string): Uint8Array {
    validateSessionId(id);
    const bytes = this.#journals.get(id);
    if (!bytes) throw notFoundError(id);
    checkJournalSize(bytes.length, this.#source(id));
    return bytes;
  }

  #lock(id: string): void {
    const since = this.#locks.get(id);
    if (since !== undefined) {
      throw new OdekError(
        "SESSION_LOCKED",
        `Session "${id}" is in use by odek process ${Deno.pid} (since ${since}): wait for it to finish or stop it.`,
      );
    }
    this.#locks.set(id, this.#options.now().toISOString());
  }

  #sink(id: string) {
    let closed = false;
    return {
      write: (text: string): Promise<void> => {
        const current = this.#journals.get(id) ?? new Uint8Array();
        this.#journals.set(id, concat(current, new TextEncoder().encode(text)));
        return Promise.resolve();
      },
      close: (): Promise<void> => {
        if (!closed) this.#locks.delete(id);
        closed = true;
        return Promise.resolve();
      },
    };
  }
}

/** Run `fn` now; its result or throw becomes the promise's outcome. */
function settle<T>(fn: () => T): Promise<T> {
  return new Promise((resolve) => resolve(fn()));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
