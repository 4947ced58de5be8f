/**
 * The MCP SDK's `Transport` over a stdio server the broker started (private to `mcp/`): one
 * JSON-RPC message per line. Lines that are not protocol messages (a server logging on stdout)
 * are written to the server's log and skipped; a line longer than the response limit is dropped
 * without being held in memory, and when it was a response its request fails with a clear error.
 *
 * @module
 */
import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  serializeMessage,
  type Transport,
} from "@modelcontextprotocol/client";
import type { StdioServerProcess } from "../broker/stdio_server.ts";

/** Lines of stdout noise logged per server process; the rest are counted only. */
const MAX_NOISE_LINES = 200;
/** Bytes of a line's start kept to find the id of an oversized response. */
const HEAD_BYTES = 4096;

/** Options for {@linkcode BrokerStdioTransport}. */
export interface BrokerStdioTransportOptions {
  /** The longest line taken, in bytes. */
  maxLineBytes: number;
  /** Records a line that was not a protocol message (to the server's log). */
  noise: (line: string) => void;
}

/**
 * A transport over a broker-started server. It has `pid` and `stderr`, as the SDK's own stdio
 * transport does, so the SDK treats it as stdio (a silent version probe means a 2025 server).
 */
export class BrokerStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  sessionId?: string;
  /** stderr goes to the server's log, never here. */
  readonly stderr = null;
  readonly #process: StdioServerProcess;
  readonly #options: BrokerStdioTransportOptions;
  #started = false;
  #writes: Promise<void> = Promise.resolve();
  #closed = false;
  #noiseLines = 0;

  /**
   * @param process the running server
   * @param options the line limit and the noise sink
   */
  constructor(process: StdioServerProcess, options: BrokerStdioTransportOptions) {
    this.#process = process;
    this.#options = options;
  }

  /** The server's pid (bwrap's when sandboxed). */
  get pid(): number {
    return this.#process.pid;
  }

  /** Start reading the server's stdout. */
  start(): Promise<void> {
    this.#started = true;
    void this.#read();
    return Promise.resolve();
  }

  /** Write one message as a line. */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed || !this.#started) {
      return Promise.reject(new Error("the MCP server's connection is closed"));
    }
    const bytes = new TextEncoder().encode(serializeMessage(message));
    // One writer per message, released after it: stdin stays unlocked for the broker's stop().
    const write = async () => {
      const writer = this.#process.stdin.getWriter();
      try {
        await writer.write(bytes);
      } finally {
        writer.releaseLock();
      }
    };
    const done = this.#writes.then(write);
    this.#writes = done.catch(() => {});
    return done;
  }

  /** Stop the server (stdin closed, then signals) and report the close. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#process.stop();
    this.onclose?.();
  }

  async #read(): Promise<void> {
    const max = this.#options.maxLineBytes;
    let chunks: Uint8Array[] = [];
    let length = 0;
    let oversized: { head: Uint8Array; bytes: number } | undefined;
    try {
      for await (const chunk of this.#process.stdout) {
        let start = 0;
        while (start < chunk.length) {
          const newline = chunk.indexOf(10, start);
          const end = newline === -1 ? chunk.length : newline;
          const piece = chunk.subarray(start, end);
          if (oversized) {
            oversized.bytes += piece.length;
          } else if (length + piece.length > max) {
            const head = concat([...chunks, piece], length + piece.length).subarray(0, HEAD_BYTES);
            oversized = { head: head.slice(), bytes: length + piece.length };
            chunks = [];
            length = 0;
          } else {
            chunks.push(piece.slice());
            length += piece.length;
          }
          if (newline === -1) break;
          if (oversized) this.#dropOversized(oversized);
          else this.#line(new TextDecoder().decode(concat(chunks, length)));
          chunks = [];
          length = 0;
          oversized = undefined;
          start = newline + 1;
        }
      }
      if (oversized) this.#dropOversized(oversized);
      else if (length > 0) this.#line(new TextDecoder().decode(concat(chunks, length)));
    } catch (error) {
      if (!this.#closed) this.onerror?.(error as Error);
    }
    if (!this.#closed) {
      this.#closed = true;
      this.onclose?.();
    }
  }

  #line(text: string): void {
    const line = text.trim();
    if (line === "") return;
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(JSON.parse(line));
    } catch {
      this.#noise(line);
      return;
    }
    this.onmessage?.(message);
  }

  /** An oversized line: when its start shows a response id, that request fails clearly. */
  #dropOversized(line: { head: Uint8Array; bytes: number }): void {
    const head = new TextDecoder().decode(line.head);
    const id = head.match(/"id"\s*:\s*(\d+|"(?:[^"\\]|\\.){0,200}")/)?.[1];
    this.#noise(
      `${
        head.slice(0, 200)
      }… (a line of ${line.bytes} bytes, more than the ${this.#options.maxLineBytes} allowed: dropped)`,
    );
    if (id === undefined || !/"(result|error)"\s*:/.test(head)) return;
    this.onmessage?.({
      jsonrpc: "2.0",
      id: JSON.parse(id),
      error: {
        code: -32000,
        message:
          `the server's response was ${line.bytes} bytes, more than this server's maxResponseBytes (${this.#options.maxLineBytes}); it was dropped`,
      },
    } as JSONRPCMessage);
  }

  #noise(line: string): void {
    this.#noiseLines += 1;
    if (this.#noiseLines <= MAX_NOISE_LINES) {
      this.#options.noise(`stdout (not MCP): ${line.slice(0, 2000)}`);
    } else if (this.#noiseLines === MAX_NOISE_LINES + 1) {
      this.#options.noise(`stdout: more lines that are not MCP messages follow; not logged`);
    }
  }
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
