/**
 * Small pieces both session stores share, so they behave the same.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import { encodeRecord } from "./_journal_session.ts";
import type { ParsedJournal } from "./_parse_journal.ts";
import type {
  CreateSessionInit,
  SessionMeta,
  SessionRecords,
  SessionSummary,
} from "./session_store.ts";

/** Longest title kept, in characters (code points). */
const MAX_TITLE_CHARS = 80;

/**
 * The meta of a new session and its journal line, redacted. The title is redacted first and then
 * cut to its first line, at most 80 characters, so a cut can never split a secret.
 */
export function newSessionMeta(
  id: string,
  init: CreateSessionInit,
  now: Date,
  redact: (text: string) => string,
): { meta: SessionMeta; line: string } {
  const firstLine = redact(init.title).trim().split(/\r?\n/)[0].trim();
  const meta: SessionMeta = {
    id,
    createdAt: now.toISOString(),
    workspace: redact(init.workspace),
    model: redact(init.model),
    baseUrl: redact(init.baseUrl),
    title: Array.from(firstLine).slice(0, MAX_TITLE_CHARS).join(""),
  };
  return { meta, line: encodeRecord({ t: "meta", v: 1, ...meta }, (text) => text) };
}

/** `SESSION_NOT_FOUND` for `id`. */
export function notFoundError(id: string, cause?: unknown): OdekError {
  return new OdekError(
    "SESSION_NOT_FOUND",
    `No session "${id}": run "odek sessions list" to see the sessions there are.`,
    { cause },
  );
}

/** `USAGE` for an id that is already taken. */
export function existsError(id: string): OdekError {
  return new OdekError(
    "USAGE",
    `A session named "${id}" already exists: choose another name, resume it, or delete it with ` +
      `"odek sessions delete ${id}".`,
  );
}

/** A summary row from a loaded journal. */
export function summarize(parsed: ParsedJournal, bytes: number, locked: boolean): SessionSummary {
  return {
    ...parsed.meta,
    updatedAt: parsed.updatedAt,
    messageCount: parsed.messages.length,
    toolCallCount: parsed.toolCallCount,
    bytes,
    locked,
  };
}

/** A summary row for a journal that cannot be loaded. */
export function problemSummary(
  id: string,
  facts: { updatedAt: string; bytes: number; locked: boolean },
  problem: string,
): SessionSummary {
  return {
    id,
    createdAt: "",
    workspace: "",
    model: "",
    baseUrl: "",
    title: "",
    messageCount: 0,
    toolCallCount: 0,
    ...facts,
    problem,
  };
}

/** Sort newest first by `updatedAt`, then by id descending. */
export function sortSummaries(summaries: SessionSummary[]): SessionSummary[] {
  return summaries.sort((a, b) =>
    a.updatedAt === b.updatedAt
      ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
      : a.updatedAt < b.updatedAt
      ? 1
      : -1
  );
}

/** What `read()` returns for a parsed journal: every message record, and the transcript apart. */
export function recordsOf(parsed: ParsedJournal): SessionRecords {
  return {
    meta: parsed.meta,
    messages: parsed.written,
    rewinds: parsed.rewinds,
    transcript: parsed.messages,
    checkpoints: parsed.checkpoints,
  };
}
