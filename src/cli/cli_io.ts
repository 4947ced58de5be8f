/**
 * The CLI's view of the process: streams, terminal facts, environment and signals. Tests pass
 * their own; {@linkcode processCliIO} is the real one.
 *
 * @module
 */

/** A text sink. */
export interface TextSink {
  write(text: string): void;
}

/** What commands may touch of the process. */
export interface CliIO {
  stdout: TextSink;
  stderr: TextSink;
  /** Read all of stdin as text. */
  readStdin(): Promise<string>;
  stdinIsTerminal: boolean;
  stderrIsTerminal: boolean;
  env: Record<string, string>;
  /** The caller's directory: `INIT_CWD` under `deno task`, else the process cwd. */
  callerDir: string;
  /** The directory of `main.ts` (or of the compiled binary). */
  installDir: string;
  /** Register a signal handler; returns its remover. */
  onSignal(signal: "SIGINT" | "SIGTERM", handler: () => void): () => void;
}

function syncSink(file: { writeSync(p: Uint8Array): number }): TextSink {
  const encoder = new TextEncoder();
  return {
    write(text: string) {
      let bytes = encoder.encode(text);
      while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
    },
  };
}

/**
 * The real process IO.
 *
 * @example
 * ```ts ignore
 * const io = processCliIO("/opt/odek");
 * io.stderr.write("hello\n");
 * ```
 */
export function processCliIO(installDir: string): CliIO {
  return {
    stdout: syncSink(Deno.stdout),
    stderr: syncSink(Deno.stderr),
    readStdin: () => new Response(Deno.stdin.readable).text(),
    stdinIsTerminal: Deno.stdin.isTerminal(),
    stderrIsTerminal: Deno.stderr.isTerminal(),
    env: Deno.env.toObject(),
    callerDir: Deno.env.get("INIT_CWD") || Deno.cwd(),
    installDir,
    onSignal(signal, handler) {
      Deno.addSignalListener(signal, handler);
      return () => Deno.removeSignalListener(signal, handler);
    },
  };
}
