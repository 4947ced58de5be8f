/**
 * A small GNU sed script reader: enough to find the commands that run programs (`e`,
 * `s///e`), write files (`w`, `W`, `s///w`) and read files (`r`, `R`), with addresses, blocks
 * and `s`/`y` delimiters skipped the way sed reads them.
 *
 * @module
 */

/** One sed command: its letter, its argument to the end of the line, and `s` flags. */
export interface SedCommand {
  name: string;
  arg: string;
  /** For `s`: the flags after the replacement (`g`, `e`, `w FILE` …). */
  flags: string;
}

/** Commands whose argument runs to the end of the line. */
const TO_END_OF_LINE = new Set(["a", "i", "c", "r", "R", "w", "W", "e"]);
/** Commands whose argument (a label or number) ends at `;`. */
const TO_SEMICOLON = new Set([":", "b", "t", "T", "v", "q", "Q", "l", "L"]);

/** The commands of `script`. */
export function sedCommands(script: string): SedCommand[] {
  const out: SedCommand[] = [];
  const n = script.length;
  let i = 0;
  const spaces = () => {
    while (i < n && (script[i] === " " || script[i] === "\t")) i++;
  };
  const until = (stops: string) => {
    const start = i;
    while (i < n && !stops.includes(script[i])) i++;
    return script.slice(start, i);
  };
  const delimited = (delimiter: string) => {
    while (i < n && script[i] !== delimiter) i += script[i] === "\\" ? 2 : 1;
    i++;
  };
  const address = () => {
    if (/[0-9]/.test(script[i] ?? "")) {
      while (/[0-9~]/.test(script[i] ?? "")) i++;
    } else if (script[i] === "$") i++;
    else if (script[i] === "/" || script[i] === "\\") {
      const delimiter = script[i] === "\\" ? script[++i] : "/";
      i++;
      delimited(delimiter);
      while (script[i] === "I" || script[i] === "M") i++;
    }
  };
  while (i < n) {
    while (i < n && /[\s;{}]/.test(script[i])) i++;
    if (i >= n) break;
    if (script[i] === "#") {
      until("\n");
      continue;
    }
    address();
    spaces();
    if (script[i] === ",") {
      i++;
      spaces();
      if (script[i] === "+" || script[i] === "~") i++;
      address();
      spaces();
    }
    if (script[i] === "!") i++;
    spaces();
    const name = script[i++];
    if (name === undefined || name === "{") continue;
    if (name === "s" || name === "y") {
      const delimiter = script[i++] ?? "/";
      delimited(delimiter);
      delimited(delimiter);
      let flags = until(";\n}w");
      if (script[i] === "w") flags += until("\n");
      out.push({ name, arg: "", flags });
    } else if (TO_END_OF_LINE.has(name)) {
      out.push({ name, arg: until("\n").trim(), flags: "" });
    } else if (TO_SEMICOLON.has(name)) {
      out.push({ name, arg: until(";\n}").trim(), flags: "" });
    } else out.push({ name, arg: "", flags: "" });
  }
  return out;
}
