/**
 * The child's end of the child protocol: serves the catalogue entries of one category, runs calls
 * concurrently, stops a call when the core cancels it, and answers every call exactly once.
 *
 * It loads no zod at start: a received line passes a check without zod
 * (`core_message_check.ts`) or is checked with the protocol's schema, imported then; a call's
 * arguments pass a check without zod (`ToolChildServerOptions.fast`) or are checked with the
 * tool's schema, imported on the first call that needs it (see
 * {@linkcode ToolChildServerOptions.entries}).
 *
 * @module
 */
// Types only: the protocol's zod schemas are loaded when a line fails the fast check.
import type { CallMessage, ChildMessage, CoreMessage, ResultMessage } from "./child_protocol.ts";
import { acceptCoreMessage } from "./core_message_check.ts";
import type { LineTransport } from "./line_transport.ts";
import { isZodError, toChildError } from "./tool_failure.ts";
import type { ArgsZod } from "./tool_entry.ts";

/** What every handler gets besides its arguments. */
export interface ToolContext {
  /** The realpathed workspace every target must lie in. */
  readonly workspace: string;
  /** Realpathed directories the operator granted besides the workspace (`--add-dir`). */
  readonly roots: readonly string[];
  /**
   * Single files the call's approval granted (outside the workspace, or protected files inside
   * it), each absolute: written in place. @default []
   */
  readonly grants?: readonly string[];
  /**
   * Protected places besides the fixed names of `protected_paths.ts` (relative to the
   * workspace): refused unless granted. @default []
   */
  readonly protect?: readonly string[];
  /** Aborts when the core cancels the call (the run was interrupted, or the call timed out). */
  readonly signal: AbortSignal;
}

/**
 * A tool's implementation: validated arguments in, the model's text out. Failures are thrown
 * (`ToolFailure`, or anything: see `toChildError`); a long handler honours `context.signal`.
 */
// deno-lint-ignore no-explicit-any
export type ToolHandler<A = any, C extends ToolContext = any> = (
  args: A,
  context: C,
) => string | Promise<string>;

/**
 * What a child needs of a tool it serves: its name and the schema its arguments are checked
 * against. A catalogue entry has both; so does the one tool of a module-tool child
 * (`tools/module_tool.ts`), which is not in the catalogue.
 */
export interface ServedTool {
  readonly name: string;
  readonly args: ArgsZod;
}

/** Options for {@linkcode ToolChildServer}. */
export interface ToolChildServerOptions {
  /** The child's name in messages, e.g. `file-tool`. */
  name: string;
  /**
   * The entries this child serves (its registry), or a function that imports them: called once,
   * on the first call (or `preload`), so a child whose entries' schemas need zod starts without
   * it (the catalogue children, `tools/_load_handler.ts`).
   */
  entries: readonly ServedTool[] | (() => Promise<readonly ServedTool[]>);
  /**
   * Zod-free checks of some entries' arguments (`file_args_check.ts`): a call whose arguments a
   * check accepts runs with the check's output, without importing `entries`; any other call is
   * checked with its entry's schema as before. A check must only accept what the entry's schema
   * accepts, and return what its `parse` returns. @default []
   */
  fast?: readonly FastTool[];
  /** Added to every handler's context, e.g. the web child's egress client. @default {} */
  services?: Readonly<Record<string, unknown>>;
  /**
   * Loads an entry's handler (a child's own loader: the import must be written in a file beside
   * the handler modules, see `tools/_load_handler.ts`).
   */
  // A method (its parameter is bivariant), so a loader of catalogue entries such as
  // `loadHandler` fits: it is only ever given the entries above.
  load(entry: ServedTool | FastTool): Promise<ToolHandler>;
}

/** A tool whose arguments a child can check without zod (see `ToolChildServerOptions.fast`). */
export interface FastTool {
  readonly name: string;
  /** The arguments as the tool's schema parses them, or `undefined` when only it can tell. */
  check(args: Args): Args | undefined;
}

type Args = Record<string, unknown>;

/**
 * Serves one category's catalogue entries over a {@linkcode LineTransport}. Each entry's handler
 * is imported on its first call (or on `preload`), so a child starts with no tool code loaded.
 * Arguments are validated against the entry's schema, the same schema the core validated them
 * with, before the handler sees them.
 *
 * @example Serve one call over an in-memory pair
 * ```ts
 * import { z } from "zod";
 * import { ToolChildServer } from "./child_server.ts";
 * import { inMemoryTransportPair } from "./line_transport.ts";
 * import { toolEntry } from "./tool_entry.ts";
 * const echo = toolEntry({
 *   name: "echo", description: "Echo.", category: "compute",
 *   args: z.strictObject({ text: z.string() }),
 *   handler: { module: "unused.ts", export: "echo" },
 *   rule: { kind: "fixed", class: "read", detail: "echoes" }, classWithoutGate: "read",
 * });
 * const server = new ToolChildServer({
 *   name: "demo", entries: [echo],
 *   load: () => Promise.resolve((args: { text: string }) => args.text),
 * });
 * const [core, child] = inMemoryTransportPair();
 * const serving = server.serve(child);
 * await core.send(JSON.stringify({ type: "call", id: 1, tool: "echo", args: { text: "hi" }, workspace: "/" }));
 * await core.close();
 * const answers: string[] = [];
 * for await (const line of core.receive()) answers.push(line);
 * await serving;
 * if (JSON.parse(answers[0]).output !== "hi") throw new Error(answers[0]);
 * ```
 */
export class ToolChildServer {
  readonly #name: string;
  readonly #listEntries: () => Promise<readonly ServedTool[]>;
  #entries: Promise<ReadonlyMap<string, ServedTool>> | null = null;
  readonly #services: Readonly<Record<string, unknown>>;
  readonly #load: (entry: ServedTool | FastTool) => Promise<ToolHandler>;
  readonly #fast: ReadonlyMap<string, FastTool>;
  readonly #handlers = new Map<string, Promise<ToolHandler>>();
  /** The calls running now, by id: cancelling one aborts its controller. */
  readonly #running = new Map<number, AbortController>();
  /** Set while a line waits for the protocol's schema to be imported and checked. */
  #waiting: Promise<void> | null = null;

  /** @param options the child's name, its entries, services and handler loader */
  constructor(options: ToolChildServerOptions) {
    this.#name = options.name;
    const { entries } = options;
    this.#listEntries = typeof entries === "function" ? entries : () => Promise.resolve(entries);
    this.#services = options.services ?? {};
    this.#load = (entry) => options.load(entry);
    this.#fast = new Map((options.fast ?? []).map((tool) => [tool.name, tool]));
  }

  /**
   * Answer one received line. Never throws: a bad line, an unknown tool, invalid arguments, a
   * refusal or a denial all come back as a message. A `cancel` aborts the running call it names
   * (whose own result follows); `cancel` and `preload` have no answer of their own.
   *
   * @param line one message from the core
   * @returns the answer, or `undefined` for `cancel` and `preload`
   */
  answer(line: string): Promise<ChildMessage | undefined> {
    // Lines are handled in order (a cancel finds the call sent before it): while one waits for
    // the protocol's schema, the lines after it wait too.
    if (this.#waiting === null) {
      const quick = quickParse(line);
      if (quick !== undefined) return this.#dispatch(quick);
    }
    const parsed = (this.#waiting ?? Promise.resolve()).then(() => parseWithSchema(line));
    const answered = parsed.then((checked) => this.#dispatch(checked));
    const waiting = parsed.then(() => {}, () => {});
    this.#waiting = waiting;
    void waiting.then(() => {
      if (this.#waiting === waiting) this.#waiting = null;
    });
    return answered;
  }

  /** Handle one parsed line; a call is registered (so a cancel finds it) before any await. */
  async #dispatch(parsed: Parsed): Promise<ChildMessage | undefined> {
    if (!parsed.ok) {
      const id = (parsed.json as { id?: unknown } | null)?.id;
      if (typeof id === "number" && Number.isInteger(id) && id >= 0) {
        return failure(
          id,
          "invalid_arguments",
          `Malformed request: ${parsed.problem}`,
        );
      }
      return {
        type: "rejected",
        message: `Malformed message: ${parsed.problem}`,
      };
    }
    const message = parsed.message;
    switch (message.type) {
      case "call":
        return await this.#call(message);
      case "cancel":
        this.#running.get(message.id)?.abort(
          new DOMException(
            `The call was cancelled (${message.reason})`,
            "AbortError",
          ),
        );
        return undefined;
      case "preload":
        for (const entry of (await this.#registry()).values()) {
          void this.#handler(entry).catch(() => {});
        }
        return undefined;
      default: {
        const unreachable: never = message;
        throw new TypeError(`Unknown message: ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /**
   * Serve the lines of `transport` until it closes, then wait for the calls in flight and close
   * the sending side.
   *
   * @param transport the connection to the core
   */
  async serve(transport: LineTransport): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    for await (const line of transport.receive()) {
      const reply = this.answer(line).then(async (answer) => {
        if (answer !== undefined) await transport.send(JSON.stringify(answer));
      }).catch(() => {
        // The core is gone: nobody is left to tell.
      });
      const tracked = reply.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
    }
    await Promise.all(inFlight);
    await transport.close();
  }

  async #call(call: CallMessage): Promise<ResultMessage> {
    const { id, tool } = call;
    const controller = new AbortController();
    this.#running.set(id, controller);
    const fast = this.#fast.get(tool);
    let checked: Args | undefined;
    try {
      checked = fast?.check(call.args);
    } catch { /* a check that throws is unsure: the schema decides */ }
    if (fast !== undefined && checked !== undefined) {
      return await this.#run(call, controller, () => this.#handler(fast), () => checked);
    }
    let entries: ReadonlyMap<string, ServedTool>;
    try {
      entries = await this.#registry();
    } catch (error) {
      this.#running.delete(id);
      return {
        type: "result",
        id,
        ok: false,
        error: toChildError(tool, error),
      };
    }
    const entry = entries.get(tool);
    if (entry === undefined) {
      this.#running.delete(id);
      const served = [...entries.keys()].join(", ");
      return {
        type: "result",
        id,
        ok: false,
        error: {
          kind: "unknown_tool",
          tool,
          message: `The ${this.#name} child has no tool ${tool}: it serves ${served}`,
        },
      };
    }
    const parse = () => entry.args.parse(call.args);
    return await this.#run(call, controller, () => this.#handler(entry), parse);
  }

  /** Check the arguments, load the handler and run it; the result is the call's one answer. */
  async #run(
    call: CallMessage,
    controller: AbortController,
    loadHandler: () => Promise<ToolHandler>,
    parse: () => Args,
  ): Promise<ResultMessage> {
    const { id, tool } = call;
    try {
      const args = parse();
      const handler = await loadHandler();
      controller.signal.throwIfAborted();
      const context = {
        ...this.#services,
        workspace: call.workspace,
        roots: call.roots ?? [],
        grants: call.grants ?? [],
        protect: call.protect ?? [],
        signal: controller.signal,
      };
      return {
        type: "result",
        id,
        ok: true,
        output: await handler(args, context),
      };
    } catch (error) {
      if (controller.signal.aborted) {
        return failure(id, "cancelled", `${tool} was cancelled and stopped`);
      }
      // A ZodError comes from a loaded zod: importing it again costs nothing.
      const prettify = isZodError(error) ? (await import("zod")).prettifyError : undefined;
      return {
        type: "result",
        id,
        ok: false,
        error: toChildError(tool, error, prettify),
      };
    } finally {
      this.#running.delete(id);
    }
  }

  /** The entries by name, listed on first use; a failed listing is retried on the next call. */
  #registry(): Promise<ReadonlyMap<string, ServedTool>> {
    if (this.#entries === null) {
      const listing = this.#listEntries().then((entries) =>
        new Map(entries.map((entry) => [entry.name, entry]))
      );
      listing.catch(() => this.#entries = null);
      this.#entries = listing;
    }
    return this.#entries;
  }

  #handler(entry: ServedTool | FastTool): Promise<ToolHandler> {
    let loading = this.#handlers.get(entry.name);
    if (loading === undefined) {
      loading = this.#load(entry);
      this.#handlers.set(entry.name, loading);
      // A failed load is retried on the next call, and reported by this one.
      loading.catch(() => this.#handlers.delete(entry.name));
    }
    return loading;
  }
}

function failure(
  id: number,
  kind: "invalid_arguments" | "cancelled",
  message: string,
): ResultMessage {
  return { type: "result", id, ok: false, error: { kind, message } };
}

type Parsed =
  | { ok: true; message: CoreMessage }
  | { ok: false; json: unknown; problem: string };

/**
 * A line from the core, without zod: not JSON (as `parseMessage` says it), or a message that
 * passes the fast check; `undefined` when only the protocol's schema can tell.
 */
function quickParse(line: string): Parsed | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (error) {
    return {
      ok: false,
      json: undefined,
      problem: `not JSON (${(error as Error).message})`,
    };
  }
  const message = acceptCoreMessage(json);
  return message === undefined ? undefined : { ok: true, message };
}

/**
 * The verdict of the protocol's schema (`CoreMessageSchema`, imported now) on a line; never
 * rejects (a schema that cannot be imported refuses the line, saying why).
 */
async function parseWithSchema(line: string): Promise<Parsed> {
  try {
    const { CoreMessageSchema, parseMessage } = await import("./child_protocol.ts");
    return parseMessage(CoreMessageSchema, line);
  } catch (error) {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      json = undefined;
    }
    return { ok: false, json, problem: `cannot check it (${(error as Error).message})` };
  }
}
