/**
 * Readable text and links from an HTML page, with `html-to-text` (no JavaScript runs: the page is
 * parsed, never executed).
 *
 * @module
 */
import { compile } from "html-to-text";

/** One link of a page. */
export interface PageLink {
  /** The link's number, as it appears in the text (`[3]`). */
  n: number;
  text: string;
  /** Absolute URL. */
  url: string;
}

/** A page as text. */
export interface PageText {
  title: string;
  text: string;
  links: PageLink[];
}

interface Metadata {
  base: URL;
  links: PageLink[];
  maxLinks: number;
}

// deno-lint-ignore no-explicit-any
type Builder = any;
// deno-lint-ignore no-explicit-any
type Elem = any;

const toText = compile({
  wordwrap: false,
  selectors: [
    { selector: "a", format: "numberedLink" },
    { selector: "img", format: "skip" },
    { selector: "head", format: "skip" },
    { selector: "title", format: "skip" },
    { selector: "script", format: "skip" },
    { selector: "style", format: "skip" },
    { selector: "noscript", format: "skip" },
    { selector: "template", format: "skip" },
    { selector: "svg", format: "skip" },
    { selector: "iframe", format: "skip" },
  ],
  formatters: {
    numberedLink(
      elem: Elem,
      walk: (nodes: unknown, builder: Builder) => void,
      builder: Builder,
    ) {
      walk(elem.children, builder);
      const meta = builder.metadata as Metadata;
      const href = typeof elem.attribs?.href === "string" ? elem.attribs.href.trim() : "";
      if (href === "" || href.startsWith("#") || /^javascript:/i.test(href)) {
        return;
      }
      let url: URL;
      try {
        url = new URL(href, meta.base);
      } catch {
        return;
      }
      if (
        !["http:", "https:"].includes(url.protocol) ||
        meta.links.length >= meta.maxLinks
      ) return;
      const n = meta.links.length + 1;
      meta.links.push({
        n,
        text: textOf(elem).replace(/\s+/g, " ").trim().slice(0, 200),
        url: url.href,
      });
      builder.addInline(` [${n}]`);
    },
  },
});

const titleText = compile({
  wordwrap: false,
  baseElements: { selectors: ["title"] },
});

/**
 * Convert an HTML document to readable text with numbered links.
 *
 * @param html the document
 * @param baseUrl the page's URL: relative links are resolved against it (and a `<base href>`)
 * @param maxLinks links kept at most. @default 500
 * @returns the title, the text (`link text [n]`), and the links `[n]` refers to
 *
 * @example
 * ```ts
 * import { htmlToPageText } from "./_html_text.ts";
 * const page = htmlToPageText('<title>T</title><p>Read <a href="/doc">the doc</a>.</p><script>x()</script>', "https://h.test/a/");
 * if (page.title !== "T" || page.text !== "Read the doc [1].") throw new Error(JSON.stringify(page));
 * if (page.links[0].url !== "https://h.test/doc") throw new Error(page.links[0].url);
 * ```
 */
export function htmlToPageText(
  html: string,
  baseUrl: string,
  maxLinks = 500,
): PageText {
  let base = new URL(baseUrl);
  const baseHref = /<base\s[^>]*href\s*=\s*["']?([^"'\s>]+)/i.exec(html)?.[1];
  if (baseHref) {
    try {
      base = new URL(baseHref, base);
    } catch {
      // An unusable <base>: keep the page's URL.
    }
  }
  const meta: Metadata = { base, links: [], maxLinks };
  const text = toText(html, meta).replace(/\n{3,}/g, "\n\n").trim();
  const title = /<title[\s>]/i.test(html) ? titleText(html).replace(/\s+/g, " ").trim() : "";
  return { title, text, links: meta.links };
}

function textOf(elem: Elem): string {
  if (elem.type === "text") return String(elem.data ?? "");
  return (elem.children ?? []).map(textOf).join("");
}
