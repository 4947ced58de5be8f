/**
 * Approvals of 2026-07-28 requests (private to `mcp/`, loads the SDK): that revision has no
 * server-to-client request mid-call, so a direct tool call that would ask is answered with an
 * input-required result (SEP-2322) — an embedded form elicitation, and a `requestState` sealed
 * with HMAC-SHA256 (the SDK's codec, a key of this process) naming the tool and a digest of its
 * arguments. The client answers by calling again with the same arguments, the state and its
 * response; the call then runs with that answer (a state for other arguments is ignored and the
 * question asked again). The first round's run stops at the question: the call never ran.
 *
 * @module
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ElicitForm, ElicitReply, McpAsker } from "./_serve_operator.ts";

/** What the state carries. */
interface ApprovalState {
  tool: string;
  digest: string;
}

/** Thrown by the asker of a first round: the question goes back as an input-required result. */
export class InputNeeded extends Error {
  readonly form: ElicitForm;
  constructor(form: ElicitForm) {
    super("the MCP client is asked through an input-required result");
    this.form = form;
  }
}

/** The key under which the answer comes back in `inputResponses`. */
const KEY = "odek_approval";

/** Input-required approvals of one server process. */
export class ModernApprovals {
  readonly codec: RequestStateCodec<ApprovalState>;

  constructor() {
    const key = crypto.getRandomValues(new Uint8Array(32));
    this.codec = createRequestStateCodec<ApprovalState>({
      key,
      ttlSeconds: 600,
      bind: (ctx) => ctx.mcpReq.method,
    });
  }

  /**
   * The asker of one modern request for `tool` with `args`: with a verified state for the same
   * call and a response, it answers the first question with that response; otherwise it throws
   * {@linkcode InputNeeded} (after which the caller returns {@linkcode ModernApprovals.ask}).
   */
  async asker(
    ctx: ServerContext,
    tool: string,
    args: unknown,
  ): Promise<McpAsker & { needed?: ElicitForm }> {
    // The SDK moves the envelope's keys out of `_meta`; read either place.
    const meta = (ctx.mcpReq._meta ?? {}) as Record<string, unknown>;
    const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
    const capabilities = (envelope[CLIENT_CAPABILITIES_META_KEY] ?? envelope.clientCapabilities ??
      meta[CLIENT_CAPABILITIES_META_KEY]) as Record<string, unknown> | undefined;
    const digest = await digestOf(tool, args);
    const state = ctx.mcpReq.requestState<ApprovalState>();
    const response = ctx.mcpReq.inputResponses?.[KEY] as
      | { action?: string; content?: Record<string, unknown> }
      | undefined;
    let answer: ElicitReply | undefined = state?.tool === tool && state.digest === digest &&
        response && ["accept", "decline", "cancel"].includes(String(response.action))
      ? {
        action: response.action as ElicitReply["action"],
        ...(response.content ? { content: response.content } : {}),
      }
      : undefined;
    const asker: McpAsker & { needed?: ElicitForm } = {
      cannotAsk: capabilities?.elicitation === undefined
        ? "the MCP client does not support elicitation"
        : undefined,
      elicit(form: ElicitForm): Promise<ElicitReply> {
        if (answer) {
          const reply = answer;
          answer = undefined;
          return Promise.resolve(reply);
        }
        asker.needed = form;
        return Promise.reject(new InputNeeded(form));
      },
    };
    return asker;
  }

  /** The input-required result that puts `form` to the client for this call. */
  async ask(
    ctx: ServerContext,
    tool: string,
    args: unknown,
    form: ElicitForm,
  ): Promise<InputRequiredResult> {
    const requestState = await this.codec.mint({ tool, digest: await digestOf(tool, args) }, ctx);
    return inputRequired({
      inputRequests: {
        [KEY]: inputRequired.elicit({
          message: form.message,
          requestedSchema: form.requestedSchema as never,
        }),
      },
      requestState,
    });
  }
}

async function digestOf(tool: string, args: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(`${tool}\u0000${JSON.stringify(args ?? {})}`);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
