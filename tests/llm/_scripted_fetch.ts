/**
 * An in-process fetch for model-client tests: answers from a list of response factories and
 * counts the calls. No network.
 *
 * @module
 */

/** One answer: a response, a rejection, or a function of the request's signal. */
export type Answer = Response | Error | ((signal: AbortSignal | undefined) => Promise<Response>);

/** A fetch that answers the Nth call with `answers[N]` (the last one repeats). */
export function scriptedFetch(answers: Answer[]): typeof fetch & { calls: number } {
  const fn = ((_input: RequestInfo | URL, init?: RequestInit) => {
    const answer = answers[Math.min(fn.calls, answers.length - 1)];
    fn.calls++;
    if (answer instanceof Error) return Promise.reject(answer);
    if (typeof answer === "function") return answer(init?.signal ?? undefined);
    return Promise.resolve(answer.clone());
  }) as typeof fetch & { calls: number };
  fn.calls = 0;
  return fn;
}

const encoder = new TextEncoder();

/** A streamed answer of `text` in two pieces with a finish reason and `[DONE]`. */
export function sseAnswer(text = "hello world", options: { finish?: boolean } = {}): Response {
  const half = Math.ceil(text.length / 2);
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const frames = [chunk({ content: text.slice(0, half) }), chunk({ content: text.slice(half) })];
  if (options.finish !== false) frames.push(chunk({}, "stop"), "data: [DONE]\n\n");
  return new Response(frames.join(""), { headers: { "content-type": "text/event-stream" } });
}

/** An HTTP error answer with an OpenAI-style body. */
export function errorAnswer(
  status: number,
  error: Record<string, unknown> = { message: `scripted ${status}` },
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ error }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A streamed body: `frames` at once, then nothing until the signal aborts (or `trickleMs` bytes). */
export function stalledAnswer(frames: string[], trickleMs?: number): Answer {
  return (signal) => {
    let timer: ReturnType<typeof setInterval> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const frame of frames) controller.enqueue(encoder.encode(frame));
        if (trickleMs) {
          timer = setInterval(() => controller.enqueue(encoder.encode(": ping\n\n")), trickleMs);
        }
        signal?.addEventListener("abort", () => {
          clearInterval(timer);
          controller.error(signal.reason);
        }, { once: true });
      },
      cancel() {
        clearInterval(timer);
      },
    });
    return Promise.resolve(
      new Response(body, { headers: { "content-type": "text/event-stream" } }),
    );
  };
}

/** A fetch that never answers until its signal aborts. */
export const silentAnswer: Answer = (signal) =>
  new Promise((_, reject) =>
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true })
  );
