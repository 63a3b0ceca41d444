import { Lexer, Marked, type Token, type Tokens } from 'marked';

/**
 * Markdown → plain text by walking marked's token tree (no regular expressions over Markdown):
 * blocks joined by blank lines, emphasis unwrapped, links as `text (href)`, images as their alt
 * text, list items prefixed with `- ` or `N. `, raw HTML dropped, entities decoded.
 */
const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

export function decodeEntities(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (char === '&') {
      const end = text.indexOf(';', i);
      if (end !== -1 && end - i <= 10) {
        const name = text.slice(i + 1, end);
        let decoded: string | undefined;
        if (name.startsWith('#x') || name.startsWith('#X')) {
          const code = Number.parseInt(name.slice(2), 16);
          if (Number.isFinite(code)) decoded = String.fromCodePoint(code);
        } else if (name.startsWith('#')) {
          const code = Number.parseInt(name.slice(1), 10);
          if (Number.isFinite(code)) decoded = String.fromCodePoint(code);
        } else {
          decoded = NAMED_ENTITIES[name];
        }
        if (decoded !== undefined) {
          out += decoded;
          i = end + 1;
          continue;
        }
      }
    }
    out += char;
    i += 1;
  }
  return out;
}

function inline(tokens: Token[] | undefined): string {
  let out = '';
  for (const token of tokens ?? []) {
    switch (token.type) {
      case 'strong':
      case 'em':
      case 'del':
        out += inline((token as Tokens.Strong).tokens);
        break;
      case 'codespan':
        out += (token as Tokens.Codespan).text;
        break;
      case 'link': {
        const link = token as Tokens.Link;
        const text = inline(link.tokens);
        out += text === link.href || text === '' ? link.href : `${text} (${link.href})`;
        break;
      }
      case 'image':
        out += (token as Tokens.Image).text;
        break;
      case 'br':
        out += '\n';
        break;
      case 'html':
        break;
      case 'escape':
        out += (token as Tokens.Escape).text;
        break;
      case 'text': {
        const text = token as Tokens.Text;
        out += text.tokens ? inline(text.tokens) : text.text;
        break;
      }
      default:
        out += 'tokens' in token && Array.isArray(token.tokens) ? inline(token.tokens) : (token.raw ?? '');
    }
  }
  return out;
}

function blocks(tokens: Token[]): string[] {
  const parts: string[] = [];
  for (const token of tokens) {
    switch (token.type) {
      case 'space':
      case 'hr':
      case 'html':
      case 'def':
        break;
      case 'heading':
      case 'paragraph':
        parts.push(inline((token as Tokens.Heading).tokens));
        break;
      case 'text': {
        const text = token as Tokens.Text;
        parts.push(text.tokens ? inline(text.tokens) : text.text);
        break;
      }
      case 'code':
        parts.push((token as Tokens.Code).text);
        break;
      case 'blockquote':
        parts.push(...blocks((token as Tokens.Blockquote).tokens));
        break;
      case 'list': {
        const list = token as Tokens.List;
        const start = typeof list.start === 'number' ? list.start : 1;
        const items = list.items.map((item, n) => {
          const prefix = list.ordered ? `${start + n}. ` : '- ';
          return prefix + blocks(item.tokens).join('\n');
        });
        parts.push(items.join('\n'));
        break;
      }
      case 'table': {
        const table = token as Tokens.Table;
        const rows = [table.header, ...table.rows].map((row) =>
          row.map((cell) => inline(cell.tokens)).join('\t'),
        );
        parts.push(rows.join('\n'));
        break;
      }
      default:
        parts.push(token.raw.trim());
    }
  }
  return parts.filter((part) => part !== '');
}

export function markdownToPlaintext(markdown: string): string {
  if (markdown === '') return '';
  return decodeEntities(blocks(Lexer.lex(markdown)).join('\n\n')).trim();
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const SAFE_SCHEMES = new Set(['http', 'https', 'mailto']);

/** A link target outside http(s)/mailto (javascript:, data:, vbscript:, ...); relative links are fine. */
export function isDangerousUrl(href: string): boolean {
  // Browsers ignore ASCII control characters and spaces inside a scheme (`java\tscript:`).
  let compact = '';
  for (const char of href) if (char.charCodeAt(0) > 0x20) compact += char;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(compact)?.[1];
  return scheme !== undefined && !SAFE_SCHEMES.has(scheme.toLowerCase());
}

/**
 * Markdown → HTML for the HTML part of emails. Raw HTML in the Markdown is shown as text and
 * links or images with a dangerous scheme lose their target: the free-text labels of custom
 * notifications reach this unescaped.
 */
const emailMarkdown = new Marked({
  async: false,
  renderer: {
    html(token) {
      return escapeHtml(token.text);
    },
    link(token) {
      return isDangerousUrl(token.href) ? this.parser.parseInline(token.tokens) : false;
    },
    image(token) {
      return isDangerousUrl(token.href) ? escapeHtml(token.text) : false;
    },
  },
});

export function markdownToHtml(markdown: string): string {
  return emailMarkdown.parse(markdown, { async: false });
}
