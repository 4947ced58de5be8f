/**
 * How the messages of the child protocol (`child_protocol.ts`) travel: one line of JSON each,
 * over a child's stdio ({@linkcode streamTransport}; the child's own end is `stdio_transport.ts`) or,
 * in tests, over an in-memory pair
 * ({@linkcode inMemoryTransportPair}, the pattern of the MCP SDK's `InMemoryTransport`).
 *
 * @module
 */

/** One end of a connection that carries lines (messages without their newline). */
export interface LineTransport {
  /** Send one line. Rejects when the other end is gone. */
  send(line: string): Promise<void>;
  /** Every line from the other end, in order, until it closes. Iterate once. */
  receive(): AsyncIterable<string>;
  /** Close the sending side: the other end's `receive()` ends. Idempotent. */
  close(): Promise<void>;
}

/** Options for {@linkcode streamTransport}. */
export interface StreamTransportOptions {
  /** Stops reading `readable` (for a killed child whose pipe stays open). */
  signal?: AbortSignal;
}

/**
 * The lines of a text that arrives in pieces: split at `\n`, blank lines skipped, a last line
 * without its newline still delivered (what every transport here reads).
 *
 * @param texts the decoded text, piece by piece
 * @returns the lines, without their newline
 *
 * @example
 * ```ts
 * import { linesOf } from "./line_transport.ts";
 * const lines: string[] = [];
 * for await (const line of linesOf(ReadableStream.from(['{"a"', ':1}\n\n', "x"]))) lines.push(line);
 * if (lines.join("|") !== '{"a":1}|x') throw new Error(lines.join("|"));
 * ```
 */
export async function* linesOf(
  texts: AsyncIterable<string>,
): AsyncIterable<string> {
  let carry = "";
  for await (const text of texts) {
    const lines = (carry + text).split("\n");
    carry = lines.pop() ?? "";
    for (const line of lines) if (line.trim() !== "") yield line;
  }
  if (carry.trim() !== "") yield carry;
}

/**
 * A transport over byte streams: `\n`-terminated UTF-8 lines; blank lines are skipped and a last
 * line without its newline is still delivered.
 *
 * @param readable lines from the other end (a child's stdout, or the child's own stdin)
 * @param writable lines to the other end
 * @param options `signal` to stop reading
 * @returns the transport
 *
 * @example
 * ```ts
 * import { streamTransport } from "./line_transport.ts";
 * let written = "";
 * const transport = streamTransport(
 *   ReadableStream.from([new TextEncoder().encode('{"a":1}\n\n{"b"'), new TextEncoder().encode(":2}")]),
 *   new WritableStream({ write: (chunk) => void (written += new TextDecoder().decode(chunk)) }),
 * );
 * const lines: string[] = [];
 * for await (const line of transport.receive()) lines.push(line);
 * await transport.send("pong");
 * if (lines.join("|") !== '{"a":1}|{"b":2}' || written !== "pong\n") throw new Error(lines.join("|"));
 * ```
 */
export function streamTransport(
  readable: ReadableStream<Uint8Array>,
  writable: WritableStream<Uint8Array>,
  options: StreamTransportOptions = {},
): LineTransport {
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  let closed = false;
  return {
    send: (line) => writer.write(encoder.encode(`${line}\n`)),
    receive: () =>
      linesOf(
        readable.pipeThrough(new TextDecoderStream(), {
          signal: options.signal,
        }),
      ),
    async close() {
      if (closed) return;
      closed = true;
      await writer.close().catch(() => {});
    },
  };
}

/**
 * Two connected in-memory ends: what one sends, the other receives, in order. For protocol tests
 * without spawning a process.
 *
 * @returns `[a, b]`: lines sent on `a` are received on `b` and the other way round
 *
 * @example
 * ```ts
 * import { inMemoryTransportPair } from "./line_transport.ts";
 * const [core, child] = inMemoryTransportPair();
 * await core.send("hello");
 * await core.close();
 * const got: string[] = [];
 * for await (const line of child.receive()) got.push(line);
 * if (got.join() !== "hello") throw new Error(got.join());
 * ```
 */
export function inMemoryTransportPair(): [LineTransport, LineTransport] {
  const aToB = new LineQueue();
  const bToA = new LineQueue();
  return [end(aToB, bToA), end(bToA, aToB)];
}

function end(outgoing: LineQueue, incoming: LineQueue): LineTransport {
  return {
    send: (line) => outgoing.push(line),
    receive: () => incoming.drain(),
    close: () => Promise.resolve(outgoing.end()),
  };
}

/** An unbounded queue of lines with one reader. */
class LineQueue {
  #lines: string[] = [];
  #ended = false;
  #wake: (() => void) | null = null;

  push(line: string): Promise<void> {
    if (this.#ended) {
      return Promise.reject(
        new Error("The other end of the transport is closed"),
      );
    }
    this.#lines.push(line);
    this.#wake?.();
    return Promise.resolve();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  async *drain(): AsyncIterable<string> {
    while (true) {
      const line = this.#lines.shift();
      if (line !== undefined) {
        yield line;
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => this.#wake = resolve);
      this.#wake = null;
    }
  }
}
