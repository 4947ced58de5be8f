/**
 * Redaction of a recorded stream as a whole: a secret the model spread over several chunks is
 * found in the reassembled text of its channel, not chunk by chunk.
 *
 * @module
 */

/** Where one piece of a channel lives: the object holding it and the key. */
type Slot = { holder: Record<string, unknown>; key: string };

/**
 * Redact streamed chat-completion chunks (parsed SSE payloads, copied first). For each channel —
 * a choice's `content`, its `reasoning_content`, and each tool call's `function.arguments` — the
 * pieces are joined; when the joined text holds a secret, the redacted whole goes into the
 * channel's first piece and the other pieces become empty strings, so the stream still
 * reassembles to the redacted text. Every other string is redacted on its own.
 *
 * @param chunks the payloads as collected (objects, or strings for non-JSON lines)
 * @param redact the redactor
 * @returns redacted copies
 */
export function redactChunks(
  chunks: readonly unknown[],
  redact: (text: string) => string,
): unknown[] {
  const copies = structuredClone(chunks) as unknown[];
  const channels = new Map<string, Slot[]>();
  const add = (name: string, holder: Record<string, unknown>, key: string) => {
    if (typeof holder[key] !== "string") return;
    const slots = channels.get(name) ?? [];
    slots.push({ holder, key });
    channels.set(name, slots);
  };
  for (const chunk of copies) {
    const choices = (chunk as { choices?: unknown })?.choices;
    if (!Array.isArray(choices)) continue;
    for (const choice of choices) {
      const delta = (choice as { delta?: Record<string, unknown> })?.delta;
      if (!delta || typeof delta !== "object") continue;
      const at = (choice as { index?: number }).index ?? 0;
      add(`${at}/content`, delta, "content");
      add(`${at}/reasoning`, delta, "reasoning_content");
      for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        const fn = (call as { function?: Record<string, unknown> })?.function;
        if (fn && typeof fn === "object") {
          add(`${at}/tool/${(call as { index?: number }).index ?? 0}`, fn, "arguments");
        }
      }
    }
  }
  const done = new Set<Slot>();
  for (const slots of channels.values()) {
    const joined = slots.map(({ holder, key }) => holder[key] as string).join("");
    const redacted = redact(joined);
    if (redacted === joined) continue;
    slots.forEach(({ holder, key }, i) => (holder[key] = i === 0 ? redacted : ""));
    for (const slot of slots) done.add(slot);
  }
  return copies.map((chunk) => redactOthers(chunk, redact, done));
}

function redactOthers(value: unknown, redact: (text: string) => string, done: Set<Slot>): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactOthers(item, redact, done));
  if (value === null || typeof value !== "object") return value;
  const object = value as Record<string, unknown>;
  for (const [key, item] of Object.entries(object)) {
    const settled = [...done].some((slot) => slot.holder === object && slot.key === key);
    if (!settled) object[key] = redactOthers(item, redact, done);
  }
  return object;
}
