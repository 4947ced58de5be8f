/**
 * Terminal and Unicode neutralising: remove what can make text display differently from what it
 * says (escape sequences, bidi controls) or hide text altogether (Unicode tag characters,
 * zero-width runs), and count what was removed so the model and the operator can be told.
 *
 * @module
 */

/** The kinds of content {@linkcode neutralizeText} removes. */
export type NeutralizedKind =
  | "ansi_csi"
  | "ansi_osc"
  | "osc8_hyperlink"
  | "ansi_other"
  | "c1_control"
  | "c0_control"
  | "bidi_control"
  | "unicode_tag"
  | "variation_selector"
  | "zero_width";

/** What {@linkcode neutralizeText} returns. */
export interface NeutralizedText {
  /** The text without the removed parts. */
  text: string;
  /** How many of each kind were removed (kinds with none are absent). */
  removed: Partial<Record<NeutralizedKind, number>>;
}

const SEQUENCES = new RegExp(
  [
    // OSC (incl. OSC 8 hyperlinks): ESC ] or 8-bit OSC, up to BEL, ST, or the end of the line.
    String.raw`(?:\x1b\]|\x9d)[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?`,
    // DCS, SOS, PM, APC strings up to ST or the end of the line.
    String.raw`(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c\n]*(?:\x1b\\|\x9c)?`,
    // CSI (cursor moves, clear screen, colours): ESC [ or 8-bit CSI, params, final byte.
    String.raw`(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?`,
    // Any other escape: ESC, intermediates, final byte (or a lone ESC).
    String.raw`\x1b[\x20-\x2f]*[\x30-\x7e]?`,
    String.raw`[\x80-\x9f]`,
    // C0 controls except tab, line feed and carriage return; DEL.
    String.raw`[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]`,
    String.raw`[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]`,
    String.raw`[\u{e0000}-\u{e007f}]`,
    // Supplementary variation selectors, and runs of the basic ones (one FE0F is ordinary emoji).
    String.raw`[\u{e0100}-\u{e01ef}]|[\ufe00-\ufe0f]{2,}`,
    // Zero-width characters: always the ones that have no visible use, and runs of two or more
    // including ZWJ/ZWNJ (a single ZWJ joins emoji, a single ZWNJ shapes Persian and Indic text).
    String
      .raw`[\u200b-\u200d\u2060-\u2064\ufeff\u180e]{2,}|[\u200b\u2060-\u2064\ufeff\u180e]`,
  ].join("|"),
  "gu",
);

/**
 * Remove escape sequences, control characters and invisible or direction-changing Unicode from
 * `text`, keeping tab, line feed and carriage return, and a byte-order mark at the very start:
 *
 * - `ansi_csi`: CSI sequences (`ESC [ … final`, 8-bit `0x9B`): colours, cursor moves, clear screen;
 * - `ansi_osc` / `osc8_hyperlink`: OSC sequences (`ESC ] … BEL|ST`): titles, clipboard, and OSC 8
 *   hyperlinks (the link's visible text stays, its hidden target goes);
 * - `ansi_other`: other escapes (`ESC c`, `ESC 7`, DCS/SOS/PM/APC strings), a lone ESC;
 * - `c1_control` (U+0080–U+009F) and `c0_control` (U+0000–U+001F except tab, LF, CR; DEL);
 * - `bidi_control`: U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C;
 * - `unicode_tag`: U+E0000–U+E007F (invisible ASCII, "ASCII smuggling");
 * - `variation_selector`: U+E0100–U+E01EF, and runs of two or more of U+FE00–U+FE0F;
 * - `zero_width`: U+200B, U+2060–U+2064, U+FEFF (past the start), U+180E, and runs of two or more
 *   zero-width characters including U+200C/U+200D.
 *
 * An unterminated OSC or DCS string is removed to the end of its line.
 *
 * @param text any text
 * @returns the neutralised text and the count of each removed kind
 *
 * @example Clear screen, a bidi override and a hidden tag string
 * ```ts
 * import { neutralizeText } from "./neutralize_text.ts";
 * const { text, removed } = neutralizeText("\x1b[2Jok \u202Eabc\u{E0041}\u{E0042}");
 * if (text !== "ok abc") throw new Error(JSON.stringify(text));
 * if (removed.ansi_csi !== 1 || removed.bidi_control !== 1 || removed.unicode_tag !== 2) {
 *   throw new Error(JSON.stringify(removed));
 * }
 * ```
 */
export function neutralizeText(text: string): NeutralizedText {
  const removed: Partial<Record<NeutralizedKind, number>> = {};
  const regex = new RegExp(SEQUENCES.source, SEQUENCES.flags);
  let out = "";
  let copied = 0;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    if (match.index === 0 && match[0] === "\ufeff") continue; // a byte-order mark stays
    const kind = kindOf(match[0]);
    removed[kind] = (removed[kind] ?? 0) + 1;
    out += text.slice(copied, match.index);
    copied = match.index + match[0].length;
  }
  return { text: copied === 0 ? text : out + text.slice(copied), removed };
}

/** The kind of a removed match, from its first characters. */
function kindOf(match: string): NeutralizedKind {
  const first = match.charCodeAt(0);
  if (first === 0x1b || first === 0x9d || first === 0x9b) {
    const introducer = first === 0x1b ? match[1] : first === 0x9d ? "]" : "[";
    if (introducer === "[") return "ansi_csi";
    if (introducer !== "]") return "ansi_other";
    return match.startsWith("8;", first === 0x1b ? 2 : 1) ? "osc8_hyperlink" : "ansi_osc";
  }
  if (first === 0x90 || first === 0x98 || first === 0x9e || first === 0x9f) return "ansi_other";
  if (first >= 0x80 && first <= 0x9f) return "c1_control";
  if (first < 0x20 || first === 0x7f) return "c0_control";
  const point = match.codePointAt(0)!;
  if (point >= 0xe0000 && point <= 0xe007f) return "unicode_tag";
  if (point >= 0xe0100 || (point >= 0xfe00 && point <= 0xfe0f)) return "variation_selector";
  if (
    (point >= 0x202a && point <= 0x202e) || (point >= 0x2066 && point <= 0x2069) ||
    point === 0x200e || point === 0x200f || point === 0x061c
  ) return "bidi_control";
  return "zero_width";
}

/** Human words for each kind, used in notes to the model and the operator. */
export const NEUTRALIZED_KIND_LABELS: Readonly<Record<NeutralizedKind, string>> = {
  ansi_csi: "ANSI escape sequences (colours, cursor moves, screen clears)",
  ansi_osc: "OSC escape sequences (window title, clipboard)",
  osc8_hyperlink: "OSC 8 hyperlink sequences (hidden link targets)",
  ansi_other: "other terminal escape sequences",
  c1_control: "C1 control characters",
  c0_control: "control characters",
  bidi_control: "bidirectional-text controls (can reorder how text displays)",
  unicode_tag: "invisible Unicode tag characters (can hide text)",
  variation_selector: "invisible variation selectors (can hide data)",
  zero_width: "zero-width characters",
};
