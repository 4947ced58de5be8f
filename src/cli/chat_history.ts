/**
 * The interactive session's input history: one JSON string a line in `ODEK_HOME/history.jsonl`
 * (mode 0600), the newest 500 kept, so Up brings back multi-line inputs whole.
 *
 * @module
 */

/** The most inputs kept. */
const MAX_ENTRIES = 500;

/**
 * Input history, loaded once and appended to as the operator sends.
 *
 * @example Without a file, in memory only
 * ```ts
 * import { ChatHistory } from "./chat_history.ts";
 * const history = new ChatHistory();
 * await history.load();
 * await history.add("fix the test");
 * await history.add("fix the test");
 * if (history.entries.length !== 1) throw new Error("a repeat is kept once");
 * ```
 */
export class ChatHistory {
  readonly #path: string | undefined;
  #entries: string[] = [];

  /** @param path the history file @default none: in memory only */
  constructor(path?: string) {
    this.#path = path;
  }

  /** The inputs, oldest first. */
  get entries(): readonly string[] {
    return this.#entries;
  }

  /** Read the file (a missing or unreadable file is an empty history; bad lines are skipped). */
  async load(): Promise<void> {
    if (!this.#path) return;
    let text: string;
    try {
      text = await Deno.readTextFile(this.#path);
    } catch {
      return;
    }
    const entries: string[] = [];
    for (const line of text.split("\n")) {
      try {
        const entry = JSON.parse(line);
        if (typeof entry === "string") entries.push(entry);
      } catch {
        // A torn or foreign line.
      }
    }
    this.#entries = entries.slice(-MAX_ENTRIES);
  }

  /** Add an input (not twice in a row); the file is rewritten when it grows past the cap. */
  async add(entry: string): Promise<void> {
    if (this.#entries.at(-1) === entry) return;
    this.#entries.push(entry);
    const rewrite = this.#entries.length > MAX_ENTRIES;
    if (rewrite) this.#entries = this.#entries.slice(-MAX_ENTRIES);
    if (!this.#path) return;
    try {
      const lines = (rewrite ? this.#entries : [entry]).map((e) => `${JSON.stringify(e)}\n`);
      await Deno.writeTextFile(this.#path, lines.join(""), { append: !rewrite, mode: 0o600 });
    } catch {
      // History is a convenience: a read-only ODEK_HOME must not stop the session.
    }
  }
}
