import assert from "node:assert/strict";
import { neutralizeText } from "../../src/_util/neutralize_text.ts";

const ESC = "\u001b";

Deno.test("neutralizeText() removes each kind and counts it", async (t) => {
  const cases: [string, string, string, Record<string, number>][] = [
    ["clear screen and home", `${ESC}[2J${ESC}[Hhi`, "hi", { ansi_csi: 2 }],
    ["colours", `${ESC}[1;31mred${ESC}[0m`, "red", { ansi_csi: 2 }],
    ["8-bit CSI", "\u009b2Jx", "x", { ansi_csi: 1 }],
    ["window title (BEL)", `${ESC}]0;owned\u0007x`, "x", { ansi_osc: 1 }],
    ["clipboard (ST)", `${ESC}]52;c;ZXZpbA==${ESC}\\x`, "x", { ansi_osc: 1 }],
    [
      "OSC 8 hyperlink keeps its text",
      `${ESC}]8;;https://evil.example/${ESC}\\docs${ESC}]8;;${ESC}\\`,
      "docs",
      { osc8_hyperlink: 2 },
    ],
    ["unterminated OSC stops at the line end", `${ESC}]0;title\nnext`, "\nnext", { ansi_osc: 1 }],
    ["reset and keypad", `${ESC}c${ESC}=x`, "x", { ansi_other: 2 }],
    ["DCS string", `${ESC}Pq#0;2;0;0;0${ESC}\\x`, "x", { ansi_other: 1 }],
    ["lone ESC", `x${ESC}`, "x", { ansi_other: 1 }],
    ["C1 control", "a\u0085b", "ab", { c1_control: 1 }],
    ["C0 controls", "a\u0000b\u0008c\u007f", "abc", { c0_control: 3 }],
    ["bidi override", "invoice\u202Etxt.exe", "invoicetxt.exe", { bidi_control: 1 }],
    ["bidi isolates and marks", "\u2066a\u2069\u200Eb\u200F\u061C", "ab", { bidi_control: 5 }],
    ["tag characters", "ok\u{E0041}\u{E0042}\u{E007F}", "ok", { unicode_tag: 3 }],
    ["supplementary variation selector", "a\u{E0100}b", "ab", { variation_selector: 1 }],
    ["run of basic variation selectors", "a\uFE00\uFE01b", "ab", { variation_selector: 1 }],
    ["zero-width space", "a\u200Bb", "ab", { zero_width: 1 }],
    ["zero-width run", "a\u200C\u200D\u200Cb", "ab", { zero_width: 1 }],
    ["BOM past the start", "a\uFEFFb", "ab", { zero_width: 1 }],
  ];
  for (const [name, input, text, removed] of cases) {
    await t.step(name, () => assert.deepEqual(neutralizeText(input), { text, removed }));
  }
});

Deno.test("neutralizeText() keeps ordinary text, layout characters and legitimate joiners", () => {
  const text = "tab\there\r\nline é 中文 ✓ 👨‍👩‍👧 ❤️ می‌خواهم\n\uFEFF is kept only at the start";
  const withBom = `\uFEFF${text.replace("\uFEFF", "")}`;
  assert.deepEqual(neutralizeText(withBom), { text: withBom, removed: {} });
});
