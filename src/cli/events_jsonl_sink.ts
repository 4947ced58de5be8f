/**
 * The `--events-jsonl FILE` audit sink: every run event as one JSON line, appended and synced to
 * disk one by one, with tool arguments reduced to their SHA-256 and size (odek-go §9).
 *
 * @module
 */
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import type { RunEvent } from "../loop/run_event.ts";

/** Options for {@linkcode EventsJsonlSink.open}. */
export interface EventsJsonlSinkOptions {
  /** Events waiting to be written before new ones are dropped. @default 1024 */
  maxQueued?: number;
  /** fsync (`fdatasync`) after every event. @default true */
  sync?: boolean;
  /**
   * A directory the events file may not be in (odek passes `ODEK_HOME`: appending events to a
   * session journal or the config file would corrupt it). Compared as real paths. @default none
   */
  refuseInside?: string;
}

/**
 * Writes run events to a file without ever blocking the loop: {@linkcode handle} only queues;
 * one writer appends the queued events in order, each flushed to disk before the next. When the
 * queue is full (a slow disk), new events are dropped and counted in {@linkcode dropped}; after a
 * write error every later event is dropped and {@linkcode error} says why.
 *
 * What is written: every event except the streamed `text_delta` and `reasoning_delta` pieces (the
 * `assistant_message` event carries the whole text); `tool_call_started` without `args` (its
 * `args_sha256` and `args_bytes` stay); `tool_call_completed` without `preview`. Events are
 * redacted before they reach a sink.
 *
 * @example Write two events and read them back
 * ```ts
 * import { EventsJsonlSink } from "./events_jsonl_sink.ts";
 * const dir = await Deno.makeTempDir();
 * const sink = await EventsJsonlSink.open(`${dir}/events.jsonl`);
 * sink.handle({ schema: "odek.event/v1", type: "session_saved", run_id: "r", timestamp: "t", data: { message_count: 2 } });
 * sink.handle({ schema: "odek.event/v1", type: "text_delta", run_id: "r", timestamp: "t", data: { text: "hi" } });
 * await sink.close();
 * const lines = (await Deno.readTextFile(`${dir}/events.jsonl`)).trim().split("\n");
 * await Deno.remove(dir, { recursive: true });
 * if (lines.length !== 1 || JSON.parse(lines[0]).type !== "session_saved") throw new Error(lines.join());
 * ```
 */
export class EventsJsonlSink implements AsyncDisposable {
  readonly #file: Deno.FsFile;
  readonly #maxQueued: number;
  readonly #sync: boolean;
  readonly #queue: Uint8Array[] = [];
  #pumping: Promise<void> | undefined;
  #dropped = 0;
  #written = 0;
  #error: Error | undefined;
  #closed = false;

  private constructor(file: Deno.FsFile, options: EventsJsonlSinkOptions) {
    this.#file = file;
    this.#maxQueued = options.maxQueued ?? 1024;
    this.#sync = options.sync ?? true;
  }

  /**
   * Open (or create, mode 0600) the events file for appending.
   *
   * The parent directory must exist. A symlink at `path` is refused, whatever it points to; a new
   * file is created exclusively (`O_CREAT|O_EXCL`, which never follows a symlink), and an
   * existing one must be a regular file, private to its owner (no group or other permission
   * bits), and still the same file (device and inode) once open.
   *
   * @param path where the events go (absolute, or relative to the process cwd)
   * @param options queue size and syncing
   * @returns the open sink; close it when the run ends
   * @throws {OdekError} `USAGE` naming the path, the reason and the fix
   */
  static async open(path: string, options: EventsJsonlSinkOptions = {}): Promise<EventsJsonlSink> {
    const refuse = (why: string, fix: string) =>
      new OdekError("USAGE", `Cannot write events to ${path}: ${why}. ${fix}`);
    const folder = await Deno.stat(dirname(path)).catch((error) => {
      if (error instanceof Deno.errors.NotFound) return null;
      throw refuse(
        `its folder ${dirname(path)} cannot be used (${(error as Error).message})`,
        "Choose a regular file in a folder you own.",
      );
    });
    if (!folder?.isDirectory) {
      throw refuse(`the folder ${dirname(path)} does not exist`, "Create it first.");
    }
    if (options.refuseInside !== undefined) {
      const real = join(await Deno.realPath(dirname(path)), basename(path));
      const guarded = await Deno.realPath(options.refuseInside).catch(() => options.refuseInside!);
      const rel = relative(guarded, real);
      if (rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))) {
        throw refuse(
          `it is inside ${guarded}, where odek keeps its sessions and configuration (events appended there would corrupt them)`,
          "Choose a path outside it.",
        );
      }
    }
    const before = await Deno.lstat(path).catch((error) => {
      if (error instanceof Deno.errors.NotFound) return null;
      throw refuse((error as Error).message, "Check the path and its permissions.");
    });
    if (before?.isSymlink) {
      throw refuse("it is a symbolic link, which odek does not follow", "Name the file itself.");
    }
    if (before && !before.isFile) throw refuse("it is not a regular file", "Choose a file path.");
    if (before && before.mode !== null && (before.mode & 0o077) !== 0) {
      throw refuse(
        `other users may access it (mode ${(before.mode & 0o777).toString(8)})`,
        `Run chmod 600 ${path}, or choose a new file.`,
      );
    }
    let file: Deno.FsFile;
    try {
      file = before
        ? await Deno.open(path, { append: true })
        : await Deno.open(path, { createNew: true, append: true, mode: 0o600 });
    } catch (error) {
      throw refuse((error as Error).message, "Check the path and its permissions.");
    }
    if (before) {
      const after = await file.stat();
      if (after.ino !== before.ino || after.dev !== before.dev) {
        file.close();
        throw refuse("it was replaced while being opened", "Try again.");
      }
    }
    return new EventsJsonlSink(file, options);
  }

  /** Events dropped because the queue was full, the sink had failed, or it was closed. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Events written and flushed. */
  get written(): number {
    return this.#written;
  }

  /** The write error that stopped the sink, if any. */
  get error(): Error | undefined {
    return this.#error;
  }

  /** Queue one event (never blocks, never throws). */
  handle(event: RunEvent): void {
    const audited = auditEvent(event);
    if (audited === undefined) return;
    if (this.#closed || this.#error || this.#queue.length >= this.#maxQueued) {
      this.#dropped += 1;
      return;
    }
    this.#queue.push(new TextEncoder().encode(`${JSON.stringify(audited)}\n`));
    this.#pumping ??= this.#pump();
  }

  /** Write what is queued, then close the file. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pumping;
    try {
      this.#file.close();
    } catch {
      // Already closed.
    }
  }

  /** {@linkcode EventsJsonlSink.close}: for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #pump(): Promise<void> {
    // Yield first, so a burst of events from one step is queued (or dropped) without waiting.
    await Promise.resolve();
    try {
      while (this.#queue.length > 0) {
        let bytes = this.#queue.shift()!;
        while (bytes.length > 0) bytes = bytes.subarray(await this.#file.write(bytes));
        if (this.#sync) await this.#file.syncData();
        this.#written += 1;
      }
    } catch (error) {
      this.#error = error as Error;
      this.#dropped += this.#queue.length;
      this.#queue.length = 0;
    } finally {
      this.#pumping = undefined;
    }
  }
}

/** The event as the audit file has it, or `undefined` for events it leaves out. */
function auditEvent(event: RunEvent): RunEvent | undefined {
  switch (event.type) {
    case "text_delta":
    case "reasoning_delta":
      return undefined;
    case "tool_call_started": {
      const { args: _args, ...data } = event.data;
      return { ...event, data } as unknown as RunEvent;
    }
    case "tool_call_completed": {
      const { preview: _preview, ...data } = event.data;
      return { ...event, data } as unknown as RunEvent;
    }
    default:
      return event;
  }
}
