/**
 * File helpers of {@linkcode FileSessionStore}: the journal sink and durable appends.
 *
 * @module
 */
import type { JournalSink } from "./_journal_session.ts";
import type { HeldLock } from "./_session_lock.ts";

/** Writes lines to an open journal; closing it releases the lock. */
export class FileSink implements JournalSink {
  readonly #file: Deno.FsFile;
  readonly #lock: HeldLock;
  /** Bytes written since the last fsync. */
  #unsynced = false;

  constructor(file: Deno.FsFile, lock: HeldLock) {
    this.#file = file;
    this.#lock = lock;
  }

  async write(text: string, sync = true): Promise<void> {
    await writeAll(this.#file, new TextEncoder().encode(text));
    if (!sync) {
      this.#unsynced = true;
      return;
    }
    await this.#file.sync();
    this.#unsynced = false;
  }

  async close(): Promise<void> {
    try {
      if (this.#unsynced) await this.#file.sync();
    } finally {
      this.#file.close();
      await this.#lock.release();
    }
  }
}

export async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/** Append bytes to a 0600 file and fsync it. */
export async function appendDurably(path: string, bytes: Uint8Array): Promise<void> {
  using file = await Deno.open(path, { append: true, create: true, mode: 0o600 });
  await writeAll(file, bytes);
  await file.sync();
}

export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
