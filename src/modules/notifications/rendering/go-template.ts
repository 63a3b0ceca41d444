/**
 * A small subset of Go's text/template, enough for Coder-style notification templates:
 * text; `{{ .Field.Path }}`; `{{ base_url }}`; pipelines (`{{ .UserEmail | urlquery }}`);
 * `{{ if X }}…{{ else if Y }}…{{ else }}…{{ end }}` with `not`, `and`, `or`, `eq`, `ne`;
 * string and number literals; trim markers `{{-` and `-}}`. A missing key renders as "".
 * Parse errors throw TemplateError (a permanent failure for the message being rendered).
 */
export class TemplateError extends Error {}

type Operand =
  | { kind: 'field'; path: string[] }
  | { kind: 'literal'; value: unknown }
  | { kind: 'call'; name: string }
  | { kind: 'group'; pipeline: Pipeline };
type Command = Operand[];
type Pipeline = Command[];
type Node =
  | { type: 'text'; value: string }
  | { type: 'output'; pipeline: Pipeline }
  | { type: 'if'; branches: { cond: Pipeline; body: Node[] }[]; otherwise: Node[] };

export interface TemplateContext {
  /** The dot: Go-side field names (UserName, Labels, Data, ...). */
  data: Record<string, unknown>;
  baseUrl: string;
}

const FUNCTIONS = new Set(['base_url', 'urlquery', 'not', 'and', 'or', 'eq', 'ne', 'len', 'print']);

interface Segment {
  kind: 'text' | 'action';
  value: string;
}

function split(source: string): Segment[] {
  const segments: Segment[] = [];
  let position = 0;
  let trimNext = false;
  while (position < source.length) {
    const open = source.indexOf('{{', position);
    let text = open === -1 ? source.slice(position) : source.slice(position, open);
    if (trimNext) text = text.replace(/^\s+/, '');
    trimNext = false;
    if (open === -1) {
      if (text) segments.push({ kind: 'text', value: text });
      break;
    }
    const close = source.indexOf('}}', open + 2);
    if (close === -1) throw new TemplateError('unclosed action');
    let inner = source.slice(open + 2, close);
    if (/^-\s/.test(inner) || inner === '-') {
      text = text.replace(/\s+$/, '');
      inner = inner.slice(1);
    }
    if (/\s-$/.test(inner)) {
      trimNext = true;
      inner = inner.slice(0, -1);
    }
    if (text) segments.push({ kind: 'text', value: text });
    segments.push({ kind: 'action', value: inner.trim() });
    position = close + 2;
  }
  return segments;
}

function tokenize(action: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < action.length) {
    const char = action[i]!;
    if (/\s/.test(char)) {
      i += 1;
    } else if (char === '"' || char === '`') {
      let j = i + 1;
      while (j < action.length && action[j] !== char) j += action[j] === '\\' && char === '"' ? 2 : 1;
      if (j >= action.length) throw new TemplateError('unterminated string');
      tokens.push(action.slice(i, j + 1));
      i = j + 1;
    } else if ('|()'.includes(char)) {
      tokens.push(char);
      i += 1;
    } else {
      let j = i;
      while (j < action.length && !/[\s|()]/.test(action[j]!)) j += 1;
      tokens.push(action.slice(i, j));
      i = j;
    }
  }
  return tokens;
}

function parsePipeline(tokens: string[], start = 0, closing?: string): { pipeline: Pipeline; next: number } {
  const pipeline: Pipeline = [];
  let command: Command = [];
  let i = start;
  for (; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token === closing) break;
    if (token === '|') {
      if (command.length === 0) throw new TemplateError('missing command before |');
      pipeline.push(command);
      command = [];
    } else if (token === '(') {
      const inner = parsePipeline(tokens, i + 1, ')');
      if (tokens[inner.next] !== ')') throw new TemplateError('unclosed (');
      command.push({ kind: 'group', pipeline: inner.pipeline });
      i = inner.next;
    } else if (token === ')') {
      throw new TemplateError('unexpected )');
    } else {
      command.push(parseOperand(token));
    }
  }
  if (command.length === 0) throw new TemplateError('empty command');
  pipeline.push(command);
  return { pipeline, next: i };
}

function parseOperand(token: string): Operand {
  if (token === '.') return { kind: 'field', path: [] };
  if (token.startsWith('.')) {
    const path = token.slice(1).split('.');
    if (path.some((part) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(part)))
      throw new TemplateError(`bad field ${token}`);
    return { kind: 'field', path };
  }
  if (token.startsWith('"')) return { kind: 'literal', value: JSON.parse(token) as string };
  if (token.startsWith('`')) return { kind: 'literal', value: token.slice(1, -1) };
  if (/^-?\d+(\.\d+)?$/.test(token)) return { kind: 'literal', value: Number(token) };
  if (token === 'true' || token === 'false') return { kind: 'literal', value: token === 'true' };
  if (token === 'nil') return { kind: 'literal', value: null };
  if (FUNCTIONS.has(token)) return { kind: 'call', name: token };
  throw new TemplateError(`function "${token}" not defined`);
}

function parseNodes(
  segments: Segment[],
  index: { i: number },
  stopAt: string[],
): { nodes: Node[]; stop: string } {
  const nodes: Node[] = [];
  while (index.i < segments.length) {
    const segment = segments[index.i]!;
    index.i += 1;
    if (segment.kind === 'text') {
      nodes.push({ type: 'text', value: segment.value });
      continue;
    }
    const action = segment.value;
    if (action.startsWith('/*')) continue; // comment
    const tokens = tokenize(action);
    const head = tokens[0];
    if (head === 'end' || head === 'else') {
      if (!stopAt.includes(head)) throw new TemplateError(`unexpected {{${head}}}`);
      index.i -= 1;
      return { nodes, stop: head };
    }
    if (head === 'if') {
      nodes.push(parseIf(tokens.slice(1), segments, index));
      continue;
    }
    if (head === 'range' || head === 'with' || head === 'define' || head === 'template' || head === 'block') {
      throw new TemplateError(`unsupported action ${head}`);
    }
    if (tokens.length === 0) throw new TemplateError('missing value for command');
    nodes.push({ type: 'output', pipeline: parsePipeline(tokens).pipeline });
  }
  if (stopAt.length > 0) throw new TemplateError('unexpected EOF');
  return { nodes, stop: '' };
}

function parseIf(condition: string[], segments: Segment[], index: { i: number }): Node {
  if (condition.length === 0) throw new TemplateError('missing value for if');
  const branches: { cond: Pipeline; body: Node[] }[] = [];
  let otherwise: Node[] = [];
  let cond = parsePipeline(condition).pipeline;
  for (;;) {
    const { nodes, stop } = parseNodes(segments, index, ['end', 'else']);
    branches.push({ cond, body: nodes });
    const tokens = tokenize(segments[index.i]!.value);
    index.i += 1;
    if (stop === 'end') break;
    if (tokens[1] === 'if') {
      cond = parsePipeline(tokens.slice(2)).pipeline;
      continue;
    }
    const rest = parseNodes(segments, index, ['end']);
    otherwise = rest.nodes;
    index.i += 1;
    break;
  }
  return { type: 'if', branches, otherwise };
}

export function truthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === '' || value === 0) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

function print(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Go's url.QueryEscape. */
export function queryEscape(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

function evaluatePipeline(pipeline: Pipeline, context: TemplateContext): unknown {
  let piped: unknown;
  let hasPiped = false;
  for (const command of pipeline) {
    const [first, ...rest] = command;
    let value: unknown;
    if (first!.kind === 'call') {
      const args = rest.map((operand) => evaluateOperand(operand, context));
      if (hasPiped) args.push(piped);
      value = call(first!.name, args, context);
    } else {
      if (rest.length > 0 || hasPiped) throw new TemplateError("can't give argument to non-function");
      value = evaluateOperand(first!, context);
    }
    piped = value;
    hasPiped = true;
  }
  return piped;
}

function evaluateOperand(operand: Operand, context: TemplateContext): unknown {
  switch (operand.kind) {
    case 'literal':
      return operand.value;
    case 'group':
      return evaluatePipeline(operand.pipeline, context);
    case 'call':
      return call(operand.name, [], context);
    case 'field': {
      let value: unknown = context.data;
      for (const part of operand.path) {
        // Own fields only: `.Labels.constructor` is a missing key, not Object's constructor.
        if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return undefined;
        value = (value as Record<string, unknown>)[part];
      }
      return value;
    }
  }
}

function call(name: string, args: unknown[], context: TemplateContext): unknown {
  switch (name) {
    case 'base_url':
      return context.baseUrl;
    case 'urlquery':
      return queryEscape(args.map(print).join(''));
    case 'print':
      return args.map(print).join('');
    case 'not':
      return !truthy(args[0]);
    case 'and': {
      for (const arg of args) if (!truthy(arg)) return arg;
      return args[args.length - 1];
    }
    case 'or': {
      for (const arg of args) if (truthy(arg)) return arg;
      return args[args.length - 1];
    }
    case 'eq':
      return args.slice(1).some((arg) => arg === args[0]);
    case 'ne':
      return args[0] !== args[1];
    case 'len':
      return Array.isArray(args[0]) || typeof args[0] === 'string'
        ? args[0].length
        : Object.keys(args[0] ?? {}).length;
    default:
      throw new TemplateError(`function "${name}" not defined`);
  }
}

function renderNodes(nodes: Node[], context: TemplateContext): string {
  let out = '';
  for (const node of nodes) {
    switch (node.type) {
      case 'text':
        out += node.value;
        break;
      case 'output':
        out += print(evaluatePipeline(node.pipeline, context));
        break;
      case 'if': {
        const branch = node.branches.find((b) => truthy(evaluatePipeline(b.cond, context)));
        out += renderNodes(branch ? branch.body : node.otherwise, context);
        break;
      }
    }
  }
  return out;
}

const cache = new Map<string, Node[]>();

/** Parses (cached) and checks a template; throws TemplateError. */
export function parseTemplate(source: string): Node[] {
  let nodes = cache.get(source);
  if (!nodes) {
    nodes = parseNodes(split(source), { i: 0 }, []).nodes;
    if (cache.size > 500) cache.clear();
    cache.set(source, nodes);
  }
  return nodes;
}

export function renderTemplate(source: string, context: TemplateContext): string {
  return renderNodes(parseTemplate(source), context);
}
