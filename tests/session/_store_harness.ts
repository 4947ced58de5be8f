/**
 * Runs the same behavioural cases against both session stores.
 *
 * @module
 */
import assert from "node:assert/strict";
import { OdekError } from "../../src/_util/odek_error.ts";
import { FileSessionStore } from "../../src/session/file_session_store.ts";
import { MemorySessionStore } from "../../src/session/memory_session_store.ts";
import type { SessionStore } from "../../src/session/session_store.ts";

/** What a case needs from a store under test. */
export interface StoreHarness {
  store: SessionStore;
  /** The raw journal text, as it would be on disk. */
  raw(id: string): Promise<string | undefined>;
  /** The bytes set aside from torn tails. */
  torn(id: string): Promise<string | undefined>;
  cleanup(): Promise<void>;
}

/** How to build a store for a case. */
export interface HarnessOptions {
  journals?: Record<string, string>;
  redact?: (text: string) => string;
  now?: () => Date;
}

/** A store kind under test. */
export interface StoreKind {
  name: string;
  make(options?: HarnessOptions): Promise<StoreHarness>;
}

/** A clock that moves one second forward on every call, from 2026-01-01T00:00:00Z. */
export function steppingClock(): () => Date {
  let tick = 0;
  return () => new Date(Date.UTC(2026, 0, 1) + 1000 * tick++);
}

async function readOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** Both stores. */
export const STORE_KINDS: StoreKind[] = [
  {
    name: "MemorySessionStore",
    make(options = {}) {
      const store = new MemorySessionStore(options);
      return Promise.resolve({
        store,
        raw: (id) => Promise.resolve(store.journalText(id)),
        torn: (id) => Promise.resolve(store.tornText(id)),
        cleanup: () => Promise.resolve(),
      });
    },
  },
  {
    name: "FileSessionStore",
    async make(options = {}) {
      const root = await Deno.makeTempDir({ prefix: "odek-sessions-" });
      const dir = `${root}/sessions`;
      await Deno.mkdir(dir, { mode: 0o700 });
      for (const [id, text] of Object.entries(options.journals ?? {})) {
        await Deno.writeTextFile(`${dir}/${id}.jsonl`, text, { mode: 0o600 });
      }
      const store = new FileSessionStore(dir, options);
      return {
        store,
        raw: (id) => readOrUndefined(`${dir}/${id}.jsonl`),
        torn: (id) => readOrUndefined(`${dir}/${id}.jsonl.torn`),
        cleanup: () => Deno.remove(root, { recursive: true }),
      };
    },
  },
];

/** A meta line for a seeded journal. */
export function metaLine(id: string, createdAt = "2025-12-31T00:00:00.000Z"): string {
  return JSON.stringify({
    t: "meta",
    v: 1,
    id,
    createdAt,
    workspace: "/work/space",
    model: "test-model",
    baseUrl: "http://127.0.0.1:9",
    title: "seeded",
  }) + "\n";
}

/** A message line for a seeded journal. */
export function messageLine(message: unknown, at = "2025-12-31T00:00:01.000Z"): string {
  return JSON.stringify({ t: "message", at, message }) + "\n";
}

/** A tool call. */
export function call(id: string, name = "shell") {
  return { id, type: "function" as const, function: { name, arguments: `{"n":"${id}"}` } };
}

/** A session init for cases that do not care. */
export const INIT = {
  workspace: "/work/space",
  model: "test-model",
  baseUrl: "http://127.0.0.1:9",
  title: "t",
};

/** Run `body` as one step per store kind, with a stepping clock. */
export async function eachStore(
  t: Deno.TestContext,
  options: HarnessOptions,
  body: (harness: StoreHarness) => Promise<void>,
): Promise<void> {
  for (const kind of STORE_KINDS) {
    await t.step(kind.name, async () => {
      const harness = await kind.make({ now: steppingClock(), ...options });
      try {
        await body(harness);
      } finally {
        await harness.cleanup();
      }
    });
  }
}

/** The OdekError code a promise rejects with, or "no error". */
export async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OdekError, `expected an OdekError, got ${error}`);
    return error.code;
  }
  return "no error";
}
