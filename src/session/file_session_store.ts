/**
 * The real session store: one append-only JSONL journal per session (design §5).
 *
 * @module
 */
import { join } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import { generateSessionId } from "./generate_session_id.ts";
import type { JournalOptions } from "./_journal_session.ts";
import { startJournalSession } from "./_start_session.ts";
import {
  checkJournalSize,
  type JournalSource,
  type ParsedJournal,
  parseJournal,
} from "./_parse_journal.ts";
import { acquireSessionLock, isSessionLocked } from "./_session_lock.ts";
import { appendDurably, exists, FileSink } from "./_file_sink.ts";
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

/** Options for {@linkcode FileSessionStore}. */
export interface FileSessionStoreOptions {
  /** Applied to every content string before it is written. @default the identity */
  redact?: (text: string) => string;
  /** The clock for ids and record times. @default `() => new Date()` */
  now?: () => Date;
}

/**
 * Sessions as files in `dir` (created 0700): `<id>.jsonl` (0600) is the journal, `<id>.lock` the
 * lock of the process writing it, `<id>.jsonl.torn` (0600) the bytes of damaged last lines cut off
 * when the session was reopened. Every append is one line, written and fsynced before it resolves;
 * the file is never rewritten. See {@linkcode SessionStore} for the contract and errors.
 *
 * @example Create, append and read back
 * ```ts
 * import { FileSessionStore, type FileSessionStoreOptions } from "./file_session_store.ts";
 * const dir = await Deno.makeTempDir();
 * try {
 *   const options: FileSessionStoreOptions = { redact: (text) => text.replaceAll("hunter22", "[REDACTED]") };
 *   const store = new FileSessionStore(`${dir}/sessions`, options);
 *   const session = await store.create({ id: "demo", workspace: dir, model: "m", baseUrl: "http://127.0.0.1:1", title: "Say hi" });
 *   await session.append({ role: "user", content: "Say hi" });
 *   await session.close();
 *   const { messages } = await store.read("demo");
 *   if (messages.length !== 1) throw new Error("not persisted");
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 */
export class FileSessionStore implements SessionStore {
  readonly #dir: string;
  readonly #options: JournalOptions;

  /**
   * A store of journal files in one directory.
   *
   * @param dir the sessions directory, e.g. `ODEK_HOME/sessions`; created on first `create`
   * @param options redaction and clock; see {@linkcode FileSessionStoreOptions}
   */
  constructor(dir: string, options: FileSessionStoreOptions = {}) {
    this.#dir = dir;
    this.#options = {
      redact: options.redact ?? ((text) => text),
      now: options.now ?? (() => new Date()),
    };
  }

  async create(init: CreateSessionInit): Promise<OpenSession> {
    if (init.id !== undefined) validateSessionId(init.id);
    await Deno.mkdir(this.#dir, { recursive: true, mode: 0o700 });
    if (((await Deno.stat(this.#dir)).mode ?? 0o700) & 0o077) await Deno.chmod(this.#dir, 0o700);
    const now = this.#options.now();
    let id = init.id ?? generateSessionId(now);
    while (await exists(this.#path(id, ".jsonl"))) {
      if (init.id !== undefined) throw existsError(id);
      id = generateSessionId(now);
    }
    const lock = await acquireSessionLock(this.#path(id, ".lock"), id, this.#options.now);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.#path(id, ".jsonl"), {
        write: true,
        append: true,
        createNew: true,
        mode: 0o600,
      });
    } catch (error) {
      await lock.release();
      throw error instanceof Deno.errors.AlreadyExists ? existsError(id) : error;
    }
    const sink = new FileSink(file, lock);
    const { meta, line } = newSessionMeta(id, init, now, this.#options.redact);
    try {
      await sink.write(line);
    } catch (error) {
      await Deno.remove(this.#path(id, ".jsonl")).catch(() => {}); // never leave a headless journal
      await sink.close();
      throw error;
    }
    return startJournalSession({ meta, messages: [], needsNewline: false }, sink, this.#options);
  }

  async open(id: string): Promise<OpenSession> {
    validateSessionId(id);
    const journal = this.#path(id, ".jsonl");
    if (!(await exists(journal))) throw notFoundError(id);
    const lock = await acquireSessionLock(this.#path(id, ".lock"), id, this.#options.now);
    let file: Deno.FsFile | undefined;
    let parsed: ParsedJournal;
    try {
      parsed = parseJournal(await this.#readJournal(id), this.#source(id));
      file = await Deno.open(journal, { write: true, append: true });
      if (parsed.torn) {
        await appendDurably(this.#path(id, ".jsonl.torn"), parsed.torn);
        await file.truncate(parsed.validEnd);
        await file.sync();
      }
    } catch (error) {
      file?.close();
      await lock.release();
      throw error;
    }
    const tornTail = parsed.torn
      ? { path: this.#path(id, ".jsonl.torn"), bytes: parsed.torn.length }
      : undefined;
    return startJournalSession(parsed, new FileSink(file, lock), this.#options, { tornTail });
  }

  async read(id: string): Promise<SessionRecords> {
    validateSessionId(id);
    const parsed = parseJournal(await this.#readJournal(id), this.#source(id));
    return recordsOf(parsed);
  }

  async list(): Promise<SessionSummary[]> {
    const summaries: SessionSummary[] = [];
    try {
      for await (const entry of Deno.readDir(this.#dir)) {
        const id = entry.name.slice(0, -".jsonl".length);
        if (!entry.isFile || !entry.name.endsWith(".jsonl") || !isValidId(id)) continue;
        const summary = await this.#summary(id);
        if (summary) summaries.push(summary);
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return [];
      throw error;
    }
    return sortSummaries(summaries);
  }

  async latest(): Promise<string | undefined> {
    return (await this.list())[0]?.id;
  }

  async delete(id: string): Promise<void> {
    validateSessionId(id);
    if (!(await exists(this.#path(id, ".jsonl")))) throw notFoundError(id);
    const lock = await acquireSessionLock(this.#path(id, ".lock"), id, this.#options.now);
    try {
      await Deno.remove(this.#path(id, ".jsonl"));
      await Deno.remove(this.#path(id, ".jsonl.torn")).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
    } finally {
      await lock.release();
    }
  }

  #path(id: string, suffix: string): string {
    return join(this.#dir, `${id}${suffix}`);
  }

  #source(id: string): JournalSource {
    return { id, label: this.#path(id, ".jsonl") };
  }

  /** Read a journal after checking its size. */
  async #readJournal(id: string): Promise<Uint8Array> {
    const path = this.#path(id, ".jsonl");
    try {
      checkJournalSize((await Deno.stat(path)).size, this.#source(id));
      return await Deno.readFile(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) throw notFoundError(id, error);
      throw error;
    }
  }

  async #summary(id: string): Promise<SessionSummary | undefined> {
    const locked = await isSessionLocked(this.#path(id, ".lock"));
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(this.#path(id, ".jsonl"));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined; // deleted meanwhile
      throw error;
    }
    try {
      return summarize(
        parseJournal(await this.#readJournal(id), this.#source(id)),
        info.size,
        locked,
      );
    } catch (error) {
      if (error instanceof OdekError && error.code === "SESSION_NOT_FOUND") return undefined;
      if (!(error instanceof OdekError) || error.code !== "SESSION_CORRUPT") throw error;
      const updatedAt = (info.mtime ?? new Date(0)).toISOString();
      return problemSummary(id, { updatedAt, bytes: info.size, locked }, error.message);
    }
  }
}

function isValidId(id: string): boolean {
  try {
    validateSessionId(id);
    return true;
  } catch {
    return false;
  }
}
