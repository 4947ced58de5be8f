/**
 * What `odek serve` keeps of its runs on disk, under `ODEK_HOME/serve/runs/`: one state file per
 * run (`<key>.json`, rewritten atomically on each change) and, per started run, its events
 * (`<run id>.events.jsonl`, one `RuntimeEvent` a line). A restarted server reads them to resume
 * the runs that were queued or going, and to replay a finished run's events.
 *
 * @module
 */
import { join } from "node:path";
import type { RuntimeEvent } from "../runtime/event_subscription.ts";

/** Where a serve run is. */
export type ServeRunState =
  | "queued"
  | "running"
  | "completed"
  | "budget_exceeded"
  | "stalled"
  | "interrupted"
  | "failed";

/**
 * One serve run as the API shows it and the disk keeps it.
 *
 * @example A run waiting for a free slot
 * ```ts
 * import type { ServeRunRecord } from "./run_records.ts";
 * const record: ServeRunRecord = {
 *   key: "q-1", sessionId: "s1", state: "queued", queuedReason: "4 runs are going (the cap)",
 *   createdAt: "2026-01-01T00:00:00.000Z", workspace: "/w",
 * };
 * if (record.runId !== undefined) throw new Error("not started");
 * ```
 */
export interface ServeRunRecord {
  /** The record's own id: the run id once it started, a `q-…` id while queued. */
  key: string;
  /** The runtime's run id (events are `<runId>:<seq>`), once started. */
  runId?: string;
  sessionId: string;
  state: ServeRunState;
  /** Why a queued run waits. */
  queuedReason?: string;
  /** ISO 8601 times. */
  createdAt: string;
  startedAt?: string;
  endedAt?: string;
  workspace: string;
  /** A new session's task (kept so a restarted server can still start it). */
  task?: string;
  /** The message the run appends (kept likewise). */
  message?: string;
  /** Whether the run resumes the transcript without a message. */
  resume?: boolean;
  /** The final text (completed) or the error's message (the other ends). */
  summary?: string;
  /** The error code of a run that did not complete. */
  errorCode?: string;
  /**
   * What the operator should know of the run's session host (`host.warnings`: no bwrap, no egress
   * proxy, a project key ignored, a context file refused, …): those of the open, then those of its
   * parts once they are up. Absent when there are none.
   */
  warnings?: string[];
  /** Tokens the run spent (set when it ends). */
  usage?: { inputTokens: number; outputTokens: number; toolCalls: number };
  /** The session's model when the run started (prices its tokens). */
  model?: string;
  /** A run on a git repository: the request, then its branch and diff. */
  git?: ServeRunGit;
}

/**
 * A run on a git repository (`odek serve --queue`): what was asked, and once it ended, what it
 * left on its run branch.
 *
 * @example A finished run's branch
 * ```ts
 * import type { ServeRunGit } from "./run_records.ts";
 * const git: ServeRunGit = { repository: "/srv/git/app.git", ref: "main", branch: "odek/run/q-1", diff: "" };
 * if (git.branch !== "odek/run/q-1") throw new Error(git.branch);
 * ```
 */
export interface ServeRunGit {
  /** The repository (a URL or a path every worker reaches). */
  repository: string;
  /** The base ref as asked for. */
  ref: string;
  /** The run branch. @default `odek/run/<key>` */
  branch?: string;
  /** The base commit, once the run ended. */
  base?: string;
  /** The branch's last checkpoint commit, once the run ended. */
  head?: string;
  /** Checkpoint commits since the base. */
  checkpoints?: number;
  /** Paths that differ from the base. */
  files?: { path: string; change: string }[];
  /** `git diff base head`, cut at 256 KiB. */
  diff?: string;
  /** Whether `diff` was cut. */
  diffTruncated?: boolean;
}

/** The files of serve's runs. */
export class RunRecords {
  readonly #dir: string;
  readonly #files = new Map<string, Deno.FsFile>();
  /** Per key, the end of the writes under way (each write starts after the one before). */
  readonly #writes = new Map<string, Promise<void>>();
  readonly #encoder = new TextEncoder();

  /** @param dir the folder (created 0700 by {@linkcode RunRecords.open}) */
  constructor(dir: string) {
    this.#dir = dir;
  }

  /** Create the folder. */
  async open(): Promise<void> {
    await Deno.mkdir(this.#dir, { recursive: true, mode: 0o700 });
  }

  /**
   * Write a record as it is now (a temporary file renamed over the old one). Writes of one key
   * land in call order: a save still being written never overwrites a later save or removal.
   */
  async save(record: ServeRunRecord): Promise<void> {
    const path = join(this.#dir, `${record.key}.json`);
    const text = JSON.stringify(record);
    await this.#inOrder(record.key, async () => {
      const tmp = `${path}.${crypto.randomUUID()}.tmp`;
      await Deno.writeTextFile(tmp, text, { mode: 0o600 });
      await Deno.rename(tmp, path);
    });
  }

  /** Remove a queued record that became a started one (after its writes still under way). */
  async remove(key: string): Promise<void> {
    await this.#inOrder(key, () => Deno.remove(join(this.#dir, `${key}.json`)).catch(() => {}));
  }

  /** Run `write` after the writes of `key` called before it (whether they failed or not). */
  async #inOrder(key: string, write: () => Promise<void>): Promise<void> {
    const mine = (this.#writes.get(key) ?? Promise.resolve()).then(write);
    const settled = mine.catch(() => {});
    this.#writes.set(key, settled);
    try {
      await mine;
    } finally {
      if (this.#writes.get(key) === settled) this.#writes.delete(key);
    }
  }

  /** Every record on disk (unreadable ones are skipped). */
  async all(): Promise<ServeRunRecord[]> {
    const out: ServeRunRecord[] = [];
    for await (const entry of Deno.readDir(this.#dir)) {
      if (!entry.isFile || !entry.name.endsWith(".json")) continue;
      try {
        out.push(JSON.parse(await Deno.readTextFile(join(this.#dir, entry.name))));
      } catch {
        // a torn or foreign file: not ours to resume
      }
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Append one event to its run's event file. */
  appendEvent(event: RuntimeEvent): void {
    let file = this.#files.get(event.run_id);
    if (!file) {
      file = Deno.openSync(join(this.#dir, `${event.run_id}.events.jsonl`), {
        append: true,
        create: true,
        mode: 0o600,
      });
      this.#files.set(event.run_id, file);
    }
    const bytes = this.#encoder.encode(`${JSON.stringify(event)}\n`);
    let written = 0;
    while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
  }

  /** Close a run's event file (its run ended). */
  closeEvents(runId: string): void {
    this.#files.get(runId)?.close();
    this.#files.delete(runId);
  }

  /** A run's events read back from its file, after `seq` `after` (a torn last line is skipped). */
  async readEvents(runId: string, after = 0): Promise<RuntimeEvent[] | undefined> {
    let text: string;
    try {
      text = await Deno.readTextFile(join(this.#dir, `${runId}.events.jsonl`));
    } catch {
      return undefined;
    }
    const out: RuntimeEvent[] = [];
    for (const line of text.split("\n")) {
      if (!line) continue;
      try {
        const event = JSON.parse(line) as RuntimeEvent;
        if (event.seq > after) out.push(event);
      } catch {
        // the torn tail of a killed server
      }
    }
    return out;
  }

  /** Close every open event file. */
  close(): void {
    for (const file of this.#files.values()) file.close();
    this.#files.clear();
  }
}
