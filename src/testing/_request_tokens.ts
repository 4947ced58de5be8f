/**
 * The fake server's own token count of a request, and its context-length refusal. Deliberately
 * independent of odek's estimator: a test that checks "under the window" trusts this count.
 *
 * @module
 */

/**
 * Tokens of a chat-completions request body as the fake counts them:
 * `ceil((B(messages) + B(tools)) / 4)`, where `B(x)` is the UTF-8 byte length of
 * `JSON.stringify(x)` (so every key, quote, escape and comma of the wire form counts) and a
 * missing `messages` or `tools` counts 0 bytes. Nothing else in the body (model, stream,
 * max_tokens …) counts.
 *
 * @param body the parsed request body
 * @returns the token count
 */
export function countRequestTokens(body: { messages?: unknown; tools?: unknown }): number {
  const encoder = new TextEncoder();
  const bytes = (value: unknown) =>
    value === undefined ? 0 : encoder.encode(JSON.stringify(value)).length;
  return Math.ceil((bytes(body.messages) + bytes(body.tools)) / 4);
}

/**
 * The body of an OpenAI-style context-length refusal (HTTP 400), as OpenAI words it.
 *
 * @param window the window in tokens
 * @param tokens the request's count
 */
export function contextLengthErrorBody(window: number, tokens: number): string {
  return JSON.stringify({
    error: {
      message: `This model's maximum context length is ${window} tokens. However, your ` +
        `messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    },
  });
}
