import { modelAnswer, modelRequest, toOpenAiMessages } from '../../src/modules/chats/chat-model-wire';
import type { MessageRow } from '../../src/modules/chats/repositories/chat-messages.repository';

const message = (role: string, content: Record<string, unknown>[]): MessageRow => ({
  id: '1',
  chat_id: 'c',
  role,
  content,
  model_config_id: null,
  input_tokens: '0',
  output_tokens: '0',
  reasoning_tokens: '0',
  cache_read_tokens: '0',
  cache_write_tokens: '0',
  total_cost_micros: null,
  runtime_ms: 0,
  created_at: new Date(0),
});

describe('chats: the stored history as model messages', () => {
  it('user texts joined, assistant tool calls as function calls, tool results one message each', () => {
    const history = [
      message('user', [
        { type: 'text', text: 'fix' },
        { type: 'file', file_id: 'f' },
        { type: 'text', text: 'the build' },
      ]),
      message('assistant', [
        { type: 'tool-call', tool_call_id: 'call_1', name: 'read_file', arguments: '{"path":"a"}' },
        { type: 'tool-call', tool_call_id: 'call_2', name: 'run_command', arguments: '{"command":"make"}' },
      ]),
      message('tool', [
        { type: 'tool-result', tool_call_id: 'call_1', name: 'read_file', ok: true, output: 'contents' },
        { type: 'tool-result', tool_call_id: 'call_2', name: 'run_command', ok: false },
      ]),
      message('assistant', [{ type: 'text', text: 'done' }]),
    ];
    expect(toOpenAiMessages(history)).toEqual([
      { role: 'user', content: 'fix\nthe build' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'run_command', arguments: '{"command":"make"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'contents' },
      { role: 'tool', tool_call_id: 'call_2', content: '' },
      { role: 'assistant', content: 'done' },
    ]);
  });
});

describe('chats: the model call', () => {
  const messages = [
    { role: 'user' as const, content: 'hi' },
    { role: 'assistant' as const, content: null, tool_calls: [{ id: 'x' }] },
    { role: 'tool' as const, tool_call_id: 'x', content: 'out' },
  ];

  it('OpenAI: chat completions under the gateway, tools only when given', () => {
    expect(modelRequest('openai', 'my provider', 'gpt', messages, [{ type: 'function' }])).toEqual({
      path: '/api/v2/aigateway/my%20provider/v1/chat/completions',
      body: { model: 'gpt', messages, tools: [{ type: 'function' }] },
    });
    expect(modelRequest('openai', 'p', 'gpt', messages, undefined).body).toEqual({ model: 'gpt', messages });
  });

  it('Anthropic: messages with user and assistant texts only, max_tokens 4096', () => {
    expect(modelRequest('anthropic', 'claude', 'sonnet', messages, [{ type: 'function' }])).toEqual({
      path: '/api/v2/aigateway/claude/v1/messages',
      body: {
        model: 'sonnet',
        max_tokens: 4096,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: '' },
        ],
      },
    });
  });
});

describe("chats: the model's answer (tool-call parsing, usage)", () => {
  it('OpenAI: the first choice, its tool calls, cached and reasoning tokens', () => {
    expect(
      modelAnswer('openai', {
        choices: [
          {
            message: {
              content: 'let me look',
              tool_calls: [{ id: 'call_1', function: { name: 'read_file', arguments: '{"path":"x"}' } }],
            },
          },
          { message: { content: 'ignored' } },
        ],
        usage: {
          prompt_tokens: 100,
          completion_tokens: 40,
          prompt_tokens_details: { cached_tokens: 25 },
          completion_tokens_details: { reasoning_tokens: 12 },
        },
      }),
    ).toEqual({
      text: 'let me look',
      toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"x"}' }],
      usage: { input: 75, output: 40, reasoning: 12, cacheRead: 25, cacheWrite: 0 },
    });
  });

  it('OpenAI: no content and no usage is an empty answer with zero usage', () => {
    expect(modelAnswer('openai', { choices: [{ message: { content: null } }] })).toEqual({
      text: '',
      toolCalls: [],
      usage: { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
    });
  });

  it('Anthropic: text blocks joined, tool_use blocks as calls with JSON arguments, cache tokens', () => {
    expect(
      modelAnswer('anthropic', {
        content: [
          { type: 'text', text: 'a' },
          { type: 'tool_use', id: 'toolu_1', name: 'list_directory', input: { path: 'src' } },
          { type: 'text', text: 'b' },
          { type: 'tool_use', id: 'toolu_2', name: 'run_command' },
        ],
        usage: {
          input_tokens: 8,
          output_tokens: 9,
          cache_read_input_tokens: 3,
          cache_creation_input_tokens: 4,
        },
      }),
    ).toEqual({
      text: 'ab',
      toolCalls: [
        { id: 'toolu_1', name: 'list_directory', arguments: '{"path":"src"}' },
        { id: 'toolu_2', name: 'run_command', arguments: '{}' },
      ],
      usage: { input: 8, output: 9, reasoning: 0, cacheRead: 3, cacheWrite: 4 },
    });
  });
});
