/**
 * Text-level helpers of word evaluation: ANSI-C strings and `${…}` operators.
 *
 * @module
 */

const SIMPLE_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Decode the body of `$'…'` (also `echo -e` and `printf` escapes). */
export function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (whole, esc: string) => {
      const head = esc[0];
      if (head === "x" || head === "u" || head === "U") {
        const code = parseInt(esc.slice(1), 16);
        return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      if (/[0-7]/.test(head)) return String.fromCharCode(parseInt(esc, 8) & 0xff);
      if (head === "c") return String.fromCharCode(esc.charCodeAt(1) & 0x1f);
      return SIMPLE_ESCAPES[head] ?? whole;
    },
  );
}

/** A parsed `${name<operator><operand>}`. */
export interface ExpansionOperator {
  name: string;
  /** `""` for plain `${name}`. */
  operator: string;
  /** Offset of the operand in the expansion's text. */
  operandStart: number;
  /** For value-transforming operators with a static operand: the transformation. */
  apply: ((value: string) => string) | null;
}

function globToRegExp(pattern: string): string {
  return pattern.replace(/[.+^${}()|\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
}

function transform(operator: string, operand: string): ((value: string) => string) | null {
  if (/[$`"']/.test(operand)) return null;
  const glob = globToRegExp(operand);
  switch (operator) {
    case "#":
    case "##": {
      const re = new RegExp(`^${operator === "#" ? glob.replace(/\.\*/g, ".*?") : glob}`, "s");
      return (v) => v.replace(re, "");
    }
    case "%":
    case "%%": {
      const re = new RegExp(`${operator === "%" ? glob : glob.replace(/\.\*/g, ".*?")}$`, "s");
      return (v) => {
        if (operator === "%") {
          for (let i = v.length; i >= 0; i--) {
            if (new RegExp(`^${glob}$`, "s").test(v.slice(i))) return v.slice(0, i);
          }
          return v;
        }
        return v.replace(re, "");
      };
    }
    case "/":
    case "//": {
      const slash = operand.indexOf("/");
      const [pattern, replacement] = slash < 0
        ? [operand, ""]
        : [operand.slice(0, slash), operand.slice(slash + 1)];
      const re = new RegExp(globToRegExp(pattern), operator === "//" ? "gs" : "s");
      return (v) => v.replace(re, () => replacement);
    }
    case ",,":
    case ",":
      return operand === "" ? (v) => v.toLowerCase() : null;
    case "^^":
    case "^":
      return operand === "" ? (v) => v.toUpperCase() : null;
    case ":": {
      const m = /^\s*(\d+)\s*(?::\s*(\d+)\s*)?$/.exec(operand);
      if (!m) return null;
      const from = Number(m[1]);
      return (v) => (m[2] === undefined ? v.slice(from) : v.slice(from, from + Number(m[2])));
    }
    default:
      return null;
  }
}

/** Parse the text of a `${…}` expansion; null for indirection, lengths and arrays' keys. */
export function expansionOperator(text: string): ExpansionOperator | null {
  if (!text.startsWith("${") || !text.endsWith("}")) return null;
  const inner = text.slice(2, -1);
  const name = /^([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*?$!#-])(\[[^\]]*\])?/.exec(inner);
  if (!name || inner.startsWith("!") || (inner.startsWith("#") && inner.length > 1)) return null;
  const rest = inner.slice(name[0].length);
  const op = /^(:-|:=|:\+|:\?|-|=|\+|\?|%%|%|##|#|\/\/|\/#|\/%|\/|\^\^|\^|,,|,|:|@)?/.exec(rest)!;
  const operator = op[1] ?? "";
  const operandStart = 2 + name[0].length + operator.length;
  const operand = text.slice(operandStart, -1);
  if (operator === "" && operand !== "") return null;
  const defaults = [":-", "-", ":=", "=", ":+", "+", ":?", "?", ""];
  return {
    name: name[1],
    operator: defaults.includes(operator)
      ? operator
      : operator === "/#" || operator === "/%"
      ? "/"
      : operator,
    operandStart,
    apply: defaults.includes(operator) ? null : transform(operator, operand),
  };
}
