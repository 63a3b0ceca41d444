import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a fake provider saw of one request. */
export interface SeenRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** The reply a fake provider gives: optional tool calls and cache tokens, an error, a delay between chunks. */
export interface Script {
  toolCalls?: { id: string; name: string; arguments: string }[];
  text?: string;
  cacheRead?: number;
  cacheWrite?: number;
  error?: { status: number; type: string; message: string };
  chunkDelayMs?: number;
}

export interface FakeProvider {
  url: string;
  seen: SeenRequest[];
  /** The next replies, in order (default: plain text). */
  script: Script[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
}

async function sse(
  res: ServerResponse,
  events: { event?: string; data: unknown }[],
  delay: number,
): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  for (const event of events) {
    res.write(
      `${event.event ? `event: ${event.event}\n` : ''}data: ${typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}\n\n`,
    );
    if (delay) await sleep(delay);
  }
  res.end();
}

async function start(
  handler: (req: IncomingMessage, res: ServerResponse, fake: FakeProvider) => Promise<void>,
): Promise<FakeProvider> {
  const fake: FakeProvider = { url: '', seen: [], script: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    handler(req, res, fake).catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${++counter}`;

/** An OpenAI-compatible provider: `/v1/chat/completions` and `/v1/responses`, streamed or not. */
export function fakeOpenAi(): Promise<FakeProvider> {
  return start(async (req, res, fake) => {
    const body = await readBody(req);
    fake.seen.push({ path: req.url ?? '', headers: req.headers, body });
    const script = fake.script.shift() ?? {};
    if (script.error) {
      res.writeHead(script.error.status, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({ error: { type: script.error.type, message: script.error.message, code: null } }),
      );
      return;
    }
    const model = String(body.model ?? 'gpt-test');
    const text = script.text ?? 'Hello from the fake OpenAI.';
    const cached = script.cacheRead ?? 0;
    if (req.url?.startsWith('/v1/responses')) {
      const id = nextId('resp');
      const output = [
        ...(script.toolCalls ?? []).map((call) => ({
          type: 'function_call',
          id: nextId('fc'),
          call_id: call.id,
          name: call.name,
          arguments: call.arguments,
        })),
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] },
      ];
      const response = {
        id,
        object: 'response',
        model,
        output,
        usage: {
          input_tokens: 40 + cached,
          output_tokens: 9,
          input_tokens_details: { cached_tokens: cached },
        },
      };
      if (body.stream === true) {
        await sse(
          res,
          [
            {
              event: 'response.created',
              data: { type: 'response.created', response: { ...response, output: [], usage: null } },
            },
            {
              event: 'response.output_text.delta',
              data: { type: 'response.output_text.delta', delta: text },
            },
            { event: 'response.completed', data: { type: 'response.completed', response } },
          ],
          script.chunkDelayMs ?? 0,
        );
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(response));
      }
      return;
    }
    const id = nextId('chatcmpl');
    const usage = {
      prompt_tokens: 30 + cached,
      completion_tokens: 7,
      total_tokens: 37 + cached,
      prompt_tokens_details: { cached_tokens: cached },
    };
    const toolCalls = (script.toolCalls ?? []).map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
    if (body.stream === true) {
      const events: { data: unknown }[] = [
        {
          data: {
            id,
            object: 'chat.completion.chunk',
            model,
            choices: [{ index: 0, delta: { role: 'assistant', content: '' } }],
          },
        },
        ...text.split(' ').map((word) => ({
          data: {
            id,
            object: 'chat.completion.chunk',
            model,
            choices: [{ index: 0, delta: { content: `${word} ` } }],
          },
        })),
        ...toolCalls.map((call, index) => ({
          data: {
            id,
            object: 'chat.completion.chunk',
            model,
            choices: [
              {
                index: 0,
                delta: {
                  tool_calls: [
                    {
                      index,
                      id: call.id,
                      type: 'function',
                      function: { name: call.function.name, arguments: '' },
                    },
                  ],
                },
              },
            ],
          },
        })),
        ...toolCalls.map((call, index) => ({
          data: {
            id,
            object: 'chat.completion.chunk',
            model,
            choices: [
              {
                index: 0,
                delta: { tool_calls: [{ index, function: { arguments: call.function.arguments } }] },
              },
            ],
          },
        })),
        { data: { id, object: 'chat.completion.chunk', model, choices: [], usage } },
        { data: '[DONE]' },
      ];
      await sse(res, events, script.chunkDelayMs ?? 0);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text,
              ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
          },
        ],
        usage,
      }),
    );
  });
}

/** An Anthropic-compatible provider: `/v1/messages`, streamed or not, with cache tokens. */
export function fakeAnthropic(): Promise<FakeProvider> {
  return start(async (req, res, fake) => {
    const body = await readBody(req);
    fake.seen.push({ path: req.url ?? '', headers: req.headers, body });
    const script = fake.script.shift() ?? {};
    if (script.error) {
      res.writeHead(script.error.status, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({ type: 'error', error: { type: script.error.type, message: script.error.message } }),
      );
      return;
    }
    const id = nextId('msg');
    const model = String(body.model ?? 'claude-test');
    const text = script.text ?? 'Hello from the fake Anthropic.';
    const usage = {
      input_tokens: 25,
      output_tokens: 11,
      cache_read_input_tokens: script.cacheRead ?? 0,
      cache_creation_input_tokens: script.cacheWrite ?? 0,
    };
    const tools = (script.toolCalls ?? []).map((call) => ({
      type: 'tool_use',
      id: call.id,
      name: call.name,
      input: JSON.parse(call.arguments) as unknown,
    }));
    if (body.stream === true) {
      const events: { event: string; data: unknown }[] = [
        {
          event: 'message_start',
          data: {
            type: 'message_start',
            message: {
              id,
              type: 'message',
              role: 'assistant',
              model,
              content: [],
              usage: { ...usage, output_tokens: 1 },
            },
          },
        },
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        },
        {
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
        },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        ...tools.flatMap((tool, i) => [
          {
            event: 'content_block_start',
            data: {
              type: 'content_block_start',
              index: i + 1,
              content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {} },
            },
          },
          {
            event: 'content_block_delta',
            data: {
              type: 'content_block_delta',
              index: i + 1,
              delta: { type: 'input_json_delta', partial_json: JSON.stringify(tool.input) },
            },
          },
          { event: 'content_block_stop', data: { type: 'content_block_stop', index: i + 1 } },
        ]),
        {
          event: 'message_delta',
          data: {
            type: 'message_delta',
            delta: { stop_reason: tools.length ? 'tool_use' : 'end_turn' },
            usage: { output_tokens: usage.output_tokens },
          },
        },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ];
      await sse(res, events, script.chunkDelayMs ?? 0);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(
      JSON.stringify({
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text }, ...tools],
        stop_reason: tools.length ? 'tool_use' : 'end_turn',
        usage,
      }),
    );
  });
}
