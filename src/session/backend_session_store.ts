/**
 * A {@linkcode SessionStore} over any place that can hold journal text: the same JSONL records,
 * loaded and repaired by the same code as the file store, with the bytes and the lock kept by a
 * {@linkcode JournalBackend} (a database table, for instance). Export gives the same format.
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

/**
 * Where a {@linkcode BackendSessionStore} keeps journals. Every write is whole: a backend never
 * leaves half a write behind (a database row), so there is no torn tail.
 */
export interface JournalBackend {
  /** Create a session with its first text, locked by this backend's owner; false if it exists. */
  create(id: string, text: string): Promise<boolean>;
  /** The journal text of a session, undefined if there is none. */
  load(id: string): Promise<string | undefined>;
  /**
   * Lock a session for this backend's owner.
   * @throws {OdekError} `SESSION_LOCKED` when another owner holds it
   */
  lock(id: string): Promise<void>;
  /** Release this owner's lock (nothing when it holds none). */
  unlock(id: string): Promise<void>;
  /** Append text to a session's journal; durable when the promise resolves. */
  append(id: string, text: string): Promise<void>;
  /** Every session: its journal text, when it was last written and whether it is locked. */
  list(): Promise<{ id: string; text: string; updatedAt: string; locked: boolean }[]>;
  /** Delete a session this owner may lock. */
  delete(id: string): Promise<void>;
}

/** Options for {@linkcode BackendSessionStore}. */
export interface BackendSessionStoreOptions {
  /** Applied to every content string before it is written. @default the identity */
  redact?: (text: string) => string;
  /** The clock for ids and record times. @default `() => new Date()` */
  now?: () => Date;
  /** How errors name where a journal is, e.g. `PostgreSQL`. @default "backend" */
  label?: string;
}

/**
 * Sessions kept by a {@linkcode JournalBackend}, behaving like the file store.
 *
 * @example A backend in memory
 * ```ts
 * import { BackendSessionStore, type JournalBackend } from "./backend_session_store.ts";
 * const texts = new Map<string, string>();
 * const backend: JournalBackend = {
 *   create: (id, text) => Promise.resolve(texts.has(id) ? false : (texts.set(id, text), true)),
 *   load: (id) => Promise.resolve(texts.get(id)),
 *   lock: () => Promise.resolve(),
 *   unlock: () => Promise.resolve(),
 *   append: (id, text) => Promise.resolve(void texts.set(id, texts.get(id) + text)),
 *   list: () => Promise.resolve([...texts].map(([id, text]) => ({ id, text, updatedAt: "", locked: false }))),
 *   delete: (id) => Promise.resolve(void texts.delete(id)),
 * };
 * const store = new BackendSessionStore(backend);
 * const session = await store.create({ id: "s", workspace: "/w", model: "m", baseUrl: "http://x", title: "t" });
 * await session.append({ role: "user", content: "hi" });
 * await session.close();
 * if ((await store.read("s")).messages.length !== 1) throw new Error("lost");
 * ```
 */
export class BackendSessionStore implements SessionStore {
  readonly #backend: JournalBackend;
  readonly #options: JournalOptions;
  readonly #label: string;

  /**
   * @param backend where the journals are
   * @param options redaction, clock, label; see {@linkcode BackendSessionStoreOptions}
   */
  constructor(backend: JournalBackend, options: BackendSessionStoreOptions = {}) {
    this.#backend = backend;
    this.#options = {
      redact: options.redact ?? ((text) => text),
      now: options.now ?? (() => new Date()),
    };
    this.#label = options.label ?? "backend";
  }

  async create(init: CreateSessionInit): Promise<OpenSession> {
    if (init.id !== undefined) validateSessionId(init.id);
    const now = this.#options.now();
    for (;;) {
      const id = init.id ?? generateSessionId(now);
      const { meta, line } = newSessionMeta(id, init, now, this.#options.redact);
      if (await this.#backend.create(id, line)) {
        return await startJournalSession(
          { meta, messages: [], needsNewline: false },
          this.#sink(id),
          this.#options,
        );
      }
      if (init.id !== undefined) throw existsError(id);
    }
  }

  async open(id: string): Promise<OpenSession> {
    validateSessionId(id);
    await this.#backend.lock(id);
    try {
      const parsed = parseJournal(await this.#load(id), this.#source(id));
      return await startJournalSession(parsed, this.#sink(id), this.#options);
    } catch (error) {
      await this.#backend.unlock(id);
      throw error;
    }
  }

  async read(id: string): Promise<SessionRecords> {
    validateSessionId(id);
    const parsed = parseJournal(await this.#load(id), this.#source(id));
    return recordsOf(parsed);
  }

  async list(): Promise<SessionSummary[]> {
    const rows = await this.#backend.list();
    return sortSummaries(rows.map(({ id, text, updatedAt, locked }) => {
      const bytes = new TextEncoder().encode(text);
      try {
        return summarize(parseJournal(bytes, this.#source(id)), bytes.length, locked);
      } catch (error) {
        if (!(error instanceof OdekError) || error.code !== "SESSION_CORRUPT") throw error;
        return problemSummary(id, { updatedAt, bytes: bytes.length, locked }, error.message);
      }
    }));
  }

  async latest(): Promise<string | undefined> {
    return (await this.list())[0]?.id;
  }

  async delete(id: string): Promise<void> {
    validateSessionId(id);
    await this.#load(id);
    await this.#backend.lock(id);
    await this.#backend.delete(id);
  }

  #source(id: string): JournalSource {
    return { id, label: `${this.#label} journal "${id}"` };
  }

  async #load(id: string): Promise<Uint8Array> {
    const text = await this.#backend.load(id);
    if (text === undefined) throw notFoundError(id);
    const bytes = new TextEncoder().encode(text);
    checkJournalSize(bytes.length, this.#source(id));
    return bytes;
  }

  #sink(id: string) {
    let closed = false;
    return {
      write: (text: string) => this.#backend.append(id, text),
      close: async () => {
        if (closed) return;
        closed = true;
        await this.#backend.unlock(id);
      },
    };
  }
}
