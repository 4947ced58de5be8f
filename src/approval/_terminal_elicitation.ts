/**
 * The terminal dialogue of an elicitation (private to `approval/`): the request shown with
 * control characters made visible, then one prompt per field, each with its type, default and
 * choices. URL-mode requests show the URL and never open it.
 *
 * @module
 */
import { escapeControl, escapeLine } from "./_render_call.ts";
import type { PromptLines } from "./_tty_lines.ts";
import {
  type ElicitationAnswer,
  type ElicitationField,
  type ElicitationRequest,
  type ElicitationValue,
  fieldDefault,
  parseFieldAnswer,
} from "./elicitation.ts";

/** Tries per field before the whole form is declined. */
const TRIES = 3;

/**
 * Ask `request` on the terminal.
 *
 * @param tty the open terminal
 * @param request what is asked
 * @param maxChars the longest text answer kept
 * @returns the answer: `accept` with the content, or `decline` / `cancel` with the reason
 */
export async function elicitOnTerminal(
  tty: PromptLines,
  request: ElicitationRequest,
  maxChars: number,
): Promise<ElicitationAnswer> {
  const who = escapeLine(request.source);
  const message = escapeControl(request.message).split("\n").map((l) => `  ${l}`).join("\n");
  if (request.mode === "url") {
    await tty.write(
      `\nodek: ${who} asks you to open a URL yourself (odek does not open it):\n${message}\n  ${
        escapeLine(request.url)
      }\ndone? [y]es, [n]o (decline), [c]ancel > `,
    );
    const choice = await choose(tty);
    if (choice === "yes") return { action: "accept", content: {} };
    return refusal(choice);
  }
  const count = request.fields.length;
  await tty.write(
    `\nodek: ${who} asks for input:\n${message}\n  (${count} field${
      count === 1 ? "" : "s"
    }; an empty answer keeps the default in [brackets])\nanswer? [y]es, [n]o (decline), [c]ancel > `,
  );
  const choice = await choose(tty);
  if (choice !== "yes") return refusal(choice);
  const content: Record<string, ElicitationValue> = {};
  for (const field of request.fields) {
    const value = await askField(tty, field, maxChars);
    if (value === null) {
      return {
        action: "cancel",
        reason: "The operator's terminal closed before the form was complete.",
      };
    }
    if (value === "invalid") {
      return {
        action: "decline",
        reason: `The operator gave no valid answer for "${field.name}" in ${TRIES} tries.`,
      };
    }
    if (value !== undefined) content[field.name] = value;
  }
  return { action: "accept", content };
}

async function choose(tty: PromptLines): Promise<"yes" | "no" | "cancel" | "closed"> {
  const line = await tty.readLine();
  if (line === null) return "closed";
  const t = line.trim().toLowerCase();
  if (t === "y" || t === "yes") return "yes";
  if (t === "c" || t === "cancel") return "cancel";
  return "no";
}

function refusal(choice: "no" | "cancel" | "closed"): ElicitationAnswer {
  if (choice === "cancel") return { action: "cancel", reason: "The operator cancelled." };
  if (choice === "closed") {
    return { action: "cancel", reason: "The operator's terminal closed before an answer." };
  }
  return { action: "decline", reason: "The operator declined." };
}

/** A value; `undefined` for an optional field left empty; `null` when the terminal closed. */
async function askField(
  tty: PromptLines,
  field: ElicitationField,
  maxChars: number,
): Promise<ElicitationValue | undefined | null | "invalid"> {
  const fallback = fieldDefault(field);
  for (let attempt = 0; attempt < TRIES; attempt++) {
    await tty.write(prompt(field, fallback));
    const line = await tty.readLine();
    if (line === null) return null;
    const text = line.trim().slice(0, maxChars);
    if (text === "") {
      if (fallback !== undefined) return fallback;
      if (!field.required) return undefined;
      await tty.write("    (required)\n");
      continue;
    }
    const parsed = parseFieldAnswer(field, text);
    if ("value" in parsed) return parsed.value;
    await tty.write(`    (expected ${parsed.problem})\n`);
  }
  return "invalid";
}

function prompt(field: ElicitationField, fallback: ElicitationValue | undefined): string {
  const label = escapeLine(field.title ?? field.name);
  const kind = field.type === "enum"
    ? "one of"
    : field.type === "multi_enum"
    ? "any of, comma-separated"
    : field.type === "boolean"
    ? "yes/no"
    : field.type;
  const lines = [`  ${label} (${kind}${field.required ? ", required" : ""})`];
  if (field.description) lines.push(`    ${escapeLine(field.description)}`);
  if (field.type === "enum" || field.type === "multi_enum") {
    field.options.forEach((o, i) =>
      lines.push(
        `    ${i + 1}) ${escapeLine(o.label)}${o.label === o.value ? "" : ` [${o.value}]`}`,
      )
    );
  }
  const shown = fallback === undefined
    ? ""
    : ` [${escapeLine(Array.isArray(fallback) ? fallback.join(", ") : String(fallback))}]`;
  return `${lines.join("\n")}\n  >${shown} `;
}
